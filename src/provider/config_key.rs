use serde::{Deserialize, Serialize};

/// The type a configuration value must have; prompts re-ask until the answer parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueKind {
    #[default]
    String,
    Integer,
    Boolean,
}

/// A stack configuration key the provider requires.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigKey {
    pub key: String,
    pub prompt: String,
    pub default_env: Option<String>,
    pub default: Option<String>,
    pub choices: Vec<String>,
    pub kind: ValueKind,
    pub secret: bool,
}
