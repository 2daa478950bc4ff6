//! The Google credentials files Pulumi's `gs://` driver accepts, as Google's clients read them:
//! a service-account key, or the `authorized_user` file `gcloud auth application-default login`
//! writes. Either is exchanged at its token URI for the bearer token the lock requests carry.

use super::gcs_authorized_user::GcsAuthorizedUser;
use super::gcs_service_account::GcsServiceAccount;
use super::token_cache::cached_token;
use crate::backend::store::object_store_error::ObjectStoreError;

/// No `Debug`: both kinds hold a secret (a private key, a refresh token).
pub(crate) struct GcsCredentials {
    kind: GcsCredentialsKind,
    /// The variable or file they came from, for the errors.
    source: String,
    /// The JSON as read: whose token a kept one is.
    json: Vec<u8>,
}

enum GcsCredentialsKind {
    ServiceAccount(GcsServiceAccount),
    AuthorizedUser(GcsAuthorizedUser),
}

impl GcsCredentials {
    /// Told apart by `type`, as Google's clients do; a key without one is read as a service
    /// account. `source` names where the JSON came from; no value of it is ever in an error.
    pub(crate) fn parse(json: &[u8], source: &str) -> Result<Self, ObjectStoreError> {
        let kind = serde_json::from_slice::<serde_json::Value>(json)
            .ok()
            .and_then(|value| value.get("type").and_then(|kind| kind.as_str()).map(str::to_string));
        let parsed = match kind.as_deref() {
            Some("authorized_user") => serde_json::from_slice(json).ok().map(GcsCredentialsKind::AuthorizedUser),
            Some("service_account") | None => serde_json::from_slice(json).ok().map(GcsCredentialsKind::ServiceAccount),
            Some(other) => {
                let named = if other.len() <= 40 && other.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                    format!("`{other}`")
                } else {
                    "an unknown type".to_string()
                };
                return Err(ObjectStoreError::InvalidCredentials(format!(
                    "`{source}` holds credentials of {named}: the runner reads a service-account key and gcloud's `authorized_user` credentials"
                )));
            }
        };
        let kind = parsed.ok_or_else(|| {
            ObjectStoreError::InvalidCredentials(format!(
                "`{source}` is neither a service-account key (`client_email`, `private_key`) nor gcloud's `authorized_user` credentials (`client_id`, `client_secret`, `refresh_token`)"
            ))
        })?;
        Ok(Self { kind, source: source.to_string(), json: json.to_vec() })
    }

    /// A refusal by the token endpoint names these credentials and how to renew them; a token
    /// endpoint out of reach stays a request error (the network, not the credentials).
    pub(crate) fn access_token(&self) -> Result<String, ObjectStoreError> {
        let json = String::from_utf8_lossy(&self.json);
        let (token, hint) = match &self.kind {
            GcsCredentialsKind::ServiceAccount(account) => (
                cached_token(&["gcs", &json], || account.access_token()),
                "the key may have been deleted or disabled: make a new one with `gcloud iam service-accounts keys create`",
            ),
            GcsCredentialsKind::AuthorizedUser(user) => {
                let token = cached_token(&["gcs", &json], || user.access_token());
                (token, "sign in again with `gcloud auth application-default login`")
            }
        };
        token.map_err(|refusal| match refusal {
            ObjectStoreError::Status { .. } => ObjectStoreError::CredentialsRefused {
                credentials: format!("the credentials in `{}`", self.source),
                refusal: Box::new(refusal),
                hint,
            },
            other => other,
        })
    }
}

/// Where Google's clients exchange credentials that name no `token_uri`.
pub(crate) fn google_token_uri() -> String {
    "https://oauth2.googleapis.com/token".into()
}

#[cfg(test)]
#[path = "gcs_credentials_tests.rs"]
pub(crate) mod tests;
