//! The runner's HTTP: one client builder (rustls on `ring`) for gates and object stores, and one
//! process-wide client for the synchronous requests of the backend's store.
mod client_builder;
mod shared_client;

pub(crate) use client_builder::http_client_builder;
pub(crate) use shared_client::{block_on_shared, SharedClientError};
