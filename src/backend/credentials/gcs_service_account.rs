//! A Google service-account key (the JSON file `gcloud iam service-accounts keys create`
//! writes) turned into an access token: an RS256-signed JWT exchanged at the key's `token_uri`,
//! as Google's clients do.

use base64::Engine as _;
use ring::signature::{RsaKeyPair, RSA_PKCS1_SHA256};
use serde::Deserialize;

use super::oauth_token::exchange_for_token;
use super::token_cache::AccessToken;
use crate::backend::store::object_store_error::ObjectStoreError;
use crate::backend::store::object_store_response::uri_encode;

/// Reading and deleting lock objects needs no more.
const SCOPE: &str = "https://www.googleapis.com/auth/devstorage.read_write";

/// No `Debug`: it holds the private key.
#[derive(Clone, Deserialize)]
pub(crate) struct GcsServiceAccount {
    client_email: String,
    private_key: String,
    #[serde(default = "super::gcs_credentials::google_token_uri")]
    token_uri: String,
}

impl GcsServiceAccount {
    /// The signed assertion for `now` (seconds since the epoch), valid for an hour.
    pub(crate) fn assertion(&self, now: i64) -> Result<String, ObjectStoreError> {
        let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let header = engine.encode(br#"{"alg":"RS256","typ":"JWT"}"#);
        let claims = serde_json::json!({
            "iss": self.client_email, "scope": SCOPE, "aud": self.token_uri, "iat": now, "exp": now + 3600,
        });
        let claims = engine.encode(claims.to_string());
        let signing_input = format!("{header}.{claims}");
        let invalid = || {
            ObjectStoreError::InvalidCredentials(
                "the service-account key's `private_key` is not a PKCS #8 RSA key".into(),
            )
        };
        let der: String = self.private_key.lines().filter(|line| !line.starts_with("-----")).collect();
        let der = base64::engine::general_purpose::STANDARD.decode(der.trim()).map_err(|_| invalid())?;
        let pair = RsaKeyPair::from_pkcs8(&der).map_err(|_| invalid())?;
        let mut signature = vec![0; pair.public().modulus_len()];
        pair.sign(&RSA_PKCS1_SHA256, &ring::rand::SystemRandom::new(), signing_input.as_bytes(), &mut signature)
            .map_err(|_| invalid())?;
        Ok(format!("{signing_input}.{}", engine.encode(signature)))
    }

    /// Exchanges the assertion at `token_uri` for a bearer token.
    pub(crate) fn access_token(&self) -> Result<AccessToken, ObjectStoreError> {
        let assertion = self.assertion(time::OffsetDateTime::now_utc().unix_timestamp())?;
        let grant = uri_encode("urn:ietf:params:oauth:grant-type:jwt-bearer", false);
        exchange_for_token(&self.token_uri, format!("grant_type={grant}&assertion={assertion}"))
    }
}

#[cfg(test)]
#[path = "gcs_service_account_tests.rs"]
pub(crate) mod tests;
