//! `--affected`: projects changed since a git reference.
pub(crate) mod affected_selection;
pub(crate) mod git_changes;
