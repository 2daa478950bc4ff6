use std::time::Duration;

use serde::Serialize;

/// When a failed operation is tried again. Program and compilation errors never are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RetryPolicy {
    /// Total tries, the first included.
    pub attempts: u32,
    /// Wait before the second try; doubled for each later one.
    #[serde(with = "humantime_serde")]
    pub backoff: Duration,
    /// Extra patterns that make a failure retryable, compiled once when the provider loads.
    pub on: RetryPatterns,
}

/// `retry.on`'s regular expressions, compiled; compared and written as the text the user wrote.
#[derive(Debug, Clone, Default)]
pub struct RetryPatterns(Vec<regex::Regex>);

impl RetryPatterns {
    /// The first pattern that does not compile, with its index, is the error.
    pub fn compile<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Result<Self, (usize, regex::Error)> {
        let compiled = patterns
            .into_iter()
            .enumerate()
            .map(|(index, pattern)| regex::Regex::new(pattern).map_err(|err| (index, err)))
            .collect::<Result<_, _>>()?;
        Ok(Self(compiled))
    }

    fn is_match(&self, text: &str) -> bool {
        self.0.iter().any(|regex| regex.is_match(text))
    }
}

impl PartialEq for RetryPatterns {
    fn eq(&self, other: &Self) -> bool {
        self.0.iter().map(regex::Regex::as_str).eq(other.0.iter().map(regex::Regex::as_str))
    }
}

impl Eq for RetryPatterns {}

impl Serialize for RetryPatterns {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(regex::Regex::as_str))
    }
}

/// Failures that are transient by nature: another update holds the stack, a conflict, the network.
const TRANSIENT: &[&str] = &[
    "the stack is currently locked",
    "409 Conflict",
    "conflict: Another update is currently in progress",
    "connection reset by peer",
    "TLS handshake timeout",
    "i/o timeout",
    "429 Too Many Requests",
    "503 Service Unavailable",
];

/// Failures of the program itself: running it again gives the same answer.
const PROGRAM_ERRORS: &[&str] = &[
    "an unhandled error occurred",
    "Program failed",
    "compilation error",
    "SyntaxError",
    "TypeError",
    "could not unmarshal",
    "failed to discover package requirements",
    "error: Duplicate resource URN",
    "is not a valid",
];

impl Default for RetryPolicy {
    /// Without a `retry` table, transient failures still get two more tries.
    fn default() -> Self {
        Self { attempts: 3, backoff: Duration::from_secs(5), on: RetryPatterns::default() }
    }
}

impl RetryPolicy {
    pub fn should_retry(&self, failure_text: &str) -> bool {
        if PROGRAM_ERRORS.iter().any(|pattern| failure_text.contains(pattern)) {
            return false;
        }
        TRANSIENT.iter().any(|pattern| failure_text.contains(pattern)) || self.on.is_match(failure_text)
    }

    pub fn delay_before(&self, attempt: u32) -> Duration {
        self.backoff.saturating_mul(2u32.saturating_pow(attempt.saturating_sub(2)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_conflicts_are_retried() {
        assert!(RetryPolicy::default().should_retry("error: the stack is currently locked by 1 lock(s)."));
    }

    #[test]
    fn program_errors_never_are_even_when_a_pattern_matches() {
        let policy = RetryPolicy { on: RetryPatterns::compile(["error"]).unwrap(), ..Default::default() };
        assert!(!policy.should_retry("error: an unhandled error occurred: boom"));
        assert!(policy.should_retry("error: webhook not ready"));
    }

    #[test]
    fn backoff_doubles() {
        let policy = RetryPolicy { backoff: Duration::from_secs(10), ..Default::default() };
        assert_eq!(policy.delay_before(2), Duration::from_secs(10));
        assert_eq!(policy.delay_before(3), Duration::from_secs(20));
    }

    #[test]
    fn ordinary_failures_are_not_retried() {
        assert!(!RetryPolicy::default().should_retry("error: quota exceeded"));
    }
}
