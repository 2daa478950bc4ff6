/// A step of Pulumi's engine, as its events name it (`op`): every operation the engine writes
/// (`sdk/go/common/apitype`), read in one place so the change list and the counts cannot
/// disagree about a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StepOp {
    Same,
    Create,
    Update,
    Delete,
    Replace,
    CreateReplacement,
    DeleteReplaced,
    Read,
    ReadReplacement,
    Refresh,
    Discard,
    DiscardReplaced,
    RemovePendingReplace,
    Import,
    ImportReplacement,
}

/// Which column of a run's counts a step adds to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StepCount {
    Created,
    Updated,
    Deleted,
    Replaced,
    Unchanged,
    Other,
}

impl StepOp {
    pub(crate) const ALL: [StepOp; 15] = [
        StepOp::Same,
        StepOp::Create,
        StepOp::Update,
        StepOp::Delete,
        StepOp::Replace,
        StepOp::CreateReplacement,
        StepOp::DeleteReplaced,
        StepOp::Read,
        StepOp::ReadReplacement,
        StepOp::Refresh,
        StepOp::Discard,
        StepOp::DiscardReplaced,
        StepOp::RemovePendingReplace,
        StepOp::Import,
        StepOp::ImportReplacement,
    ];

    /// `None` for a name this engine version does not write.
    pub(crate) fn parse(op: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|step| step.as_str() == op)
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            StepOp::Same => "same",
            StepOp::Create => "create",
            StepOp::Update => "update",
            StepOp::Delete => "delete",
            StepOp::Replace => "replace",
            StepOp::CreateReplacement => "create-replacement",
            StepOp::DeleteReplaced => "delete-replaced",
            StepOp::Read => "read",
            StepOp::ReadReplacement => "read-replacement",
            StepOp::Refresh => "refresh",
            StepOp::Discard => "discard",
            StepOp::DiscardReplaced => "discard-replaced",
            StepOp::RemovePendingReplace => "remove-pending-replace",
            StepOp::Import => "import",
            StepOp::ImportReplacement => "import-replacement",
        }
    }

    /// What happens to the resource, for the list of changes a reviewer reads: every step of a
    /// replacement is the resource being replaced; `None` for steps that change nothing.
    pub(crate) fn change_kind(self) -> Option<super::ChangeKind> {
        use super::ChangeKind;
        match self {
            StepOp::Create | StepOp::Import => Some(ChangeKind::Create),
            StepOp::Update => Some(ChangeKind::Update),
            StepOp::Replace
            | StepOp::CreateReplacement
            | StepOp::DeleteReplaced
            | StepOp::ImportReplacement
            | StepOp::ReadReplacement
            | StepOp::DiscardReplaced => Some(ChangeKind::Replace),
            StepOp::Delete | StepOp::Discard => Some(ChangeKind::Delete),
            StepOp::Same | StepOp::Read | StepOp::Refresh | StepOp::RemovePendingReplace => None,
        }
    }

    /// The column a step adds to in the counts, as Pulumi's own summary counts its steps: the
    /// halves of a replacement are a create and a delete, the replacement itself a replace; a
    /// refresh that found a difference is an update.
    pub(crate) fn counted_as(self) -> StepCount {
        match self {
            StepOp::Create | StepOp::CreateReplacement | StepOp::Import => StepCount::Created,
            StepOp::Update | StepOp::Refresh => StepCount::Updated,
            StepOp::Delete | StepOp::DeleteReplaced => StepCount::Deleted,
            StepOp::Replace => StepCount::Replaced,
            StepOp::Same | StepOp::Read => StepCount::Unchanged,
            StepOp::ReadReplacement
            | StepOp::Discard
            | StepOp::DiscardReplaced
            | StepOp::RemovePendingReplace
            | StepOp::ImportReplacement => StepCount::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_and_unknown_names_are_none() {
        for step in StepOp::ALL {
            assert_eq!(StepOp::parse(step.as_str()), Some(step));
        }
        assert_eq!(StepOp::parse("rename"), None);
        assert_eq!(StepOp::parse(""), None);
    }

    /// The two views agree where they overlap: a step that changes nothing in the change list
    /// is never counted as a change, and a counted change is in the list.
    #[test]
    fn the_change_list_and_the_counts_agree() {
        for step in StepOp::ALL {
            match step.counted_as() {
                StepCount::Created | StepCount::Deleted | StepCount::Replaced => {
                    assert!(step.change_kind().is_some(), "{step:?} is counted but not listed")
                }
                StepCount::Unchanged => assert!(step.change_kind().is_none(), "{step:?}"),
                StepCount::Updated | StepCount::Other => {}
            }
        }
    }
}
