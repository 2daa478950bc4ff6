//! `runner doctor` and its per-backend and per-runtime checks.
pub(crate) mod doctor_command;
pub(crate) mod object_store_check;
pub(crate) mod plugin_check;
pub(crate) mod python_runtime_check;
pub(crate) mod s3_backend_check;
