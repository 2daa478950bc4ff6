//! `runner doctor` on an `azblob://` or `gs://` backend: the store is asked for one listing of
//! the backend's locks, with the credentials the runner gives `pulumi`, through the same client
//! the lock checks use. What the answer means is said in the words of the variables to fix.

use super::s3_backend_check::BackendFinding;
use crate::backend::{open_object_store, AzureIdentity, ObjectStoreError};
use crate::pulumi::ChildEnvironment;

/// What to fix when Azure refuses: the key or token given, else the sign-in the runner used,
/// which also needs a data role (a subscription's Owner cannot read blobs without one).
fn azure_credentials(environment: &ChildEnvironment) -> String {
    let keyed = ["AZURE_STORAGE_KEY", "AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_CONNECTION_STRING"]
        .iter()
        .any(|name| environment.get(name).is_some());
    match AzureIdentity::from_environment(environment) {
        Some(identity) if !keyed => format!(
            "{}, which needs the `Storage Blob Data Contributor` role on the container, or set `AZURE_STORAGE_KEY`",
            identity.describe()
        ),
        _ => "`AZURE_STORAGE_ACCOUNT` with `AZURE_STORAGE_KEY` or `AZURE_STORAGE_SAS_TOKEN`".to_string(),
    }
}

/// The findings for a backend URL; none for a URL that is no `azblob://` or `gs://` store.
pub(crate) fn check_object_store_backend(url: &str, environment: &ChildEnvironment) -> Vec<BackendFinding> {
    let (variables, container) = if url.starts_with("azblob://") {
        (azure_credentials(environment), "container")
    } else if url.starts_with("gs://") {
        ("`GOOGLE_CREDENTIALS`, `GOOGLE_APPLICATION_CREDENTIALS` or `GOOGLE_OAUTH_ACCESS_TOKEN`, or run `gcloud auth application-default login`".to_string(), "bucket")
    } else {
        return Vec::new();
    };
    let store = match open_object_store(url, environment) {
        None => return Vec::new(),
        Some(Ok(store)) => store,
        Some(Err(err)) => {
            return vec![BackendFinding {
                check: "backend credentials",
                ok: false,
                detail: crate::error::ErrorChain(&err).to_string(),
            }]
        }
    };
    let locks = format!("{}.pulumi/locks/", store.prefix());
    let err = match store.list(&locks) {
        Ok(_) => {
            return vec![
                BackendFinding {
                    check: "backend credentials",
                    ok: true,
                    detail: "accepted by the object store".into(),
                },
                BackendFinding { check: "backend bucket", ok: true, detail: format!("the {container} exists") },
            ]
        }
        Err(err) => err,
    };
    // The whole chain; its URLs carry no query (a SAS token lives there).
    let said = crate::error::ErrorChain(&err).to_string();
    // Every variant named: a new one must decide which finding it is.
    let (check, detail) = match &err {
        ObjectStoreError::Request { .. } => {
            ("backend reachable", format!("{said}: check the address in `PULUMI_BACKEND_URL` and the network"))
        }
        ObjectStoreError::Status { status, .. } if matches!(status.as_u16(), 401 | 403) => {
            ("backend credentials", format!("rejected by the object store ({said}): fix {variables}"))
        }
        ObjectStoreError::Status { status, .. } if status.as_u16() == 404 => {
            return vec![
                BackendFinding {
                    check: "backend credentials",
                    ok: true,
                    detail: "accepted by the object store".into(),
                },
                BackendFinding {
                    check: "backend bucket",
                    ok: false,
                    detail: format!("the {container} does not exist: create it, or fix `PULUMI_BACKEND_URL`"),
                },
            ];
        }
        ObjectStoreError::MissingCredentials(_)
        | ObjectStoreError::InvalidCredentials(_)
        | ObjectStoreError::CredentialsRefused { .. }
        | ObjectStoreError::Status { .. } => {
            ("backend credentials", format!("cannot list the backend's locks: {said}"))
        }
        ObjectStoreError::Client(_) => ("backend reachable", format!("cannot list the backend's locks: {said}")),
    };
    vec![BackendFinding { check, ok: false, detail }]
}
