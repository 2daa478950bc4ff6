use std::time::Duration;

use serde::Serialize;

/// What to do after a project succeeds and before its dependents start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HookSpec {
    /// Merge the kubeconfig held in stack output `output` into the user's kubeconfig file.
    Kubeconfig { output: String },
    /// Run `argv` (no shell) with the project's outputs in a JSON file and the environment.
    Command {
        argv: Vec<String>,
        #[serde(with = "humantime_serde")]
        timeout: Duration,
    },
}

impl HookSpec {
    pub fn describe(&self) -> String {
        match self {
            HookSpec::Kubeconfig { output } => format!("install kubeconfig from output `{output}`"),
            HookSpec::Command { argv, .. } => format!("run `{}`", argv.join(" ")),
        }
    }
}
