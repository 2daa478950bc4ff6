//! The `authorized_user` credentials `gcloud auth application-default login` writes: a person's
//! refresh token, exchanged at Google's token endpoint for an access token, as Google's clients
//! (and so Pulumi's `gs://` driver) do.

use serde::Deserialize;

use super::oauth_token::exchange_for_token;
use super::token_cache::AccessToken;
use crate::backend::store::object_store_error::ObjectStoreError;
use crate::backend::store::object_store_response::uri_encode;

/// No `Debug`: it holds the client secret and the refresh token.
#[derive(Clone, Deserialize)]
pub(crate) struct GcsAuthorizedUser {
    client_id: String,
    client_secret: String,
    refresh_token: String,
    /// gcloud writes none; Google's clients then use the public endpoint.
    #[serde(default = "super::gcs_credentials::google_token_uri")]
    pub(super) token_uri: String,
}

impl GcsAuthorizedUser {
    /// The refresh-token grant of OAuth 2.0 (RFC 6749, section 6).
    pub(crate) fn token_request(&self) -> String {
        format!(
            "grant_type=refresh_token&client_id={}&client_secret={}&refresh_token={}",
            uri_encode(&self.client_id, false),
            uri_encode(&self.client_secret, false),
            uri_encode(&self.refresh_token, false)
        )
    }

    pub(crate) fn access_token(&self) -> Result<AccessToken, ObjectStoreError> {
        exchange_for_token(&self.token_uri, self.token_request())
    }
}
