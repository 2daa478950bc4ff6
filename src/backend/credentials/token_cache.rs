//! Access tokens this process already got, kept by whose they are: a run reads the locks of
//! every project, and signing in again for each would cost a token request (or an `az` process)
//! per project. Only successes are kept, for half their lifetime and never more than ten minutes.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::backend::store::object_store_error::ObjectStoreError;

/// A token and how long its issuer said it lives, when it said.
pub(crate) struct AccessToken {
    pub value: String,
    pub expires_in: Option<Duration>,
}

const LONGEST_KEPT: Duration = Duration::from_secs(600);
/// A token whose lifetime is unknown is reused only within this.
const UNKNOWN_LIFETIME_KEPT: Duration = Duration::from_secs(60);

static TOKENS: Mutex<BTreeMap<u64, (String, Instant)>> = Mutex::new(BTreeMap::new());

/// The kept token of `owner` (every value that makes the credentials what they are: a key file's
/// whole content, a client id with its secret), else a fresh one from `fetch`, kept.
pub(crate) fn cached_token(
    owner: &[&str],
    fetch: impl FnOnce() -> Result<AccessToken, ObjectStoreError>,
) -> Result<String, ObjectStoreError> {
    // Hashed: the map holds no secret in the clear.
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    owner.hash(&mut hasher);
    let key = hasher.finish();
    let now = Instant::now();
    if let Some((token, until)) = TOKENS.lock().ok().and_then(|tokens| tokens.get(&key).cloned()) {
        if now < until {
            return Ok(token);
        }
    }
    let fresh = fetch()?;
    let kept = fresh.expires_in.map_or(UNKNOWN_LIFETIME_KEPT, |lifetime| (lifetime / 2).min(LONGEST_KEPT));
    if let Ok(mut tokens) = TOKENS.lock() {
        tokens.insert(key, (fresh.value.clone(), now + kept));
    }
    Ok(fresh.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same owner gets the kept token without a second fetch; another owner fetches its own;
    /// a failure is not kept, so the next call fetches again.
    #[test]
    fn a_token_is_fetched_once_per_owner_and_failures_are_not_kept() {
        let fetches = std::cell::Cell::new(0);
        let fetch = |value: &str| {
            fetches.set(fetches.get() + 1);
            Ok(AccessToken { value: value.to_string(), expires_in: Some(Duration::from_secs(3600)) })
        };
        let owner = ["token-cache-test", "client-a"];
        assert_eq!(cached_token(&owner, || fetch("first")).unwrap(), "first");
        assert_eq!(cached_token(&owner, || fetch("second")).unwrap(), "first");
        assert_eq!(fetches.get(), 1);
        assert_eq!(cached_token(&["token-cache-test", "client-b"], || fetch("other")).unwrap(), "other");
        assert_eq!(fetches.get(), 2);

        let failing = ["token-cache-test", "client-c"];
        let refused = cached_token(&failing, || Err(ObjectStoreError::MissingCredentials("no".into())));
        assert!(refused.is_err());
        assert_eq!(cached_token(&failing, || fetch("later")).unwrap(), "later");
    }

    /// A token that lives a few seconds is kept half of that, so it is never used near its end.
    #[test]
    fn a_short_lived_token_is_fetched_again_after_half_its_life() {
        let owner = ["token-cache-test", "short-lived"];
        let short = || Ok(AccessToken { value: "short".into(), expires_in: Some(Duration::from_millis(40)) });
        assert_eq!(cached_token(&owner, short).unwrap(), "short");
        std::thread::sleep(Duration::from_millis(30));
        let again = || Ok(AccessToken { value: "renewed".into(), expires_in: None });
        assert_eq!(cached_token(&owner, again).unwrap(), "renewed");
    }
}
