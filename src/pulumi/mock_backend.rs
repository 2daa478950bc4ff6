//! `preview` of a project whose upstream stack was never deployed: a throwaway file backend
//! where that stack holds the upstream project's `mock_outputs`.
//!
//! A StackReference reads the referenced stack from the backend, whatever the program's
//! language, so the mocks reach any program unchanged: the preview runs with
//! `PULUMI_BACKEND_URL` pointing at a temporary folder holding a copy of this stack's state
//! files from the real (file) backend, and for each upstream project never deployed a state
//! file whose root `pulumi:pulumi:Stack` resource has the mocks as outputs. Nothing is written
//! to the real backend. `up` never uses mocks.

use std::path::{Path, PathBuf};

use std::collections::BTreeMap;

use super::{Backend, PulumiCliContext, PulumiManifest};
use crate::execute::FailureDetail;
use crate::plan::Operation;
use crate::provider::{Project, Provider};

/// A `preview` that reads mocks: the environment pointing at the throwaway backend (removed
/// when this is dropped), and the upstream projects mocked.
pub(super) struct MockRun {
    pub environment: BTreeMap<String, String>,
    pub upstream: Vec<String>,
    _backend: tempfile::TempDir,
}

/// For a `preview` whose upstream was never deployed: the run over mocks. For an `up`: a
/// refusal naming the upstream to deploy first. `None` when nothing is missing.
pub(super) async fn mock_outputs(
    context: &PulumiCliContext,
    project: &Project,
    operation: Operation,
) -> Result<Option<MockRun>, FailureDetail> {
    if !matches!(operation, Operation::Preview | Operation::Up) {
        return Ok(None);
    }
    let (provider, project, backend, stack) =
        (context.provider.clone(), project.clone(), context.backend.clone(), context.stack.clone());
    let salt = encryption_salt(&context.stack_config_file);
    let environment = context.environment.vars().clone();
    let built = tokio::task::spawn_blocking(move || {
        let missing = missing_upstream(&provider, &project, &backend, &stack);
        if missing.is_empty() {
            return Ok(None);
        }
        let names: Vec<String> = missing.iter().map(|upstream| format!("`{}`", upstream.path)).collect();
        if operation == Operation::Up {
            return Err(format!(
                "{} never deployed on stack `{stack}`: `up` never uses `mock_outputs`; run `runner up` of it first",
                names.join(", ")
            ));
        }
        let dir = tempfile::Builder::new().prefix("runner-mocks-").tempdir().map_err(|err| err.to_string())?;
        let own = PulumiManifest::load(&provider.dir_of(&project)).map(|manifest| manifest.name).unwrap_or_default();
        let url = mock_backend(dir.path(), &backend, &stack, &missing, (&own, salt.as_deref()))
            .map_err(|err| format!("cannot build the backend of mock outputs: {}", crate::error::ErrorChain(&err)))?;
        let mut environment = environment;
        environment.insert("PULUMI_BACKEND_URL".into(), url);
        let upstream = missing.into_iter().map(|upstream| upstream.path).collect();
        Ok(Some(MockRun { environment, upstream, _backend: dir }))
    })
    .await
    .unwrap_or_else(|err| Err(format!("internal error: {err}")));
    built.map_err(|summary| FailureDetail { summary, ..Default::default() })
}

/// An upstream project with `mock_outputs` whose stack holds no deployment.
pub(super) struct MissingUpstream {
    pub path: String,
    pub project_name: String,
    pub mocks: serde_json::Map<String, serde_json::Value>,
}

fn state_file(root: &Path, project_name: &str, stack: &str) -> PathBuf {
    root.join(".pulumi").join("stacks").join(project_name).join(format!("{stack}.json"))
}

/// Whether a file backend's state of the stack holds a deployment (a root stack resource).
fn deployed(root: &Path, project_name: &str, stack: &str) -> bool {
    let Ok(bytes) = std::fs::read(state_file(root, project_name, stack)) else {
        // A compressed state (`.json.gz`) cannot be read here: take it as deployed.
        return state_file(root, project_name, stack).with_extension("json.gz").is_file();
    };
    let state: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    state["checkpoint"]["latest"]["resources"].as_array().is_some_and(|resources| !resources.is_empty())
}

/// The dependencies of `project` that declare `mock_outputs` and were never deployed on
/// `stack`; empty when the backend is not a local file backend (it cannot be told cheaply).
pub(super) fn missing_upstream(
    provider: &Provider,
    project: &Project,
    backend: &Backend,
    stack: &str,
) -> Vec<MissingUpstream> {
    let Some(root) = backend.local_dir() else { return Vec::new() };
    project
        .depends_on
        .iter()
        .filter_map(|path| provider.project(path))
        .filter(|upstream| !upstream.mock_outputs.is_empty())
        .filter_map(|upstream| {
            let manifest = PulumiManifest::load(&provider.dir_of(upstream)).ok()?;
            (!deployed(root, &manifest.name, stack)).then(|| MissingUpstream {
                path: upstream.path.to_string(),
                project_name: manifest.name,
                mocks: upstream.mock_outputs.clone().into_iter().collect(),
            })
        })
        .collect()
}

/// The `encryptionsalt` of a stack file, when it has one.
fn encryption_salt(stack_file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(stack_file).ok()?;
    let document: serde_norway::Value = serde_norway::from_str(&text).ok()?;
    document.get("encryptionsalt")?.as_str().map(str::to_string)
}

/// Builds the throwaway backend in `dir`: every state file of `stack` copied from `backend`,
/// the mocked ones written over them, and the previewed project's own stack as `stack init`
/// leaves it when the real backend has none, so the preview creates nothing there. Returns its
/// `PULUMI_BACKEND_URL`.
pub(super) fn mock_backend(
    dir: &Path,
    backend: &Backend,
    stack: &str,
    missing: &[MissingUpstream],
    (own, salt): (&str, Option<&str>),
) -> std::io::Result<String> {
    let stacks = dir.join(".pulumi").join("stacks");
    std::fs::create_dir_all(&stacks)?;
    std::fs::write(dir.join(".pulumi").join("meta.yaml"), "version: 1\n")?;
    if let Some(root) = backend.local_dir() {
        for entry in std::fs::read_dir(root.join(".pulumi").join("stacks")).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            for file in [format!("{stack}.json"), format!("{stack}.json.gz")] {
                let source = entry.path().join(&file);
                if source.is_file() {
                    std::fs::create_dir_all(stacks.join(&name))?;
                    std::fs::copy(&source, stacks.join(&name).join(&file))?;
                }
            }
        }
    }
    for upstream in missing {
        let name = &upstream.project_name;
        let state = serde_json::json!({"version": 3, "checkpoint": {
            "stack": backend.qualified_stack(name, stack),
            "latest": {
                "manifest": {"time": "1970-01-01T00:00:00Z", "magic": "", "version": ""},
                "resources": [{
                    "urn": format!("urn:pulumi:{stack}::{name}::pulumi:pulumi:Stack::{name}-{stack}"),
                    "custom": false,
                    "type": "pulumi:pulumi:Stack",
                    "outputs": upstream.mocks,
                }],
            },
        }});
        let file = state_file(dir, name, stack);
        std::fs::create_dir_all(file.parent().unwrap_or(dir))?;
        let _ = std::fs::remove_file(file.with_extension("json.gz"));
        std::fs::write(&file, state.to_string())?;
    }
    let own_file = state_file(dir, own, stack);
    if !own.is_empty() && !own_file.is_file() && !own_file.with_extension("json.gz").is_file() {
        let mut latest = serde_json::json!({"manifest": {"time": "1970-01-01T00:00:00Z", "magic": "", "version": ""}});
        if let Some(salt) = salt {
            latest["secrets_providers"] = serde_json::json!({"type": "passphrase", "state": {"salt": salt}});
        }
        let state = serde_json::json!({"version": 3, "checkpoint": {"stack": backend.qualified_stack(own, stack), "latest": latest}});
        std::fs::create_dir_all(own_file.parent().unwrap_or(dir))?;
        std::fs::write(&own_file, state.to_string())?;
    }
    Ok(format!("file://{}", dir.display()))
}
