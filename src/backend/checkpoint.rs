//! A stack's checkpoint as Pulumi's DIY backend writes it (`.pulumi/stacks/<project>/<stack>.json`,
//! gzipped as `.json.gz`): its resources, its stack outputs and the secrets provider that sealed them.

use std::io::Read;

use serde::Deserialize;

use super::PassphraseKey;

/// Pulumi's marker of a secret value in state: `{"4dabf18193072939515e22adb298388d": SECRET_SIG, ...}`.
const SECRET_KEY: &str = "4dabf18193072939515e22adb298388d";
const SECRET_SIG: &str = "1b47061264138c4ac30d75fd1eb44270";

#[derive(Debug, Deserialize)]
struct CheckpointFile {
    #[serde(default)]
    checkpoint: CheckpointBody,
}

#[derive(Debug, Default, Deserialize)]
struct CheckpointBody {
    #[serde(default)]
    latest: Option<Deployment>,
}

#[derive(Debug, Default, Deserialize)]
struct Deployment {
    #[serde(default)]
    secrets_providers: Option<SecretsProvider>,
    #[serde(default)]
    resources: Vec<serde_json::Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
struct SecretsProvider {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    state: serde_json::Value,
}

/// Why a checkpoint could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CheckpointError {
    #[error("`{key}` is not gzip")]
    Gzip { key: String, source: std::io::Error },
    #[error("`{key}` is not a Pulumi checkpoint")]
    Json { key: String, source: serde_json::Error },
}

/// The latest deployment of a stack, as its checkpoint holds it.
#[derive(Debug, Default)]
pub(crate) struct Checkpoint {
    resources: Vec<serde_json::Value>,
    secrets_provider: Option<SecretsProvider>,
}

/// The bytes of a state file, unzipped when its key says gzip.
pub(crate) fn state_file_bytes(key: &str, bytes: Vec<u8>) -> Result<Vec<u8>, std::io::Error> {
    if !key.ends_with(".gz") {
        return Ok(bytes);
    }
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(bytes.as_slice()).read_to_end(&mut plain)?;
    Ok(plain)
}

impl Checkpoint {
    pub(crate) fn parse(key: &str, bytes: Vec<u8>) -> Result<Self, CheckpointError> {
        let bytes = state_file_bytes(key, bytes).map_err(|source| CheckpointError::Gzip { key: key.into(), source })?;
        let file: CheckpointFile =
            serde_json::from_slice(&bytes).map_err(|source| CheckpointError::Json { key: key.into(), source })?;
        let latest = file.checkpoint.latest.unwrap_or_default();
        Ok(Self { resources: latest.resources, secrets_provider: latest.secrets_providers })
    }

    /// Resources in the stack, the stack itself included: 0 once destroyed or never updated.
    pub(crate) fn resource_count(&self) -> usize {
        self.resources.len()
    }

    /// The outputs of the stack resource (`pulumi:pulumi:Stack`), secrets still sealed; `None`
    /// when the stack holds no stack resource.
    pub(crate) fn stack_outputs(&self) -> Option<serde_json::Map<String, serde_json::Value>> {
        let stack = self.resources.iter().find(|resource| {
            resource.get("type").and_then(serde_json::Value::as_str) == Some("pulumi:pulumi:Stack")
                && resource.get("parent").is_none_or(|parent| parent.as_str().is_none_or(str::is_empty))
        })?;
        Some(stack.get("outputs").and_then(serde_json::Value::as_object).cloned().unwrap_or_default())
    }

    /// The salt of the passphrase provider that sealed this stack's secrets; `None` for another provider.
    pub(crate) fn passphrase_salt(&self) -> Option<&str> {
        let provider = self.secrets_provider.as_ref()?;
        (provider.kind == "passphrase").then(|| provider.state.get("salt").and_then(serde_json::Value::as_str))?
    }
}

/// A value of state with every secret opened where `key` can (its plaintext JSON parsed), or
/// else kept as its ciphertext: the same ciphertext under one key is the same value, so comparing
/// ciphertexts never calls two different values equal.
pub(crate) fn opened_value(value: &serde_json::Value, key: Option<&PassphraseKey>) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(map) if map.get(SECRET_KEY).and_then(Value::as_str) == Some(SECRET_SIG) => {
            let plaintext = map.get("plaintext").and_then(Value::as_str).map(str::to_string).or_else(|| {
                let ciphertext = map.get("ciphertext").and_then(Value::as_str)?;
                key?.decrypt(ciphertext).ok()
            });
            match plaintext {
                Some(text) => {
                    serde_json::json!({ "secret": serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text)) })
                }
                None => serde_json::json!({ "sealed": map.get("ciphertext").cloned().unwrap_or(Value::Null) }),
            }
        }
        Value::Object(map) => {
            Value::Object(map.iter().map(|(name, item)| (name.clone(), opened_value(item, key))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(|item| opened_value(item, key)).collect()),
        other => other.clone(),
    }
}

/// A stack's outputs in clear, as `pulumi stack output --json --show-secrets` prints them.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct StackOutputsRead {
    pub values: serde_json::Map<String, serde_json::Value>,
    /// The outputs the state keeps secret.
    pub secret: Vec<String>,
}

/// `outputs` with every secret opened; `None` when one cannot be opened with `key`.
pub(crate) fn plain_outputs(
    outputs: &serde_json::Map<String, serde_json::Value>,
    key: Option<&PassphraseKey>,
) -> Option<StackOutputsRead> {
    let mut read = StackOutputsRead::default();
    for (name, value) in outputs {
        let (plain, secret) = plain_value(value, key)?;
        if secret {
            read.secret.push(name.clone());
        }
        read.values.insert(name.clone(), plain);
    }
    Some(read)
}

/// The value in clear, and whether a secret was in it.
fn plain_value(value: &serde_json::Value, key: Option<&PassphraseKey>) -> Option<(serde_json::Value, bool)> {
    use serde_json::Value;
    match value {
        Value::Object(map) if map.get(SECRET_KEY).and_then(Value::as_str) == Some(SECRET_SIG) => {
            let text = match map.get("plaintext").and_then(Value::as_str) {
                Some(text) => text.to_string(),
                None => key?.decrypt(map.get("ciphertext").and_then(Value::as_str)?).ok()?,
            };
            Some((serde_json::from_str(&text).unwrap_or(Value::String(text)), true))
        }
        Value::Object(map) => {
            let mut secret = false;
            let mut plain = serde_json::Map::new();
            for (name, item) in map {
                let (item, inner) = plain_value(item, key)?;
                secret |= inner;
                plain.insert(name.clone(), item);
            }
            Some((Value::Object(plain), secret))
        }
        Value::Array(items) => {
            let mut secret = false;
            let mut plain = Vec::with_capacity(items.len());
            for item in items {
                let (item, inner) = plain_value(item, key)?;
                secret |= inner;
                plain.push(item);
            }
            Some((Value::Array(plain), secret))
        }
        other => Some((other.clone(), false)),
    }
}

#[cfg(test)]
#[path = "checkpoint_tests.rs"]
mod tests;
