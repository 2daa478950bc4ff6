//! Which stack outputs Pulumi itself marks secret, asked from `pulumi stack output --json`.

use std::collections::BTreeMap;
use std::path::Path;

use super::event_log::is_secret_value;
use crate::cancel::{Cancellation, ChildProcess, QUERY_TIMEOUT};
use crate::execute::ProjectCliError;

/// Without `--show-secrets`, `pulumi stack output --json` prints every secret output as
/// `"[secret]"`: the names Pulumi marks secret, for when the event log did not show the outputs
/// (a run whose outputs did not change, an event log that could not be read).
pub(crate) async fn secret_output_names(
    pulumi: &Path,
    dir: &Path,
    stack: &str,
    env: &BTreeMap<String, String>,
) -> Result<Vec<String>, ProjectCliError> {
    let output = ChildProcess::new(pulumi)
        .args(["stack", "output", "--json", "--non-interactive", "--stack", stack])
        .current_dir(dir)
        .env_clear()
        .envs(env)
        .timeout(QUERY_TIMEOUT)
        .output(&Cancellation::process())
        .await;
    if !output.success() {
        return Err(ProjectCliError::Failed(format!(
            "`pulumi stack output --json` ended with {}",
            output.end.describe()
        )));
    }
    secret_names_in(&output.stdout)
}

/// The names whose value is a secret in what `pulumi stack output --json` printed.
pub(super) fn secret_names_in(json: &[u8]) -> Result<Vec<String>, ProjectCliError> {
    let outputs: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(json)
        .map_err(|source| ProjectCliError::NoJson { command: "pulumi stack output --json", source })?;
    Ok(outputs.into_iter().filter(|(_, value)| is_secret_value(value)).map(|(name, _)| name).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_printed_as_secret_by_the_real_cli_are_found() {
        // Verbatim from `pulumi stack output --json` (v3.259.0) for an `fn::secret` output.
        let printed = b"{\n  \"plain\": \"hello\",\n  \"token\": \"[secret]\"\n}\n";
        assert_eq!(secret_names_in(printed).unwrap(), vec!["token".to_string()]);
    }

    #[test]
    fn garbage_is_an_error_not_an_empty_list() {
        assert!(secret_names_in(b"warning: something").is_err());
    }
}
