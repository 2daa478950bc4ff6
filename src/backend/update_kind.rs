//! Pulumi's names for what an update of a stack did and how it ended (`apitype.UpdateKind`,
//! `UpdateResult`), read once here so no caller compares strings.

use crate::plan::Operation;

/// What an entry of the history did: Pulumi's `UpdateKind` (`apitype`), read once here so no
/// caller compares strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UpdateKind {
    Update,
    Preview,
    Refresh,
    Rename,
    Destroy,
    Import,
    ResourceImport,
    /// A kind this runner does not know yet: treated as a change to the stack.
    Other(String),
}

impl UpdateKind {
    pub(crate) fn parse(text: &str) -> Self {
        match text {
            "update" => UpdateKind::Update,
            "preview" => UpdateKind::Preview,
            "refresh" => UpdateKind::Refresh,
            "rename" => UpdateKind::Rename,
            "destroy" => UpdateKind::Destroy,
            "import" => UpdateKind::Import,
            "resource-import" => UpdateKind::ResourceImport,
            other => UpdateKind::Other(other.to_string()),
        }
    }

    /// The runner's operation that records this kind: `update` is `up`.
    pub(crate) fn operation(&self) -> Option<Operation> {
        match self {
            UpdateKind::Update => Some(Operation::Up),
            UpdateKind::Refresh => Some(Operation::Refresh),
            UpdateKind::Destroy => Some(Operation::Destroy),
            _ => None,
        }
    }

    /// Whether the entry may have changed the stack (its resources or its state): all but a preview.
    pub(crate) fn changes_stack(&self) -> bool {
        *self != UpdateKind::Preview
    }

    /// The name a person reads: the runner's operation where there is one, else Pulumi's kind.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            UpdateKind::Preview => "preview",
            UpdateKind::Rename => "rename",
            UpdateKind::Import => "import",
            UpdateKind::ResourceImport => "resource-import",
            UpdateKind::Other(other) => other,
            known => known.operation().map_or("update", Operation::as_str),
        }
    }
}

/// How an entry ended: Pulumi's `UpdateResult`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UpdateResult {
    NotStarted,
    InProgress,
    Succeeded,
    Failed,
    Other(String),
}

impl UpdateResult {
    pub(crate) fn parse(text: &str) -> Self {
        match text {
            "not-started" => UpdateResult::NotStarted,
            "in-progress" => UpdateResult::InProgress,
            "succeeded" => UpdateResult::Succeeded,
            "failed" => UpdateResult::Failed,
            other => UpdateResult::Other(other.to_string()),
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        match self {
            UpdateResult::NotStarted => "not-started",
            UpdateResult::InProgress => "in-progress",
            UpdateResult::Succeeded => "succeeded",
            UpdateResult::Failed => "failed",
            UpdateResult::Other(other) => other,
        }
    }
}
