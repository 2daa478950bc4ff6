//! `--affected`: projects changed since a git reference.
pub(crate) mod command;
pub(crate) mod git_changes;
