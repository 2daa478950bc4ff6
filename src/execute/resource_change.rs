use serde::Serialize;

/// What happens to one resource, in the order a reviewer should read them: losses first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ChangeKind {
    Delete,
    Replace,
    Update,
    Create,
}

impl ChangeKind {
    /// The kind of change a Pulumi step op stands for; `None` for steps that change nothing and
    /// for names this engine version does not write.
    pub(crate) fn from_op(op: &str) -> Option<Self> {
        super::StepOp::parse(op)?.change_kind()
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Create => "create",
            ChangeKind::Update => "update",
            ChangeKind::Replace => "replace",
            ChangeKind::Delete => "delete",
        }
    }

    /// Pulumi's own marks: `+` create, `~` update, `+-` replace, `-` delete.
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            ChangeKind::Create => "+",
            ChangeKind::Update => "~",
            ChangeKind::Replace => "+-",
            ChangeKind::Delete => "-",
        }
    }

    /// Deletes and replaces lose something; reports list and mark them first.
    pub(crate) fn is_destructive(self) -> bool {
        matches!(self, ChangeKind::Delete | ChangeKind::Replace)
    }
}

/// One changed resource: its name, type, what happens and which properties differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ResourceChange {
    pub kind: ChangeKind,
    pub name: String,
    #[serde(rename = "type")]
    pub resource_type: String,
    pub urn: String,
    /// Property names that differ (never their values, which may be secret).
    pub properties: Vec<String>,
}
