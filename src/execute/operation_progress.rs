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

    /// The brief in the words of an operation that changes things or only previews them.
    pub fn brief_of(&self, preview: bool) -> String {
        if preview {
            self.brief_planned()
        } else {
            self.brief()
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
        assert_eq!(changes.brief_of(true), "3 to create, 1 to update, 20 unchanged", "Pulumi's preview words");
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
