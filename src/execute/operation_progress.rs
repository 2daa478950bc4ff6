use serde::Serialize;

/// What `refresh` and `drift` call the resources they read and found as the state has them.
const UNCHANGED_WHEN_READ: &str = "in sync";

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
    /// These counts less `other`'s, never below zero.
    pub fn without(&self, other: &ResourceChanges) -> ResourceChanges {
        ResourceChanges {
            created: self.created.saturating_sub(other.created),
            updated: self.updated.saturating_sub(other.updated),
            deleted: self.deleted.saturating_sub(other.deleted),
            replaced: self.replaced.saturating_sub(other.replaced),
            unchanged: self.unchanged.saturating_sub(other.unchanged),
            other: self.other.saturating_sub(other.other),
        }
    }

    pub fn total_changed(&self) -> u64 {
        self.created + self.updated + self.deleted + self.replaced
    }

    /// `3 created, 1 updated, 20 unchanged`: the counts that are not zero, in the words and
    /// from the numbers the end-of-run table uses, so the live line and the table agree.
    pub fn brief(&self) -> String {
        crate::text::nonzero_counts(&[
            (self.created, "created"),
            (self.replaced, "replaced"),
            (self.updated, "updated"),
            (self.deleted, "deleted"),
            (self.unchanged, "unchanged"),
        ])
    }

    /// `1 to create, 1 to update, 2 unchanged`: a preview's counts in Pulumi's own preview words,
    /// so the row agrees with the `(1 to update)` Pulumi prints above it.
    pub fn brief_planned(&self) -> String {
        crate::text::nonzero_counts(&[
            (self.created, "to create"),
            (self.replaced, "to replace"),
            (self.updated, "to update"),
            (self.deleted, "to delete"),
            (self.unchanged, "unchanged"),
        ])
    }

    /// The brief in the words of `operation`. `refresh` and `drift` count every resource they
    /// read, stack references included, and an `up` only what the program registers: the same
    /// project can count more there, so their word is another one (`3 in sync`, not `unchanged`).
    pub fn brief_for(&self, operation: Option<crate::plan::Operation>) -> String {
        use crate::plan::Operation;
        match operation {
            Some(Operation::Preview) => self.brief_planned(),
            Some(Operation::Refresh | Operation::Drift) => crate::text::nonzero_counts(&[
                (self.created, "created"),
                (self.replaced, "replaced"),
                (self.updated, "updated"),
                (self.deleted, "deleted"),
                (self.unchanged, UNCHANGED_WHEN_READ),
            ]),
            _ => self.brief(),
        }
    }

    /// The word for `unchanged` in `operation`'s counts (a table's column, a row's count).
    /// The words heading a table's change columns: what a preview or a drift check would do is
    /// said as Pulumi's preview says it (`to create`), what an operation did in the past tense.
    pub fn column_words(operation: Option<crate::plan::Operation>) -> [&'static str; 4] {
        use crate::plan::Operation;
        let unchanged = Self::unchanged_word(operation);
        match operation {
            Some(Operation::Preview | Operation::Drift) => ["to create", "to update", "to delete", unchanged],
            _ => ["created", "updated", "deleted", unchanged],
        }
    }

    pub fn unchanged_word(operation: Option<crate::plan::Operation>) -> &'static str {
        use crate::plan::Operation;
        match operation {
            Some(Operation::Refresh | Operation::Drift) => UNCHANGED_WHEN_READ,
            _ => "unchanged",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ResourceChanges;

    #[test]
    fn brief_names_only_what_happened() {
        assert_eq!(ResourceChanges::default().brief(), "");
        let changes = ResourceChanges { created: 3, updated: 1, unchanged: 20, ..Default::default() };
        assert_eq!(changes.brief(), "3 created, 1 updated, 20 unchanged");
        let preview = changes.brief_for(Some(crate::plan::Operation::Preview));
        assert_eq!(preview, "3 to create, 1 to update, 20 unchanged", "Pulumi's preview words");
        // What a refresh counts is another count (every resource read): another word.
        for operation in [crate::plan::Operation::Refresh, crate::plan::Operation::Drift] {
            assert_eq!(changes.brief_for(Some(operation)), "3 created, 1 updated, 20 in sync");
        }
        assert_eq!(changes.brief_for(Some(crate::plan::Operation::Up)), changes.brief());
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
    /// The stack's outputs as the event log shows them, each secret as the string `[secret]`
    /// (the CLI adapter's one form for it); `None` until seen.
    pub stack_outputs: Option<serde_json::Map<String, serde_json::Value>>,
    /// What the language host wrote to stderr (`info#err` diagnostics): where a program's own
    /// error is when the CLI reports no `error` diagnostic. Bounded.
    pub host_stderr: Vec<String>,
    /// Finished resource steps by kind, counted from the stream: what a killed operation did
    /// although it never wrote a summary.
    pub observed: ResourceChanges,
    /// The stack's own step, as one count of its kind: Pulumi's summary counts the stack as one
    /// of its resources (`2 unchanged` for a program of one), the stream's counts never do.
    pub stack_step: ResourceChanges,
}

impl OperationProgress {
    /// The CLI's own summary, else what the stream showed finishing (a killed operation); either
    /// way the resources of the program, never the stack itself, so every operation of a project
    /// counts the same things and the live row agrees with the final one.
    pub fn changes(&self) -> ResourceChanges {
        match self.summary {
            Some(summary) => summary.without(&self.stack_step),
            None => self.observed,
        }
    }
}
