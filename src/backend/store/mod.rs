//! The object stores a DIY backend lives in (S3, Google Cloud Storage, Azure Blob), read, listed
//! and mended with the credentials the run gives `pulumi`, without a `pulumi` process.
pub(super) mod azure_blob_client;
pub(super) mod gcs_client;
pub(crate) mod object_store;
pub(super) mod object_store_error;
pub(super) mod object_store_response;
pub(super) mod s3_client;

pub(crate) use object_store::{open_object_store, ObjectStore};
pub(crate) use object_store_error::ObjectStoreError;
pub(crate) use object_store_response::shown_url;
