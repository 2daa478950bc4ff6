use serde::{Deserialize, Serialize};

/// The Pulumi operation run across every project of a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    Up,
    Preview,
    Refresh,
    Destroy,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Up => "up",
            Operation::Preview => "preview",
            Operation::Refresh => "refresh",
            Operation::Destroy => "destroy",
        }
    }

    /// Destroy walks the graph backwards: dependents go first.
    pub fn is_reversed(self) -> bool {
        self == Operation::Destroy
    }

    /// Whether the operation changes infrastructure (and so runs `--yes --skip-preview`).
    pub fn mutates(self) -> bool {
        self != Operation::Preview
    }
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, so tables can give it a width.
        f.pad(self.as_str())
    }
}
