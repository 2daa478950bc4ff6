//! The OAuth 2.0 token request every signed-in store shares: a form posted to a token endpoint
//! (Google's, Microsoft Entra ID's), answered with an `access_token` or an error code.

use super::token_cache::AccessToken;
use crate::backend::store::object_store_error::ObjectStoreError;
use crate::backend::store::object_store_response::send_request;

/// Posts the form to `token_uri` and reads the `access_token` (and `expires_in`) of its answer;
/// an OAuth error code (`invalid_grant`) is named, never the form.
pub(crate) fn exchange_for_token(token_uri: &str, form: String) -> Result<AccessToken, ObjectStoreError> {
    let headers = [("content-type".to_string(), "application/x-www-form-urlencoded".to_string())];
    let answer =
        send_request(reqwest::Method::POST, token_uri, &headers, form.into_bytes())?.into_body(token_uri, |body| {
            serde_json::from_slice::<serde_json::Value>(body)
                .ok()
                .and_then(|answer| answer["error"].as_str().map(str::to_string))
                .unwrap_or_default()
        })?;
    let answer = serde_json::from_slice::<serde_json::Value>(&answer).unwrap_or_default();
    // Entra ID's v1 endpoints write the lifetime as a string.
    let expires_in = answer["expires_in"]
        .as_u64()
        .or_else(|| answer["expires_in"].as_str().and_then(|text| text.parse().ok()))
        .map(std::time::Duration::from_secs);
    answer["access_token"].as_str().map(|value| AccessToken { value: value.to_string(), expires_in }).ok_or_else(|| {
        ObjectStoreError::Status {
            url: token_uri.to_string(),
            status: reqwest::StatusCode::OK,
            code: "without an `access_token`".into(),
        }
    })
}
