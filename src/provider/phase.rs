use serde::{Deserialize, Deserializer, Serialize};

/// Every infrastructure project succeeds before any kubernetes project starts, as in MARA.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
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

/// By hand, so `phase = 1` says what is expected (derived enums make TOML say "wanted string or table").
impl<'de> Deserialize<'de> for Phase {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PhaseName;
        impl serde::de::Visitor<'_> for PhaseName {
            type Value = Phase;

            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("`infrastructure` or `kubernetes`")
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Phase, E> {
                match text {
                    "infrastructure" => Ok(Phase::Infrastructure),
                    "kubernetes" => Ok(Phase::Kubernetes),
                    other => Err(E::unknown_variant(other, &["infrastructure", "kubernetes"])),
                }
            }
        }
        deserializer.deserialize_str(PhaseName)
    }
}
