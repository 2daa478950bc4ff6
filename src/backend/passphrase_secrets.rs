//! The `secure:` values of a stack file, decrypted the way Pulumi's passphrase secrets provider
//! encrypts them, so that configuration secrets stored by hand are masked like the rest. Read
//! only: values go in through `pulumi config set --secret`, never through the runner's own crypto.
//!
//! Pulumi's format: `encryptionsalt: v1:<salt>:v1:<nonce>:<ciphertext>`, where the second half
//! encrypts `pulumi` to check the passphrase; the key is PBKDF2-HMAC-SHA256 of the passphrase
//! and salt, 1,000,000 rounds, 32 bytes; every `secure: v1:<nonce>:<ciphertext>` is AES-256-GCM.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, OnceLock};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM};
use serde_norway::Value;

/// Why the `secure:` values of a stack file cannot be opened.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PassphraseError {
    #[error("not valid YAML")]
    Yaml(#[source] serde_norway::Error),
    #[error("no `encryptionsalt` for its `secure:` values")]
    NoSalt,
    #[error("`encryptionsalt` is not Pulumi's `v1:` passphrase salt")]
    NotASalt,
    /// `what` is `` `encryptionsalt` ``, `a nonce` or `a ciphertext`.
    #[error("{what} is not base64")]
    NotBase64 { what: &'static str, source: base64::DecodeError },
    #[error("cannot make a key")]
    Key,
    #[error("the passphrase does not open this stack file")]
    WrongPassphrase,
    #[error("a `secure:` value is not Pulumi's `v1:` ciphertext")]
    NotCiphertext,
    #[error("a nonce is not 12 bytes")]
    NonceLength,
    #[error("a `secure:` value does not open")]
    DoesNotOpen,
}

fn not_base64(what: &'static str) -> impl FnOnce(base64::DecodeError) -> PassphraseError {
    move |source| PassphraseError::NotBase64 { what, source }
}

const ROUNDS: u32 = 1_000_000;
const CHECK_PLAINTEXT: &[u8] = b"pulumi";

/// Every `secure:` value of the stack file `text`, decrypted with `passphrase`, at any depth.
/// A file with no `secure:` value costs no key derivation.
pub(crate) fn decrypt_secure_values(text: &str, passphrase: &str) -> Result<Vec<String>, PassphraseError> {
    let document: Value = serde_norway::from_str(text).map_err(PassphraseError::Yaml)?;
    let mut sealed = Vec::new();
    if let Some(config) = document.get("config") {
        collect_secure(config, &mut sealed);
    }
    if sealed.is_empty() {
        return Ok(Vec::new());
    }
    let salt = document.get("encryptionsalt").and_then(Value::as_str).ok_or(PassphraseError::NoSalt)?;
    let key = PassphraseKey::open(salt, passphrase)?;
    sealed.iter().map(|ciphertext| key.decrypt(ciphertext)).collect()
}

/// The key a passphrase and a stack's `v1:` salt make, checked against the salt's sealed
/// `pulumi`. Deriving it costs a million PBKDF2 rounds, so each pair is derived once per process.
#[derive(Clone)]
pub(crate) struct PassphraseKey(Arc<LessSafeKey>);

impl PassphraseKey {
    /// `salt` is `v1:<salt>:v1:<nonce>:<ciphertext>`, as `encryptionsalt` and a checkpoint's
    /// passphrase secrets provider keep it.
    pub(crate) fn open(salt: &str, passphrase: &str) -> Result<Self, PassphraseError> {
        type Cache = Mutex<HashMap<(String, Vec<u8>), PassphraseKey>>;
        static KEYS: OnceLock<Cache> = OnceLock::new();
        let passphrase_digest = ring::digest::digest(&ring::digest::SHA256, passphrase.as_bytes()).as_ref().to_vec();
        let cache_key = (salt.to_string(), passphrase_digest);
        // Held while deriving: a second caller (the config secrets' thread and the passphrase
        // check start at once) waits for this derivation instead of making its own.
        let mut keys = KEYS.get_or_init(Cache::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(key) = keys.get(&cache_key) {
            return Ok(key.clone());
        }
        let key = Self::derive(salt, passphrase)?;
        keys.insert(cache_key, key.clone());
        Ok(key)
    }

    fn derive(salt: &str, passphrase: &str) -> Result<Self, PassphraseError> {
        let (salt, check) =
            salt.strip_prefix("v1:").and_then(|rest| rest.split_once(':')).ok_or(PassphraseError::NotASalt)?;
        let salt = STANDARD.decode(salt).map_err(not_base64("`encryptionsalt`"))?;
        let mut key = [0u8; 32];
        ring::pbkdf2::derive(
            ring::pbkdf2::PBKDF2_HMAC_SHA256,
            NonZeroU32::new(ROUNDS).expect("non-zero"),
            &salt,
            passphrase.as_bytes(),
            &mut key,
        );
        let key = LessSafeKey::new(UnboundKey::new(&AES_256_GCM, &key).map_err(|_| PassphraseError::Key)?);
        if open(&key, check).ok().as_deref() != Some(CHECK_PLAINTEXT) {
            return Err(PassphraseError::WrongPassphrase);
        }
        Ok(Self(Arc::new(key)))
    }

    /// One `v1:<nonce>:<ciphertext>` value, in clear.
    pub(crate) fn decrypt(&self, ciphertext: &str) -> Result<String, PassphraseError> {
        open(&self.0, ciphertext).map(|plain| String::from_utf8_lossy(&plain).into_owned())
    }
}

fn collect_secure(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Mapping(map) => {
            if let (1, Some(Value::String(ciphertext))) = (map.len(), map.get("secure")) {
                out.push(ciphertext.clone());
                return;
            }
            map.values().for_each(|item| collect_secure(item, out));
        }
        Value::Sequence(items) => items.iter().for_each(|item| collect_secure(item, out)),
        _ => {}
    }
}

fn open(key: &LessSafeKey, ciphertext: &str) -> Result<Vec<u8>, PassphraseError> {
    let (nonce, sealed) =
        ciphertext.strip_prefix("v1:").and_then(|rest| rest.split_once(':')).ok_or(PassphraseError::NotCiphertext)?;
    let nonce = STANDARD.decode(nonce).map_err(not_base64("a nonce"))?;
    let nonce = Nonce::try_assume_unique_for_key(&nonce).map_err(|_| PassphraseError::NonceLength)?;
    let mut sealed = STANDARD.decode(sealed).map_err(not_base64("a ciphertext"))?;
    let plain = key.open_in_place(nonce, Aad::empty(), &mut sealed).map_err(|_| PassphraseError::DoesNotOpen)?;
    Ok(plain.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written by the real `pulumi config set --secret k` (v3.259.0) with passphrase `pw`.
    const STACK_FILE: &str = "encryptionsalt: v1:vX76qIDhlhw=:v1:3Q8rc+XmVFpzYrj6:hVXZuopwAZjzEkI5XpdTkldruXSjnQ==\nconfig:\n  p:plain: visible\n  p:k:\n    secure: v1:o+iQGYUsB4FSekU0:1bC9V2nHzGUi7KR5GvgphkzMRbNoZew=\n";

    #[test]
    fn opens_what_the_real_pulumi_sealed() {
        assert_eq!(decrypt_secure_values(STACK_FILE, "pw").unwrap(), vec!["hunter2".to_string()]);
    }

    #[test]
    fn a_wrong_passphrase_is_said_not_guessed() {
        let err = decrypt_secure_values(STACK_FILE, "not-it").unwrap_err();
        assert!(matches!(err, PassphraseError::WrongPassphrase), "{err}");
    }

    #[test]
    fn a_file_without_secure_values_needs_no_passphrase() {
        assert!(decrypt_secure_values("config:\n  p:a: b\n", "").unwrap().is_empty());
    }
}
