use serde::{Deserialize, Serialize};

/// Every infrastructure project succeeds before any kubernetes project starts, as in MARA.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Infrastructure,
    Kubernetes,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Infrastructure => "infrastructure",
            Phase::Kubernetes => "kubernetes",
        }
    }
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
