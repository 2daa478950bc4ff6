//! `runner export`.
pub(crate) mod command;
