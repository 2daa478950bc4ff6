//! What an `up` was made with, kept in the backend with the update (as its message) so that every
//! checkout sees it: one salted SHA-256 of the project's inputs and of each upstream output it read.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::{opened_value, DigestSalt, PassphraseKey};

/// The message an `up` carries; a person reading `pulumi stack history` sees what made it.
const MARK: &str = "runner up; inputs sha256:";

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UpFingerprint(String);

/// The outputs of one upstream stack as the backend holds them now.
pub(crate) struct UpstreamOutputs<'a> {
    /// The upstream project's path in the provider, as the graph names it.
    pub project: &'a str,
    pub outputs: &'a serde_json::Map<String, serde_json::Value>,
    /// Opens its secrets; without it a secret counts by its ciphertext.
    pub key: Option<&'a PassphraseKey>,
}

impl UpFingerprint {
    /// The digest of `inputs` (the project's own, already a digest) and of the outputs of each
    /// upstream (only those named in `reads`, when the program's reads are known).
    pub(crate) fn of(
        salt: &DigestSalt,
        inputs: &str,
        upstream: &[UpstreamOutputs<'_>],
        reads: Option<&BTreeSet<String>>,
    ) -> Self {
        let mut parts: Vec<Vec<u8>> = vec![b"inputs".to_vec(), inputs.as_bytes().to_vec()];
        let mut upstream: Vec<&UpstreamOutputs<'_>> = upstream.iter().collect();
        upstream.sort_by_key(|read| read.project);
        for read in upstream {
            parts.push(format!("upstream {}", read.project).into_bytes());
            for (name, value) in read.outputs {
                if reads.is_some_and(|reads| !reads.contains(name)) {
                    continue;
                }
                let mut text = String::new();
                canonical_json(&opened_value(value, read.key), &mut text);
                parts.push(format!("output {name}").into_bytes());
                parts.push(text.into_bytes());
            }
        }
        Self(salt.digest(parts.iter().map(Vec::as_slice)))
    }

    pub(crate) fn message(&self) -> String {
        format!("{MARK}{}", self.0)
    }

    /// The fingerprint in an update's message; `None` when the update was not made by the runner.
    pub(crate) fn from_message(message: &str) -> Option<Self> {
        let start = message.find(MARK)? + MARK.len();
        let digest: String = message[start..].chars().take_while(char::is_ascii_hexdigit).collect();
        (digest.len() == 64).then_some(Self(digest))
    }
}

/// JSON with every object's keys in order, so equal values give equal text whatever the order they were read in.
fn canonical_json(value: &serde_json::Value, out: &mut String) {
    match value {
        serde_json::Value::Object(map) => {
            let mut names: Vec<&String> = map.keys().collect();
            names.sort();
            out.push('{');
            for (index, name) in names.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{}:", serde_json::Value::String(name.clone()));
                canonical_json(&map[name], out);
            }
            out.push('}');
        }
        serde_json::Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                canonical_json(item, out);
            }
            out.push(']');
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn the_message_carries_the_fingerprint_and_nothing_else_reads_as_one() {
        let salt = DigestSalt::new(b"s".to_vec());
        let fingerprint = UpFingerprint::of(&salt, "i", &[], None);
        assert_eq!(UpFingerprint::from_message(&fingerprint.message()), Some(fingerprint.clone()));
        assert_eq!(
            UpFingerprint::from_message(&format!("deploy by hand\n{}", fingerprint.message())),
            Some(fingerprint)
        );
        for other in ["", "runner up; inputs sha256:abc", "Update by hand", "runner up; inputs sha256:"] {
            assert_eq!(UpFingerprint::from_message(other), None, "{other:?}");
        }
    }

    #[test]
    fn every_output_read_and_every_input_changes_it_and_key_order_does_not() {
        let salt = DigestSalt::new(b"s".to_vec());
        let net = outputs(serde_json::json!({"cidr": "10.0.0.0/16", "name": {"a": 1, "b": 2}}));
        let reordered = outputs(serde_json::json!({"name": {"b": 2, "a": 1}, "cidr": "10.0.0.0/16"}));
        let changed = outputs(serde_json::json!({"cidr": "10.1.0.0/16", "name": {"a": 1, "b": 2}}));
        let of =
            |inputs: &str, outputs: &serde_json::Map<String, serde_json::Value>, reads: Option<&BTreeSet<String>>| {
                UpFingerprint::of(&salt, inputs, &[UpstreamOutputs { project: "net", outputs, key: None }], reads)
            };
        assert_eq!(of("i", &net, None), of("i", &reordered, None));
        assert_ne!(of("i", &net, None), of("i", &changed, None));
        assert_ne!(of("i", &net, None), of("j", &net, None));
        let reads: BTreeSet<String> = ["name".to_string()].into();
        assert_eq!(of("i", &net, Some(&reads)), of("i", &changed, Some(&reads)), "`cidr` is not read");
        assert_ne!(
            UpFingerprint::of(&salt, "i", &[UpstreamOutputs { project: "net", outputs: &net, key: None }], None),
            UpFingerprint::of(&salt, "i", &[UpstreamOutputs { project: "vpc", outputs: &net, key: None }], None),
        );
        assert_ne!(
            of("i", &net, None),
            UpFingerprint::of(
                &DigestSalt::new(b"t".to_vec()),
                "i",
                &[UpstreamOutputs { project: "net", outputs: &net, key: None }],
                None
            )
        );
    }
}
