use std::sync::{Arc, RwLock};

use aho_corasick::AhoCorasick;

use super::printed_forms;

pub(crate) const MASK: &str = "[secret]";

/// Outputs are masked from this length when Pulumi did not say which are secret: then every
/// output is a candidate, and a stack output `dev` is not worth hiding in every line.
const MIN_GUESSED_OUTPUT_LEN: usize = 8;

/// Every value the runner knows to be secret, replaced by `[secret]` in whatever it prints or
/// writes, in every printed form (`printed_forms`) and whatever its length: a short secret makes
/// output harder to read, never leaks. Shared: the driver adds secret outputs as it reads them.
#[derive(Debug, Clone, Default)]
pub(crate) struct SecretMask {
    state: Arc<RwLock<MaskState>>,
}

#[derive(Debug, Default)]
struct MaskState {
    secrets: Vec<String>,
    patterns: Vec<String>,
    /// Rebuilt when a secret is added: every pattern, all overlapping matches reported.
    matcher: Option<AhoCorasick>,
}

impl SecretMask {
    pub(crate) fn new(values: impl IntoIterator<Item = String>) -> Self {
        let mask = Self::default();
        mask.add_all(values);
        mask
    }

    pub(crate) fn add(&self, value: &str) {
        self.add_all([value.to_string()]);
    }

    fn add_all(&self, values: impl IntoIterator<Item = String>) {
        let Ok(mut state) = self.state.write() else { return };
        let mut changed = false;
        for value in values {
            if value.is_empty() || state.secrets.contains(&value) {
                continue;
            }
            for form in printed_forms(&value) {
                if !state.patterns.contains(&form) {
                    state.patterns.push(form);
                }
            }
            state.secrets.push(value);
            changed = true;
        }
        if changed {
            // Failing to build (only on absurd sizes) must not unmask: `apply` then masks all.
            state.matcher = AhoCorasick::new(&state.patterns).ok();
        }
    }

    /// Adds every value inside stack outputs Pulumi marks secret: strings, numbers and booleans
    /// at any depth, whatever their length.
    pub(crate) fn add_json_values(&self, outputs: &serde_json::Map<String, serde_json::Value>) {
        let mut found = Vec::new();
        outputs.values().for_each(|value| json_leaves(value, &mut found));
        self.add_all(found);
    }

    /// Adds the longer strings of outputs when Pulumi did not say which outputs are secret.
    pub(crate) fn add_guessed_outputs(&self, outputs: &serde_json::Map<String, serde_json::Value>) {
        let mut found = Vec::new();
        outputs.values().for_each(|value| json_leaves(value, &mut found));
        self.add_all(found.into_iter().filter(|text| text.len() >= MIN_GUESSED_OUTPUT_LEN));
    }

    /// `text` with every occurrence of every form of every secret replaced. Overlapping matches
    /// are merged first, so no part of any occurrence survives next to a mask.
    pub(crate) fn apply(&self, text: &str) -> String {
        let Ok(state) = self.state.read() else { return MASK.to_string() };
        if state.patterns.is_empty() {
            return text.to_string();
        }
        let Some(matcher) = &state.matcher else { return MASK.to_string() };
        let spans = merged_spans(matcher, text.as_bytes());
        if spans.is_empty() {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (start, end) in spans {
            out.push_str(&text[at..start]);
            out.push_str(MASK);
            at = end;
        }
        out.push_str(&text[at..]);
        out
    }

    /// Byte ranges of `bytes` that `apply` would replace, merged and in order.
    pub(crate) fn secret_spans(&self, bytes: &[u8]) -> Vec<(usize, usize)> {
        let Ok(state) = self.state.read() else { return vec![(0, bytes.len())] };
        match &state.matcher {
            Some(matcher) => merged_spans(matcher, bytes),
            None if state.patterns.is_empty() => Vec::new(),
            None => vec![(0, bytes.len())],
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.state.read().map(|state| state.secrets.is_empty()).unwrap_or(true)
    }
}

/// Matches may start inside a UTF-8 character only when a pattern does, which printed forms of
/// valid strings never do; spans are widened to character boundaries all the same, so slicing
/// the text by them cannot panic.
fn merged_spans(matcher: &AhoCorasick, bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut found: Vec<(usize, usize)> = matcher.find_overlapping_iter(bytes).map(|m| (m.start(), m.end())).collect();
    found.sort_unstable();
    for (mut start, mut end) in found {
        while start > 0 && start < bytes.len() && (bytes[start] & 0b1100_0000) == 0b1000_0000 {
            start -= 1;
        }
        while end < bytes.len() && (bytes[end] & 0b1100_0000) == 0b1000_0000 {
            end += 1;
        }
        match spans.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => spans.push((start, end)),
        }
    }
    spans
}

fn json_leaves(value: &serde_json::Value, found: &mut Vec<String>) {
    match value {
        serde_json::Value::String(text) => found.push(text.clone()),
        serde_json::Value::Number(number) => found.push(number.to_string()),
        serde_json::Value::Bool(flag) => found.push(flag.to_string()),
        serde_json::Value::Array(items) => items.iter().for_each(|item| json_leaves(item, found)),
        serde_json::Value::Object(map) => map.values().for_each(|item| json_leaves(item, found)),
        serde_json::Value::Null => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_every_known_value() {
        let mask = SecretMask::new(["hunter22".to_string(), "s3cr3t-token".to_string()]);
        assert_eq!(mask.apply("pass hunter22 and s3cr3t-token"), "pass [secret] and [secret]");
    }

    #[test]
    fn longer_secrets_win_over_their_prefixes() {
        let mask = SecretMask::new(["abcd".to_string(), "abcdefgh".to_string()]);
        assert_eq!(mask.apply("abcdefgh"), "[secret]");
    }

    #[test]
    fn overlapping_secrets_are_masked_as_one_span() {
        let mask = SecretMask::new(["xab".to_string(), "abcdef".to_string()]);
        assert_eq!(mask.apply("0xabcdef1"), "0[secret]1");
    }

    #[test]
    fn short_values_are_masked_too() {
        let mask = SecretMask::new(["ab".to_string()]);
        assert_eq!(mask.apply("about"), "[secret]out");
    }

    #[test]
    fn multi_line_values_are_masked_line_by_line() {
        let mask = SecretMask::new(["line-one-secret\nline-two-secret".to_string()]);
        assert_eq!(mask.apply("x line-two-secret y"), "x [secret] y");
    }

    #[test]
    fn secret_outputs_of_every_type_and_length_are_added() {
        let outputs = serde_json::from_str(r#"{"a":{"token":"short7!"},"b":[1234567],"c":true,"n":null}"#).unwrap();
        let mask = SecretMask::default();
        mask.add_json_values(&outputs);
        assert_eq!(mask.apply("short7! 1234567 true"), "[secret] [secret] [secret]");
    }

    #[test]
    fn guessed_outputs_keep_the_length_floor() {
        let outputs =
            serde_json::from_str(r#"{"a":{"token":"very-secret-token"},"b":["another-secret"],"n":"dev"}"#).unwrap();
        let mask = SecretMask::default();
        mask.add_guessed_outputs(&outputs);
        assert_eq!(mask.apply("very-secret-token another-secret dev"), "[secret] [secret] dev");
    }
}
