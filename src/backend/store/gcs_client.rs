//! The few Google Cloud Storage JSON API requests that read and remove Pulumi's lock objects on
//! a `gs://` backend: list by prefix, get (`alt=media`) and delete. Credentials are read in
//! Pulumi's order (`GOOGLE_CREDENTIALS`, `GOOGLE_OAUTH_ACCESS_TOKEN`,
//! `GOOGLE_APPLICATION_CREDENTIALS`, then gcloud's application-default credentials); with `STORAGE_EMULATOR_HOST` requests go there unsigned,
//! as Google's clients (and so Pulumi) do.

use serde::Deserialize;

use super::object_store::ObjectStore;
use super::object_store_error::ObjectStoreError;
use super::object_store_response::{send_request, uri_encode};
use crate::backend::credentials::gcs_credentials::GcsCredentials;
use crate::backend::RunEnvironment;

/// Where the bucket's objects are and the token that reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GcsClient {
    /// `http(s)://host/storage/v1/b/BUCKET/o`.
    objects_url: String,
    /// The bearer token; `None` against an emulator.
    token: Option<String>,
    /// The backend's folder inside the bucket, empty or ending in `/`.
    prefix: String,
}

#[derive(Deserialize)]
struct ObjectList {
    #[serde(default)]
    items: Vec<ObjectName>,
    #[serde(default, rename = "nextPageToken")]
    next_page_token: Option<String>,
}

#[derive(Deserialize)]
struct ObjectName {
    name: String,
}

impl GcsClient {
    /// `None` when `url` is not a `gs://` URL; `Err` when no credential the runner reads is set.
    pub(crate) fn from_url(url: &str, environment: &dyn RunEnvironment) -> Option<Result<Self, ObjectStoreError>> {
        let rest = url.strip_prefix("gs://")?;
        let location = rest.split('?').next().unwrap_or(rest);
        let (bucket, prefix) = location.split_once('/').unwrap_or((location, ""));
        let prefix = prefix.trim_matches('/');
        let prefix = if prefix.is_empty() { String::new() } else { format!("{prefix}/") };
        let variable = |name: &str| environment.get(name).filter(|value| !value.is_empty());
        let (host, token) = match variable("STORAGE_EMULATOR_HOST") {
            Some(host) if host.contains("://") => (host.trim_end_matches('/').to_string(), Ok(None)),
            Some(host) => (format!("http://{}", host.trim_end_matches('/')), Ok(None)),
            None => ("https://storage.googleapis.com".to_string(), Self::token(environment).map(Some)),
        };
        Some(token.map(|token| Self {
            objects_url: format!("{host}/storage/v1/b/{}/o", uri_encode(bucket, false)),
            token,
            prefix,
        }))
    }

    fn token(environment: &dyn RunEnvironment) -> Result<String, ObjectStoreError> {
        let variable = |name: &str| environment.get(name).filter(|value| !value.is_empty());
        if let Some(json) = variable("GOOGLE_CREDENTIALS") {
            return GcsCredentials::parse(json.as_bytes(), "GOOGLE_CREDENTIALS")?.access_token();
        }
        if let Some(token) = variable("GOOGLE_OAUTH_ACCESS_TOKEN") {
            return Ok(token.to_string());
        }
        if let Some(file) = variable("GOOGLE_APPLICATION_CREDENTIALS") {
            let json = std::fs::read(file).map_err(|err| {
                ObjectStoreError::InvalidCredentials(format!("cannot read `GOOGLE_APPLICATION_CREDENTIALS`: {err}"))
            })?;
            return GcsCredentials::parse(&json, "GOOGLE_APPLICATION_CREDENTIALS")?.access_token();
        }
        if let Some(file) = application_default_credentials(environment) {
            let json = std::fs::read(&file).map_err(|err| {
                ObjectStoreError::InvalidCredentials(format!("cannot read `{}`: {err}", file.display()))
            })?;
            return GcsCredentials::parse(&json, &file.display().to_string())?.access_token();
        }
        Err(ObjectStoreError::MissingCredentials(
            "none of `GOOGLE_CREDENTIALS`, `GOOGLE_OAUTH_ACCESS_TOKEN`, `GOOGLE_APPLICATION_CREDENTIALS` or `STORAGE_EMULATOR_HOST` is set and gcloud has no application-default credentials (`gcloud auth application-default login`): it cannot read the locks"
                .into(),
        ))
    }

    fn send(&self, method: reqwest::Method, url: &str) -> Result<Vec<u8>, ObjectStoreError> {
        let headers: Vec<(String, String)> =
            self.token.iter().map(|token| ("authorization".to_string(), format!("Bearer {token}"))).collect();
        send_request(method, url, &headers, Vec::new())?.into_body(url, |body| {
            serde_json::from_slice::<serde_json::Value>(body)
                .ok()
                .and_then(|answer| answer["error"]["message"].as_str().map(str::to_string))
                .unwrap_or_default()
        })
    }

    fn object_url(&self, key: &str) -> String {
        format!("{}/{}", self.objects_url, uri_encode(key, false))
    }
}

/// The file `gcloud auth application-default login` writes, where Google's clients look for it
/// after `GOOGLE_APPLICATION_CREDENTIALS`: under `CLOUDSDK_CONFIG`, else `~/.config/gcloud`. Read
/// from the environment the run gives `pulumi`, so both find the same file.
fn application_default_credentials(environment: &dyn RunEnvironment) -> Option<std::path::PathBuf> {
    let folder = match environment.get("CLOUDSDK_CONFIG") {
        Some(config) => std::path::PathBuf::from(config),
        None => std::path::Path::new(environment.get("HOME")?).join(".config/gcloud"),
    };
    Some(folder.join("application_default_credentials.json")).filter(|file| file.is_file())
}

impl ObjectStore for GcsClient {
    fn prefix(&self) -> &str {
        &self.prefix
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, ObjectStoreError> {
        super::object_store::every_page(|page| {
            let mut url = format!("{}?prefix={}", self.objects_url, uri_encode(prefix, false));
            if let Some(page) = page {
                url.push_str(&format!("&pageToken={}", uri_encode(page, false)));
            }
            let body = self.send(reqwest::Method::GET, &url)?;
            let list: ObjectList = serde_json::from_slice(&body).map_err(|err| ObjectStoreError::Status {
                url: self.objects_url.clone(),
                status: reqwest::StatusCode::OK,
                code: format!("with a list that is not JSON ({err})"),
            })?;
            let next = list.next_page_token.filter(|token| !token.is_empty());
            Ok((list.items.into_iter().map(|item| item.name).collect(), next))
        })
    }

    fn get(&self, key: &str) -> Result<Vec<u8>, ObjectStoreError> {
        self.send(reqwest::Method::GET, &format!("{}?alt=media", self.object_url(key)))
    }

    fn delete(&self, key: &str) -> Result<(), ObjectStoreError> {
        self.send(reqwest::Method::DELETE, &self.object_url(key)).map(|_| ())
    }
}

#[cfg(test)]
#[path = "gcs_client_tests.rs"]
mod tests;
