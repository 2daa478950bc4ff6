use std::time::Duration;

use serde::Serialize;

/// A check that must pass after a project succeeds and before any dependent starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadinessGate {
    pub check: GateCheck,
    #[serde(serialize_with = "as_text")]
    pub timeout: Duration,
    #[serde(serialize_with = "as_text")]
    pub interval: Duration,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GateCheck {
    /// Passes when the command exits 0 (no shell).
    Command(Vec<String>),
    /// Passes on a 2xx answer to a GET, whose body contains `expect_body` when given.
    Http { url: String, expect_body: Option<String> },
    /// Passes when a TCP connection opens.
    Tcp(String),
}

impl ReadinessGate {
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
    pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(5);

    pub fn describe(&self) -> String {
        match &self.check {
            GateCheck::Command(argv) => format!("`{}`", argv.join(" ")),
            GateCheck::Http { url, .. } => format!("GET {url}"),
            GateCheck::Tcp(address) => format!("tcp {address}"),
        }
    }
}

fn as_text<S: serde::Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&humantime::format_duration(*duration).to_string())
}
