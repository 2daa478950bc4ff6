use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

/// A check that must pass after a project succeeds and before any dependent starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadinessGate {
    pub check: GateCheck,
    #[serde(with = "humantime_serde")]
    pub timeout: Duration,
    #[serde(with = "humantime_serde")]
    pub interval: Duration,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GateCheck {
    /// Passes when the command exits 0 (no shell).
    Command(Vec<String>),
    /// Passes on a 2xx answer to a GET (`http://` or `https://`), whose body contains
    /// `expect_body` when given. `https` trusts the system's authorities (or `SSL_CERT_FILE`'s)
    /// and those in `ca_file`, a PEM file resolved from the repository root.
    Http {
        url: String,
        expect_body: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        ca_file: Option<PathBuf>,
    },
    /// Passes when a TCP connection opens.
    Tcp(String),
    /// Passes when the object is ready in Kubernetes' own terms, asked with `kubectl` through
    /// the run's `KUBECONFIG` (where a `kubeconfig` hook installed the cluster), in `context`
    /// when given, else in the file's current context.
    Kubernetes {
        object: super::KubernetesObject,
        #[serde(skip_serializing_if = "Option::is_none")]
        context: Option<String>,
    },
}

impl ReadinessGate {
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
    pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(5);

    pub fn describe(&self) -> String {
        match &self.check {
            GateCheck::Command(argv) => format!("`{}`", argv.join(" ")),
            GateCheck::Http { url, .. } => format!("GET {url}"),
            GateCheck::Tcp(address) => format!("tcp {address}"),
            GateCheck::Kubernetes { object, context: None } => format!("kubernetes {object}"),
            GateCheck::Kubernetes { object, context: Some(context) } => {
                format!("kubernetes {object} in context {context}")
            }
        }
    }
}
