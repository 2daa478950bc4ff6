use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::config::normalize_path;
use crate::provider::Provider;

/// What MARA's Python projects need beyond `python3`: Pulumi's Python language host next to
/// `pulumi`, and the virtualenv their `Pulumi.yaml` names (`virtualenv: ../../venv`, which is
/// `pulumi/python/venv` in a checkout).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PythonRuntimeFinding {
    pub check: String,
    pub ok: bool,
    pub detail: String,
}

/// The Go module that would hold Pulumi's Python language host; the Go module proxy refuses it
/// (HTTP 403, checked with `go list -m`), unlike `pulumi-language-yaml`.
const PYTHON_HOST_MODULE: &str = "github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3";

/// Findings for the provider's Python projects; none when it has no Python project.
/// `pulumi` is the `pulumi` found on PATH, `find` looks a program up on the children's PATH.
pub(crate) fn python_runtime_findings(
    provider: &Provider,
    root: &Path,
    pulumi: Option<&Path>,
    find: &dyn Fn(&str) -> Option<PathBuf>,
) -> Vec<PythonRuntimeFinding> {
    let mut virtualenvs: BTreeSet<PathBuf> = BTreeSet::new();
    let mut any_python = false;
    for project in &provider.projects {
        let dir = provider.dir_of(project);
        let Some(runtime) = read_runtime(&dir) else { continue };
        if runtime.name != "python" {
            continue;
        }
        any_python = true;
        if let Some(venv) = runtime.virtualenv {
            virtualenvs.insert(normalize_path(&dir.join(venv)));
        }
    }
    if !any_python {
        return Vec::new();
    }
    let shown = |path: &Path| path.strip_prefix(root).unwrap_or(path).display().to_string();
    let mut findings = Vec::new();

    let host = pulumi
        .and_then(|pulumi| pulumi.parent())
        .map(|dir| dir.join("pulumi-language-python"))
        .filter(|host| host.is_file())
        .or_else(|| find("pulumi-language-python"));
    findings.push(PythonRuntimeFinding {
        check: "python language host".into(),
        ok: host.is_some(),
        detail: match host {
            Some(host) => format!("`pulumi-language-python` at {}", host.display()),
            None => format!(
                "`pulumi-language-python` is not next to `pulumi` nor on PATH, so MARA's Python projects cannot run: \
                 install Pulumi from its release archive (https://www.pulumi.com/docs/install/), which includes it. \
                 `scripts/install-pulumi.sh` cannot build it: the Go module proxy does not serve `{PYTHON_HOST_MODULE}`, \
                 so on a machine limited to package registries there is no way to run them"
            ),
        },
    });

    for venv in virtualenvs {
        let interpreter = venv.join("bin").join("python");
        let ok = interpreter.exists();
        let setup = root.join("bin/setup_venv.sh");
        let fix = if setup.is_file() {
            "run MARA's `./bin/setup_venv.sh`, which creates it and installs MARA's Python packages".to_string()
        } else {
            format!("create it with `python3 -m venv {}` and install MARA's Python packages into it", shown(&venv))
        };
        findings.push(PythonRuntimeFinding {
            check: "virtualenv".into(),
            ok,
            detail: if ok {
                format!("{} (named by the projects' `virtualenv`)", shown(&venv))
            } else {
                format!("{} does not exist (the projects' `virtualenv` names it): {fix}", shown(&venv))
            },
        });
    }
    findings
}

struct Runtime {
    name: String,
    virtualenv: Option<String>,
}

fn read_runtime(project_dir: &Path) -> Option<Runtime> {
    let text =
        ["Pulumi.yaml", "Pulumi.yml"].iter().find_map(|name| std::fs::read_to_string(project_dir.join(name)).ok())?;
    let document: serde_norway::Value = serde_norway::from_str(&text).ok()?;
    let runtime = document.get("runtime")?;
    if let Some(name) = runtime.as_str() {
        return Some(Runtime { name: name.to_string(), virtualenv: None });
    }
    Some(Runtime {
        name: runtime.get("name")?.as_str()?.to_string(),
        virtualenv: runtime
            .get("options")
            .and_then(|o| o.get("virtualenv"))
            .and_then(|v| v.as_str())
            .map(str::to_string),
    })
}
