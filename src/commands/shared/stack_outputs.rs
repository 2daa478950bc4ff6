//! Reads stack outputs from the backend's state, or with `pulumi stack output --json` where only
//! `pulumi` can read them, several projects at once.

use std::path::{Path, PathBuf};

use crate::backend::StackOutputsRead;
use crate::cancel::{Cancellation, ChildEnd, ChildProcess, QUERY_TIMEOUT};
use crate::execute::ProjectCliError;
use crate::provider::{Project, Provider};
use crate::pulumi::{Backend, BackendStacks, ChildEnvironment, PulumiManifest};
use crate::secrets::SecretMask;

/// Outputs read in parallel, a few at a time: each is a `pulumi` process.
const AT_ONCE: usize = 4;

/// One project's outputs, or why they could not be read.
#[derive(Debug)]
pub(crate) struct ProjectOutputs {
    pub project: String,
    pub outputs: Result<serde_json::Map<String, serde_json::Value>, ProjectCliError>,
    /// False when the stack does not exist yet: no outputs, and no error either.
    pub deployed: bool,
}

pub(crate) struct OutputReader<'a> {
    pub pulumi: &'a Path,
    pub provider: &'a Provider,
    pub stack: &'a str,
    pub environment: &'a ChildEnvironment,
    pub backend: &'a Backend,
    /// Without it, Pulumi itself prints secret values as `[secret]`.
    pub show_secrets: bool,
    /// Applied to errors always, and to values unless `show_secrets`.
    pub mask: &'a SecretMask,
}

impl OutputReader<'_> {
    /// In the order given; each project's errors stay with it.
    pub(crate) fn read_all(&self, projects: &[&Project]) -> Vec<ProjectOutputs> {
        let stacks = BackendStacks::new(
            self.provider.clone(),
            self.stack.to_string(),
            self.environment.clone(),
            self.backend.clone(),
        );
        let stacks = &stacks;
        let mut results = Vec::with_capacity(projects.len());
        for chunk in projects.chunks(AT_ONCE) {
            let read: Vec<ProjectOutputs> = std::thread::scope(|scope| {
                let handles: Vec<_> =
                    chunk.iter().map(|project| scope.spawn(move || self.read(project, stacks))).collect();
                handles
                    .into_iter()
                    .zip(chunk)
                    .map(|(handle, project)| {
                        handle.join().unwrap_or_else(|_| ProjectOutputs {
                            project: project.path.to_string(),
                            outputs: Err(ProjectCliError::Internal("a thread reading outputs stopped".into())),
                            deployed: true,
                        })
                    })
                    .collect()
            });
            results.extend(read);
        }
        results
    }

    fn read(&self, project: &Project, stacks: &BackendStacks) -> ProjectOutputs {
        let dir: PathBuf = self.provider.dir_of(project);
        // What the backend holds now, where the runner can read it: a destroyed stack (kept,
        // empty) is not deployed either.
        let not_deployed = match stacks.facts(project) {
            Ok(facts) => !facts.is_deployed(),
            Err(_) => PulumiManifest::load(&dir)
                .is_ok_and(|manifest| self.backend.stack_exists(&manifest.name, self.stack) == Some(false)),
        };
        if not_deployed {
            return ProjectOutputs {
                project: project.path.to_string(),
                outputs: Ok(Default::default()),
                deployed: false,
            };
        }
        let from_backend = PulumiManifest::load(&dir).ok().and_then(|manifest| stacks.outputs_of(&manifest.name).ok());
        let outputs = match from_backend {
            Some(read) => Ok(self.shown(read)),
            None => self.read_dir(&dir),
        };
        ProjectOutputs { project: project.path.to_string(), outputs, deployed: true }
    }

    fn read_dir(&self, dir: &Path) -> Result<serde_json::Map<String, serde_json::Value>, ProjectCliError> {
        let manifest = PulumiManifest::load(dir).map_err(|err| ProjectCliError::Project(Box::new(err)))?;
        let stack = self.backend.qualified_stack(&manifest.name, self.stack);
        let mut args = vec!["stack", "output", "--json", "--non-interactive", "--stack", &stack];
        if self.show_secrets {
            args.push("--show-secrets");
        }
        let output = ChildProcess::new(self.pulumi)
            .args(&args)
            .current_dir(dir)
            .env_clear()
            .envs(self.environment.vars())
            .timeout(QUERY_TIMEOUT)
            .output_blocking(&Cancellation::process());
        if let ChildEnd::SpawnFailed(reason) = &output.end {
            return Err(ProjectCliError::NotStarted(reason.clone()));
        }
        if !output.success() {
            let stderr = match output.stderr_text() {
                text if text.trim().is_empty() => output.end.describe(),
                text => text,
            };
            let message = stderr.lines().rev().find(|line| line.trim_start().starts_with("error:")).unwrap_or(&stderr);
            return Err(ProjectCliError::Failed(format!(
                "`pulumi stack output` failed: {}",
                self.mask.apply(message.trim())
            )));
        }
        let outputs: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(&output.stdout)
            .map_err(|source| ProjectCliError::NoJson { command: "pulumi stack output --json", source })?;
        if self.show_secrets {
            return Ok(outputs);
        }
        // Values Pulumi does not know as secret but the runner does (a token from the environment).
        Ok(outputs.into_iter().map(|(name, value)| (name, mask_value(value, self.mask))).collect())
    }
}

impl OutputReader<'_> {
    /// As `pulumi stack output --json` prints them: secrets `[secret]` unless `show_secrets`,
    /// and what the runner knows as secret masked.
    fn shown(&self, read: StackOutputsRead) -> serde_json::Map<String, serde_json::Value> {
        read.values
            .into_iter()
            .map(|(name, value)| match self.show_secrets {
                true => (name, value),
                false if read.secret.contains(&name) => (name, serde_json::Value::String("[secret]".into())),
                false => (name, mask_value(value, self.mask)),
            })
            .collect()
    }
}

fn mask_value(value: serde_json::Value, mask: &SecretMask) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(text) => Value::String(mask.apply(&text)),
        Value::Array(items) => Value::Array(items.into_iter().map(|item| mask_value(item, mask)).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, mask_value(v, mask))).collect()),
        other => other,
    }
}

/// A value as a person reads it: strings bare, everything else as compact JSON. Control
/// characters are escaped (`\n`, `\u{1b}`): an output is data, it may not move the cursor, colour
/// the terminal or break the one row each value has.
pub(crate) fn display_value(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(text) => {
            text.chars().map(|c| if c.is_control() { c.escape_debug().to_string() } else { c.to_string() }).collect()
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod display_tests {
    #[test]
    fn control_characters_are_shown_escaped_on_one_row() {
        let value = serde_json::json!("\u{1b}[31mred\u{1b}[0m\nsecond line\tend ✓");
        let shown = super::display_value(&value);
        assert_eq!(shown, "\\u{1b}[31mred\\u{1b}[0m\\nsecond line\\tend ✓");
        assert!(!shown.chars().any(char::is_control), "{shown}");
    }
}
