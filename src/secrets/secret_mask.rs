use std::sync::{Arc, RwLock};

pub const MASK: &str = "[secret]";

/// Shorter values are too likely to be ordinary words to hide everywhere.
const MIN_SECRET_LEN: usize = 4;
/// Outputs are masked only from this length: a stack output `dev` is not worth hiding in every line.
const MIN_OUTPUT_LEN: usize = 8;

/// Every value the runner knows to be secret, replaced by `[secret]` in whatever it prints or writes.
/// Shared: the driver adds secret outputs as it reads them.
#[derive(Debug, Clone, Default)]
pub struct SecretMask {
    values: Arc<RwLock<Vec<String>>>,
}

impl SecretMask {
    pub fn new(values: impl IntoIterator<Item = String>) -> Self {
        let mask = Self::default();
        for value in values {
            mask.add(&value);
        }
        mask
    }

    pub fn add(&self, value: &str) {
        self.add_with_min(value, MIN_SECRET_LEN);
    }

    fn add_with_min(&self, value: &str, min: usize) {
        let mut pieces = vec![value.to_string()];
        if value.contains('\n') {
            pieces.extend(value.lines().map(str::trim).map(str::to_string));
        }
        let Ok(mut values) = self.values.write() else { return };
        for piece in pieces {
            if piece.len() >= min && !values.contains(&piece) {
                values.push(piece);
            }
        }
        // Longest first, so a secret containing another is replaced whole.
        values.sort_by_key(|value| std::cmp::Reverse(value.len()));
    }

    /// Adds every string inside a JSON object (stack outputs read with `--show-secrets`).
    pub fn add_json_strings(&self, outputs: &serde_json::Map<String, serde_json::Value>) {
        fn walk(mask: &SecretMask, value: &serde_json::Value) {
            match value {
                serde_json::Value::String(text) => mask.add_with_min(text, MIN_OUTPUT_LEN),
                serde_json::Value::Array(items) => items.iter().for_each(|item| walk(mask, item)),
                serde_json::Value::Object(map) => map.values().for_each(|item| walk(mask, item)),
                _ => {}
            }
        }
        outputs.values().for_each(|value| walk(self, value));
    }

    pub fn apply(&self, text: &str) -> String {
        let Ok(values) = self.values.read() else { return text.to_string() };
        let mut out = text.to_string();
        for value in values.iter() {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), MASK);
            }
        }
        out
    }

    /// Every value masked, longest first.
    pub fn values(&self) -> Vec<String> {
        self.values.read().map(|values| values.clone()).unwrap_or_default()
    }

    pub fn is_empty(&self) -> bool {
        self.values.read().map(|values| values.is_empty()).unwrap_or(true)
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
    fn short_values_are_ignored() {
        let mask = SecretMask::new(["ab".to_string()]);
        assert_eq!(mask.apply("about"), "about");
    }

    #[test]
    fn multi_line_values_are_masked_line_by_line() {
        let mask = SecretMask::new(["line-one-secret\nline-two-secret".to_string()]);
        assert_eq!(mask.apply("x line-two-secret y"), "x [secret] y");
    }

    #[test]
    fn json_outputs_are_walked() {
        let outputs =
            serde_json::from_str(r#"{"a":{"token":"very-secret-token"},"b":["another-secret"],"n":"dev"}"#).unwrap();
        let mask = SecretMask::default();
        mask.add_json_strings(&outputs);
        assert_eq!(mask.apply("very-secret-token another-secret dev"), "[secret] [secret] dev");
    }
}
