//! Pulumi's DIY state, read without a `pulumi` process: checkpoints, update history and the
//! fingerprints of the runner's own updates, on every store a backend can live in (`store/`),
//! with the credentials each store takes (`credentials/`).

pub(crate) mod checkpoint;
mod credentials;
mod digest_salt;
mod passphrase_secrets;
mod run_environment;
mod stack_state;
mod state_files;
pub(crate) mod store;
mod up_fingerprint;
mod update_entry;
mod update_kind;

pub(crate) use checkpoint::{opened_value, state_file_bytes, Checkpoint, CheckpointError, StackOutputsRead};
pub(crate) use credentials::{AwsProfile, AzureIdentity};
pub(crate) use digest_salt::DigestSalt;
pub(crate) use passphrase_secrets::{decrypt_secure_values, PassphraseError, PassphraseKey};
pub(crate) use run_environment::RunEnvironment;
pub(crate) use stack_state::StackState;
pub(crate) use state_files::{FolderFiles, StateFiles, StateFilesError};
pub(crate) use store::{open_object_store, shown_url, ObjectStore, ObjectStoreError};
pub(crate) use up_fingerprint::{UpFingerprint, UpstreamOutputs};
pub(crate) use update_entry::{HistoryKey, UpdateEntry};
pub(crate) use update_kind::{UpdateKind, UpdateResult};

#[cfg(test)]
pub(crate) use state_files::MemoryFiles;
