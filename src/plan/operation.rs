use serde::{Deserialize, Serialize};

/// The Pulumi operation run across every project of a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    Up,
    Preview,
    Refresh,
    Destroy,
    /// `pulumi refresh --preview-only`: what changed outside Pulumi, changing nothing.
    Drift,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Up => "up",
            Operation::Preview => "preview",
            Operation::Refresh => "refresh",
            Operation::Destroy => "destroy",
            Operation::Drift => "drift",
        }
    }

    /// Destroy walks the graph backwards: dependents go first.
    pub fn is_reversed(self) -> bool {
        self == Operation::Destroy
    }

    /// Whether the operation changes infrastructure (and so runs `--yes --skip-preview`).
    pub fn mutates(self) -> bool {
        !matches!(self, Operation::Preview | Operation::Drift)
    }

    /// The `pulumi` subcommand and its fixed flags.
    pub fn pulumi_command(self) -> &'static [&'static str] {
        match self {
            Operation::Up => &["up"],
            Operation::Preview => &["preview"],
            Operation::Refresh => &["refresh"],
            Operation::Destroy => &["destroy"],
            Operation::Drift => &["refresh", "--preview-only"],
        }
    }

    /// Whether the operation only looks: its resource changes are what a report names.
    pub fn is_preview(self) -> bool {
        matches!(self, Operation::Preview | Operation::Drift)
    }
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, so tables can give it a width.
        f.pad(self.as_str())
    }
}
