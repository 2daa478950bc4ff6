//! The object store behind a DIY backend (`s3://`, `azblob://`, `gs://`), as far as Pulumi's
//! locks need it: list by prefix, get and delete. `PulumiLocks` reads every store through this
//! one interface, so a lock is read and judged the same way wherever it is kept.

use super::azure_blob_client::AzureBlobClient;
use super::gcs_client::GcsClient;
use super::object_store_error::ObjectStoreError;
use super::s3_client::S3Client;
use crate::backend::RunEnvironment;

pub(crate) trait ObjectStore: Send + Sync {
    /// The backend's folder inside its bucket or container, empty or ending in `/`.
    fn prefix(&self) -> &str;
    /// Every key under `prefix`, page after page.
    fn list(&self, prefix: &str) -> Result<Vec<String>, ObjectStoreError>;
    fn get(&self, key: &str) -> Result<Vec<u8>, ObjectStoreError>;
    fn delete(&self, key: &str) -> Result<(), ObjectStoreError>;
}

/// Every name a paged listing returns: `page(token)` fetches one page (the first with `None`)
/// and returns its names and the next page's token, `None` after the last.
pub(super) fn every_page(
    mut page: impl FnMut(Option<&str>) -> Result<(Vec<String>, Option<String>), ObjectStoreError>,
) -> Result<Vec<String>, ObjectStoreError> {
    let mut names = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let (found, next) = page(token.as_deref())?;
        names.extend(found);
        match next {
            Some(next) => token = Some(next),
            None => return Ok(names),
        }
    }
}

/// The client for a backend URL, with the credentials the runner gives its children: `None`
/// when the URL is not an object store's; `Err` when the runner cannot sign for it.
pub(crate) fn open_object_store(
    url: &str,
    environment: &dyn RunEnvironment,
) -> Option<Result<Box<dyn ObjectStore>, ObjectStoreError>> {
    fn boxed<T: ObjectStore + 'static>(
        client: Option<Result<T, ObjectStoreError>>,
    ) -> Option<Result<Box<dyn ObjectStore>, ObjectStoreError>> {
        client.map(|client| client.map(|client| Box::new(client) as Box<dyn ObjectStore>))
    }
    boxed(S3Client::from_url(url, environment))
        .or_else(|| boxed(AzureBlobClient::from_url(url, environment)))
        .or_else(|| boxed(GcsClient::from_url(url, environment)))
}

/// Every variable the clients read a credential from: each must be secret to `SecretRule`,
/// or a key would be printed unmasked.
#[cfg(test)]
pub(crate) const CREDENTIAL_VARIABLES: &[&str] = &[
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AZURE_STORAGE_KEY",
    "AZURE_STORAGE_SAS_TOKEN",
    "AZURE_STORAGE_CONNECTION_STRING",
    "AZURE_STORAGEBLOB_CONNECTIONSTRING",
    "GOOGLE_OAUTH_ACCESS_TOKEN",
    "GOOGLE_CREDENTIALS",
];

#[cfg(test)]
#[path = "object_store_tests.rs"]
pub(crate) mod tests;
