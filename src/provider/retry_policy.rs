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
    /// The first pattern that does not compile, with its index and the short reason, is the error.
    pub fn compile<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Result<Self, (usize, String)> {
        let compiled = patterns
            .into_iter()
            .enumerate()
            .map(|(index, pattern)| regex::Regex::new(pattern).map_err(|err| (index, short_reason(&err))))
            .collect::<Result<_, _>>()?;
        Ok(Self(compiled))
    }

    fn is_match(&self, text: &str) -> bool {
        self.0.iter().any(|regex| regex.is_match(text))
    }
}

/// The regex crate's reason on one line (`unclosed group`): its display is several lines, the
/// pattern repeated with a caret under the fault, which breaks the one-line error around it.
fn short_reason(err: &regex::Error) -> String {
    match err {
        regex::Error::Syntax(text) => text
            .lines()
            .rev()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .map(|line| line.strip_prefix("error: ").unwrap_or(line).to_string())
            .unwrap_or_else(|| text.clone()),
        regex::Error::CompiledTooBig(limit) => {
            format!("the compiled pattern is over the limit of {}", crate::text::counted(*limit, "byte"))
        }
        other => other.to_string().lines().next().unwrap_or_default().to_string(),
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
    fn a_pattern_that_does_not_compile_has_a_one_line_reason() {
        let bad = ["(unclosed", "[z-a]", "a{2,1}", "*", "\\", "(?P<>x)", "x{99999999999}", "\\p{Nope}", "(?z)"];
        for pattern in bad {
            let (index, reason) = RetryPatterns::compile(["fine", pattern]).expect_err(pattern);
            assert_eq!(index, 1);
            assert!(!reason.is_empty() && !reason.contains('\n'), "{pattern:?}: {reason:?}");
            assert!(!reason.starts_with("error") && !reason.contains(pattern), "{pattern:?}: {reason:?}");
        }
        let (_, reason) = RetryPatterns::compile(["(unclosed"]).unwrap_err();
        assert_eq!(reason, "unclosed group");
    }

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
