//! `runner doctor` on an `azblob://` or `gs://` backend: the store is asked for one listing of
//! the backend's locks, with the credentials the runner gives `pulumi`, through the same client
//! the lock checks use. What the answer means is said in the words of the variables to fix.

use super::s3_backend_check::BackendFinding;
use crate::pulumi::{open_object_store, ChildEnvironment, ObjectStoreError};

/// The findings for a backend URL; none for a URL that is no `azblob://` or `gs://` store.
pub fn check_object_store_backend(url: &str, environment: &ChildEnvironment) -> Vec<BackendFinding> {
    let (variables, container) = if url.starts_with("azblob://") {
        ("`AZURE_STORAGE_ACCOUNT` with `AZURE_STORAGE_KEY` or `AZURE_STORAGE_SAS_TOKEN`", "container")
    } else if url.starts_with("gs://") {
        ("`GOOGLE_CREDENTIALS`, `GOOGLE_APPLICATION_CREDENTIALS` or `GOOGLE_OAUTH_ACCESS_TOKEN`", "bucket")
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
    let answer = store.list(&locks);
    let status = match &answer {
        Err(ObjectStoreError::Status { status, .. }) => Some(status.as_u16()),
        _ => None,
    };
    match answer {
        Ok(_) => vec![
            BackendFinding { check: "backend credentials", ok: true, detail: "accepted by the object store".into() },
            BackendFinding { check: "backend bucket", ok: true, detail: format!("the {container} exists") },
        ],
        Err(ObjectStoreError::Request { .. }) => vec![BackendFinding {
            check: "backend reachable",
            ok: false,
            detail: format!("{}: check the address in `PULUMI_BACKEND_URL` and the network", shown(&answer)),
        }],
        Err(_) if matches!(status, Some(401 | 403)) => vec![BackendFinding {
            check: "backend credentials",
            ok: false,
            detail: format!("rejected by the object store ({}): fix {variables}", shown(&answer)),
        }],
        Err(_) if status == Some(404) => vec![
            BackendFinding { check: "backend credentials", ok: true, detail: "accepted by the object store".into() },
            BackendFinding {
                check: "backend bucket",
                ok: false,
                detail: format!("the {container} does not exist: create it, or fix `PULUMI_BACKEND_URL`"),
            },
        ],
        Err(_) => vec![BackendFinding {
            check: "backend credentials",
            ok: false,
            detail: format!("cannot list the backend's locks: {}", shown(&answer)),
        }],
    }
}

/// The error's whole chain; its URLs carry no query (a SAS token lives there).
fn shown(answer: &Result<Vec<String>, ObjectStoreError>) -> String {
    match answer {
        Ok(_) => String::new(),
        Err(err) => crate::error::ErrorChain(err).to_string(),
    }
}
