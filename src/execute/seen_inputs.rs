use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// Output name -> salted digest of its value.
pub type OutputDigests = BTreeMap<String, String>;

/// A repository's random salt: digests of equal values are equal within one repository only,
/// so a digest kept under `.runner/` cannot be looked up in a table of likely values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestSalt(Vec<u8>);

impl DigestSalt {
    pub fn new(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }

    /// SHA-256 of the salt and each part (each length-prefixed, so parts cannot run together).
    pub fn digest<'a>(&self, parts: impl IntoIterator<Item = &'a [u8]>) -> String {
        let mut context = ring::digest::Context::new(&ring::digest::SHA256);
        context.update(&(self.0.len() as u64).to_le_bytes());
        context.update(&self.0);
        for part in parts {
            context.update(&(part.len() as u64).to_le_bytes());
            context.update(part);
        }
        context.finish().as_ref().iter().map(|byte| format!("{byte:02x}")).collect()
    }

    /// Digests of a stack's outputs as the event log shows them. A secret is the same
    /// `[secret]` there whatever its value, so it is taken as changed by every operation that
    /// may have changed it (`fresh`), and otherwise keeps its `previous` digest.
    pub fn output_digests(
        &self,
        outputs: &serde_json::Map<String, serde_json::Value>,
        previous: Option<&OutputDigests>,
        fresh: &str,
    ) -> OutputDigests {
        outputs
            .iter()
            .map(|(name, value)| {
                let digest = if is_secret(value) {
                    match previous.and_then(|previous| previous.get(name)) {
                        Some(kept) if fresh.is_empty() => kept.clone(),
                        _ => self.digest([b"secret".as_slice(), name.as_bytes(), fresh.as_bytes()]),
                    }
                } else {
                    self.digest([b"value".as_slice(), name.as_bytes(), value.to_string().as_bytes()])
                };
                (name.clone(), digest)
            })
            .collect()
    }
}

fn read_part<'d>(digests: &'d OutputDigests, reads: Option<&BTreeSet<String>>) -> Vec<(&'d String, &'d String)> {
    digests.iter().filter(|(name, _)| reads.is_none_or(|reads| reads.contains(*name))).collect()
}

/// A secret as the CLI adapter hands stack outputs over (`OperationProgress::stack_outputs`).
fn is_secret(value: &serde_json::Value) -> bool {
    value.as_str() == Some("[secret]")
}

/// What a project's last successful `up` saw, as salted digests: its own inputs (folder, stack
/// config, environment, `pulumi`), its outputs, and each upstream project's outputs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeenInputs {
    pub inputs: Option<String>,
    /// `None` when the operation showed no stack outputs.
    pub outputs: Option<OutputDigests>,
    pub upstream: BTreeMap<String, OutputDigests>,
}

impl SeenInputs {
    /// The upstream projects whose outputs (those in `reads`, or all) differ from what this
    /// record saw; `None` when an upstream's outputs are not known now.
    pub fn changed_upstream<'a>(
        &self,
        now: impl IntoIterator<Item = (&'a str, Option<&'a OutputDigests>)>,
        reads: Option<&BTreeSet<String>>,
    ) -> Option<Vec<String>> {
        let mut changed = Vec::new();
        for (upstream, current) in now {
            let current = current?;
            let Some(seen) = self.upstream.get(upstream) else {
                changed.push(upstream.to_string());
                continue;
            };
            if read_part(seen, reads) != read_part(current, reads) {
                changed.push(upstream.to_string());
            }
        }
        Some(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs(json: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        json.as_object().unwrap().clone()
    }

    #[test]
    fn digests_differ_between_salts_and_never_hold_the_value() {
        let values = outputs(serde_json::json!({"cidr": "10.42.0.0/16"}));
        let one = DigestSalt::new(b"one".to_vec()).output_digests(&values, None, "");
        let two = DigestSalt::new(b"two".to_vec()).output_digests(&values, None, "");
        assert_ne!(one, two);
        assert!(!one["cidr"].contains("10.42"));
    }

    #[test]
    fn a_secret_changes_only_when_an_operation_may_have_changed_it() {
        let salt = DigestSalt::new(b"s".to_vec());
        let secret = outputs(serde_json::json!({"token": "[secret]"}));
        let first = salt.output_digests(&secret, None, "run-1");
        assert_eq!(salt.output_digests(&secret, Some(&first), ""), first, "a refresh keeps it");
        assert_ne!(salt.output_digests(&secret, Some(&first), "run-2"), first, "an up may have changed it");
    }

    #[test]
    fn only_the_outputs_read_are_compared() {
        let salt = DigestSalt::new(b"s".to_vec());
        let before = salt.output_digests(&outputs(serde_json::json!({"a": 1, "b": 2})), None, "");
        let after = salt.output_digests(&outputs(serde_json::json!({"a": 1, "b": 3})), None, "");
        let seen = SeenInputs { upstream: [("net".to_string(), before)].into(), ..Default::default() };
        let reads: BTreeSet<String> = ["a".to_string()].into();
        assert_eq!(seen.changed_upstream([("net", Some(&after))], Some(&reads)), Some(vec![]));
        assert_eq!(seen.changed_upstream([("net", Some(&after))], None), Some(vec!["net".to_string()]));
        assert_eq!(seen.changed_upstream([("net", None)], None), None, "unknown outputs never skip");
    }
}
