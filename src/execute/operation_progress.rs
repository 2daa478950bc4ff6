use serde::Serialize;

/// Resource changes by kind, as the CLI's summary counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ResourceChanges {
    pub created: u64,
    pub updated: u64,
    pub deleted: u64,
    pub replaced: u64,
    pub unchanged: u64,
    pub other: u64,
}

impl ResourceChanges {
    pub fn total_changed(&self) -> u64 {
        self.created + self.updated + self.deleted + self.replaced
    }
}

/// What the CLI said so far about one operation: drives progress lines and the summary.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OperationProgress {
    pub steps_seen: u64,
    pub steps_done: u64,
    pub steps_failed: u64,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    pub summary: Option<ResourceChanges>,
    pub result: Option<String>,
    pub is_preview: Option<bool>,
    pub finished: bool,
    /// Stack outputs the CLI marks secret; `None` until the stack's outputs were seen.
    pub secret_outputs: Option<Vec<String>>,
}
