//! The few Azure Blob requests that read and remove Pulumi's lock objects on an `azblob://`
//! backend: List Blobs by prefix, Get Blob and Delete Blob, signed with the account's Shared Key,
//! carrying a SAS token, or a Microsoft Entra ID token. The service URL and the credentials are found the way Pulumi's
//! driver (gocloud.dev/blob/azureblob) finds them, so the runner reads the container Pulumi wrote.

use std::collections::BTreeMap;

use base64::Engine as _;
use ring::hmac;

use super::object_store::ObjectStore;
use super::object_store_error::ObjectStoreError;
use super::object_store_response::{percent_decode, send_request, uri_encode, xml_values};
use crate::backend::credentials::azure_identity::AzureIdentity;
use crate::backend::RunEnvironment;

/// A version every Azure Storage endpoint and Azurite serve, with Shared Key as documented.
const API_VERSION: &str = "2021-12-02";

/// Where the container is and how to authenticate to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AzureBlobClient {
    /// `http(s)://host[/account]/container`, without a query.
    container_url: String,
    /// The SAS token appended to every request, without its `?`.
    sas_token: Option<String>,
    /// The account name and decoded key that sign a request (Shared Key).
    shared_key: Option<(String, Vec<u8>)>,
    /// A Microsoft Entra ID token (`AzureIdentity`), when no key or SAS token is given.
    bearer_token: Option<String>,
    /// The backend's folder inside the container, empty or ending in `/`.
    prefix: String,
}

impl AzureBlobClient {
    /// `None` when `url` is not an `azblob://` URL; `Err` when the runner cannot authenticate.
    /// The order is gocloud's: `AZURE_STORAGE_ACCOUNT` with `AZURE_STORAGE_KEY`, then
    /// `AZURE_STORAGE_SAS_TOKEN`, then `AZURE_STORAGE_CONNECTION_STRING`, then the sign-in of
    /// `DefaultAzureCredential` (`AzureIdentity`).
    pub(crate) fn from_url(url: &str, environment: &dyn RunEnvironment) -> Option<Result<Self, ObjectStoreError>> {
        let rest = url.strip_prefix("azblob://")?;
        let (location, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (container, prefix) = location.split_once('/').unwrap_or((location, ""));
        let prefix = prefix.trim_matches('/');
        let prefix = if prefix.is_empty() { String::new() } else { format!("{prefix}/") };
        Some(Self::resolve(container, query, environment).map(|client| Self { prefix, ..client }))
    }

    /// The container at `container_url`, no credential yet and no prefix.
    fn at(container_url: String) -> Self {
        Self { container_url, sas_token: None, shared_key: None, bearer_token: None, prefix: String::new() }
    }

    fn resolve(container: &str, query: &str, environment: &dyn RunEnvironment) -> Result<Self, ObjectStoreError> {
        let variable = |name: &str| environment.get(name).filter(|value| !value.is_empty()).map(str::to_string);
        let connection: BTreeMap<String, String> = variable("AZURE_STORAGE_CONNECTION_STRING")
            .or_else(|| variable("AZURE_STORAGEBLOB_CONNECTIONSTRING"))
            .map(|text| {
                text.split(';')
                    .filter_map(|part| part.split_once('='))
                    .map(|(key, value)| (key.trim().to_string(), value.trim().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let setting = |key: &str| connection.get(key).filter(|value| !value.is_empty()).cloned();
        let flag = |value: Option<String>| {
            value.is_some_and(|value| matches!(value.as_str(), "1" | "t" | "T" | "true" | "TRUE" | "True"))
        };
        let mut account = variable("AZURE_STORAGE_ACCOUNT").or_else(|| setting("AccountName"));
        let mut protocol = variable("AZURE_STORAGE_PROTOCOL").or_else(|| setting("DefaultEndpointsProtocol"));
        let mut domain = variable("AZURE_STORAGE_DOMAIN");
        let mut local_emulator = flag(variable("AZURE_STORAGE_IS_LOCAL_EMULATOR"));
        let mut cdn = flag(variable("AZURE_STORAGE_IS_CDN"));
        for (name, value) in query.split('&').filter_map(|pair| pair.split_once('=')) {
            let value = percent_decode(value);
            match name {
                "domain" => domain = Some(value),
                "protocol" => protocol = Some(value),
                "cdn" => cdn = flag(Some(value)),
                "localemu" => local_emulator = flag(Some(value)),
                "storage_account" => account = Some(value),
                _ => {}
            }
        }
        let decode = |key: &str, name: &str| {
            base64::engine::general_purpose::STANDARD
                .decode(key.trim())
                .map_err(|_| ObjectStoreError::InvalidCredentials(format!("`{name}` is not a base64 account key")))
        };
        let service_url = || {
            let Some(account) = &account else {
                return Err(ObjectStoreError::MissingCredentials(
                    "`AZURE_STORAGE_ACCOUNT` is not set (nor `storage_account` in the backend URL): the runner cannot read the locks"
                        .into(),
                ));
            };
            let protocol = protocol.clone().unwrap_or_else(|| "https".into());
            let domain = domain.clone().unwrap_or_else(|| "blob.core.windows.net".into());
            Ok(if domain.starts_with("127.0.0.1") || domain.starts_with("localhost") || local_emulator {
                format!("{protocol}://{domain}/{account}")
            } else if cdn {
                format!("{protocol}://{domain}")
            } else {
                format!("{protocol}://{account}.{domain}")
            })
        };
        let container = uri_encode(container, false);
        if let (Some(signer), Some(key)) = (variable("AZURE_STORAGE_ACCOUNT"), variable("AZURE_STORAGE_KEY")) {
            let key = decode(&key, "AZURE_STORAGE_KEY")?;
            let shared_key = Some((signer, key));
            return Ok(Self { shared_key, ..Self::at(format!("{}/{container}", service_url()?)) });
        }
        if let Some(token) = variable("AZURE_STORAGE_SAS_TOKEN") {
            let token = token.trim_start_matches('?').to_string();
            return Ok(Self { sas_token: Some(token), ..Self::at(format!("{}/{container}", service_url()?)) });
        }
        if !connection.is_empty() {
            // As the Azure SDK reads a connection string: its own endpoint, not the URL's.
            let account = setting("AccountName");
            let endpoint = match (setting("BlobEndpoint"), &account) {
                (Some(endpoint), _) => endpoint.trim_end_matches('/').to_string(),
                (None, Some(account)) => format!(
                    "{}://{account}.blob.{}",
                    setting("DefaultEndpointsProtocol").unwrap_or_else(|| "https".into()),
                    setting("EndpointSuffix").unwrap_or_else(|| "core.windows.net".into())
                ),
                (None, None) => {
                    return Err(ObjectStoreError::InvalidCredentials(
                        "`AZURE_STORAGE_CONNECTION_STRING` names neither `BlobEndpoint` nor `AccountName`".into(),
                    ))
                }
            };
            let url = format!("{endpoint}/{container}");
            return match (account, setting("AccountKey"), setting("SharedAccessSignature")) {
                (Some(account), Some(key), _) => {
                    let shared_key = Some((account, decode(&key, "AZURE_STORAGE_CONNECTION_STRING")?));
                    Ok(Self { shared_key, ..Self::at(url) })
                }
                (_, _, Some(token)) => {
                    Ok(Self { sas_token: Some(token.trim_start_matches('?').to_string()), ..Self::at(url) })
                }
                _ => Err(ObjectStoreError::InvalidCredentials(
                    "`AZURE_STORAGE_CONNECTION_STRING` has neither `AccountName` with `AccountKey` nor `SharedAccessSignature`"
                        .into(),
                )),
            };
        }
        // Pulumi's driver then signs in with Microsoft Entra ID, and so does the runner.
        if let Some(identity) = AzureIdentity::from_environment(environment) {
            let url = format!("{}/{container}", service_url()?);
            let bearer_token = Some(identity.access_token(environment)?);
            return Ok(Self { bearer_token, ..Self::at(url) });
        }
        Err(ObjectStoreError::MissingCredentials(
            "none of `AZURE_STORAGE_KEY` (with `AZURE_STORAGE_ACCOUNT`), `AZURE_STORAGE_SAS_TOKEN`, `AZURE_STORAGE_CONNECTION_STRING`, a service principal (`AZURE_TENANT_ID`, `AZURE_CLIENT_ID` with `AZURE_CLIENT_SECRET` or `AZURE_FEDERATED_TOKEN_FILE`) or the Azure CLI (`az login`) is there: it cannot read the locks"
                .into(),
        ))
    }

    /// One request: `path` below the container (empty for the container itself), `query` in
    /// the clear (the SAS token is added here).
    fn send(&self, method: reqwest::Method, path: &str, query: &[(&str, String)]) -> Result<Vec<u8>, ObjectStoreError> {
        let resource = if path.is_empty() {
            self.container_url.clone()
        } else {
            format!("{}/{}", self.container_url, uri_encode(path, true))
        };
        let mut parts: Vec<String> =
            query.iter().map(|(name, value)| format!("{name}={}", uri_encode(value, false))).collect();
        parts.extend(self.sas_token.clone());
        let url = if parts.is_empty() { resource.clone() } else { format!("{resource}?{}", parts.join("&")) };
        let date = time::OffsetDateTime::now_utc()
            .format(&time::macros::format_description!(
                "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
            ))
            .unwrap_or_default();
        let mut headers = vec![("x-ms-date".to_string(), date), ("x-ms-version".to_string(), API_VERSION.to_string())];
        if let Some((account, key)) = &self.shared_key {
            let signature = shared_key_signature(method.as_str(), &resource, query, &headers, account, key);
            headers.push(("authorization".to_string(), format!("SharedKey {account}:{signature}")));
        }
        if let Some(token) = &self.bearer_token {
            headers.push(("authorization".to_string(), format!("Bearer {token}")));
        }
        send_request(method, &url, &headers, Vec::new())?.into_body(&url, |body| {
            xml_values(&String::from_utf8_lossy(body), "Code").into_iter().next().unwrap_or_default()
        })
    }
}

/// The Shared Key signature of a request without a body: the string to sign is the verb, eleven
/// empty standard headers, the `x-ms-` headers, then `/account/path` with the query sorted.
fn shared_key_signature(
    method: &str,
    resource: &str,
    query: &[(&str, String)],
    headers: &[(String, String)],
    account: &str,
    key: &[u8],
) -> String {
    let path = resource.split_once("://").map_or("", |(_, rest)| rest.find('/').map_or("", |slash| &rest[slash..]));
    let mut ms_headers: Vec<_> = headers.iter().filter(|(name, _)| name.starts_with("x-ms-")).collect();
    ms_headers.sort();
    let canonical_headers: String = ms_headers.iter().map(|(name, value)| format!("{name}:{value}\n")).collect();
    let mut sorted: Vec<_> = query.iter().map(|(name, value)| (name.to_ascii_lowercase(), value.clone())).collect();
    sorted.sort();
    let canonical_query: String = sorted.iter().map(|(name, value)| format!("\n{name}:{value}")).collect();
    let to_sign = format!("{method}\n{}{canonical_headers}/{account}{path}{canonical_query}", "\n".repeat(11));
    let tag = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, key), to_sign.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(tag.as_ref())
}

impl ObjectStore for AzureBlobClient {
    fn prefix(&self) -> &str {
        &self.prefix
    }

    /// List Blobs, page after page (`NextMarker`).
    fn list(&self, prefix: &str) -> Result<Vec<String>, ObjectStoreError> {
        super::object_store::every_page(|marker| {
            let mut query = vec![
                ("comp", "list".to_string()),
                ("prefix", prefix.to_string()),
                ("restype", "container".to_string()),
            ];
            if let Some(marker) = marker {
                query.push(("marker", marker.to_string()));
            }
            let body = self.send(reqwest::Method::GET, "", &query)?;
            let body = String::from_utf8_lossy(&body);
            let next = xml_values(&body, "NextMarker").into_iter().next().filter(|marker| !marker.is_empty());
            Ok((xml_values(&body, "Name"), next))
        })
    }

    fn get(&self, key: &str) -> Result<Vec<u8>, ObjectStoreError> {
        self.send(reqwest::Method::GET, key, &[])
    }

    fn delete(&self, key: &str) -> Result<(), ObjectStoreError> {
        self.send(reqwest::Method::DELETE, key, &[]).map(|_| ())
    }
}

#[cfg(test)]
#[path = "azure_blob_client_tests.rs"]
mod tests;
