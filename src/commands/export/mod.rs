//! `runner export`.
pub(crate) mod ci;
pub(crate) mod export_command;
