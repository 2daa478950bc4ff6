//! A repository of the `local` provider whose exported pipeline a CI engine runs on this host:
//! state in a real S3-compatible store (versitygw), the real `pulumi`, and the test's `runner`
//! on PATH (`--no-setup`) behind a wrapper that notes, per call, whether the cluster's
//! kubeconfig was there.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::object_store::{ObjectStore, ACCESS_KEY, BUCKET, SECRET_KEY};
use crate::support::{copy_tree, real_pulumi_dir, stash_local, tokenauth_plugin_dir, Workspace};

pub(crate) const JOBS: [&str; 6] = [
    "infrastructure-network",
    "infrastructure-cluster",
    "infrastructure-registry",
    "utility-demo-image",
    "kubernetes-certmgr",
    "kubernetes-applications-demo",
];

pub(crate) struct CiRepository {
    pub scratch: tempfile::TempDir,
    pub workspace: Workspace,
    pub store: ObjectStore,
    /// The environment file's entries, as the CI system holds them: name -> value.
    pub environment: BTreeMap<String, String>,
    /// A file the network project keeps (`tokenauth:index:File`): edited by hand, it drifts.
    pub drift_file: Option<PathBuf>,
}

impl CiRepository {
    /// `broken`: the network project's program refers to a name it never defines, so Pulumi fails it.
    pub(crate) fn new(broken: bool) -> Self {
        Self::build(broken, false)
    }

    /// The network project also keeps a file on disk, which a test can edit to make drift.
    pub(crate) fn with_a_file_that_can_drift() -> Self {
        Self::build(false, true)
    }

    fn build(broken: bool, drift: bool) -> Self {
        let scratch = tempfile::tempdir().unwrap();
        let store = ObjectStore::start(&scratch.path().join("store"));
        let workspace = Workspace::new();
        copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
        workspace.file("providers/local.toml", std::fs::read(stash_local().join("providers/local.toml")).unwrap());
        if broken {
            let file = "projects/local/infrastructure/network/Pulumi.yaml";
            let program = std::fs::read_to_string(workspace.path(file)).unwrap();
            workspace.file(file, format!("{program}  broken: ${{undefined_on_purpose}}\n"));
        }
        let drift_file = drift.then(|| scratch.path().join("files/network-marker"));
        if let Some(path) = &drift_file {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let file = "projects/local/infrastructure/network/Pulumi.yaml";
            let program = std::fs::read_to_string(workspace.path(file)).unwrap();
            let resource = format!(
                "resources:\n  marker:\n    type: tokenauth:index:File\n    properties:\n      path: {}\n      content: v1\n",
                path.display()
            );
            assert!(program.contains("\nresources:\n"), "{program}");
            workspace.file(file, program.replacen("\nresources:\n", &format!("\n{resource}"), 1));
        }
        let example = std::fs::read_to_string(stash_local().join("config/pulumi/environment.example")).unwrap();
        let text = format!(
            "{example}PULUMI_BACKEND_URL={}\nAWS_ACCESS_KEY_ID={ACCESS_KEY}\nAWS_SECRET_ACCESS_KEY={SECRET_KEY}\n",
            store.url(BUCKET)
        );
        workspace.env_file(&text);
        let environment = text
            .lines()
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| line.split_once('='))
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect();
        let bin = scratch.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let runner = assert_cmd::cargo::cargo_bin("runner");
        let wrapper = format!(
            "#!/bin/sh\n# Notes each call and whether the cluster's context is in the kubeconfig, then runs the runner.\nkc=\"${{KUBECONFIG:-$HOME/.kube/config}}\"\nif grep -q 'local-dev' \"$kc\" 2>/dev/null; then has=yes; else has=no; fi\nprintf '%s kubeconfig=%s\\n' \"$*\" \"$has\" >> \"$RUNNER_TEST_CALLS\"\nexec '{}' \"$@\"\n",
            runner.display()
        );
        std::fs::write(bin.join("runner"), wrapper).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(bin.join("runner"), std::fs::Permissions::from_mode(0o755)).unwrap();
        Self { scratch, workspace, store, environment, drift_file }
    }

    /// Runs `runner export ...` in the repository (the environment file is still there).
    pub(crate) fn export(&self, args: &[&str]) {
        let mut all = vec!["export"];
        all.extend(args);
        all.extend(["--provider", "local", "--stack", "dev", "--no-setup"]);
        self.workspace.run(&all).expect_code(0);
    }

    /// From here on the values come from the CI system only: the file leaves the repository,
    /// which becomes a git repository with one commit.
    pub(crate) fn commit(&self) {
        std::fs::remove_file(self.workspace.path("config/pulumi/environment")).unwrap();
        self.git(&["init", "-q", "-b", "main"]);
        self.git(&["add", "-A"]);
        self.git(&["commit", "-qm", "pipeline"]);
    }

    pub(crate) fn git(&self, args: &[&str]) {
        let status = std::process::Command::new("git")
            .current_dir(self.workspace.root())
            .args(["-c", "user.email=ci@example.com", "-c", "user.name=ci"])
            .args(args)
            .env("HOME", self.home())
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    pub(crate) fn home(&self) -> PathBuf {
        self.scratch.path().join("home")
    }

    pub(crate) fn calls_file(&self) -> PathBuf {
        self.scratch.path().join("calls.log")
    }

    /// PATH for the engine: the wrapper, the test provider if a file can drift, the real
    /// `pulumi`, then the system's.
    pub(crate) fn path(&self) -> String {
        let plugins = match self.drift_file {
            Some(_) => format!("{}:", tokenauth_plugin_dir().display()),
            None => String::new(),
        };
        format!(
            "{}:{plugins}{}:{}",
            self.scratch.path().join("bin").display(),
            real_pulumi_dir().display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    /// A command for a CI engine, hermetic: its own HOME, no kubeconfig or backend of this shell.
    pub(crate) fn engine(&self, program: &Path) -> std::process::Command {
        std::fs::create_dir_all(self.home()).unwrap();
        let mut command = std::process::Command::new(program);
        command
            .current_dir(self.workspace.root())
            .env("HOME", self.home())
            .env("PATH", self.path())
            .env("RUNNER_TEST_CALLS", self.calls_file())
            .env("NO_COLOR", "1")
            .env_remove("KUBECONFIG")
            .env_remove("PULUMI_BACKEND_URL")
            .env_remove("PULUMI_CONFIG_PASSPHRASE")
            .env_remove("RUNNER_CACHE_DIR")
            .env_remove("XDG_CACHE_HOME")
            .env_remove("GITHUB_STEP_SUMMARY")
            .env_remove("CI")
            .stdin(std::process::Stdio::null());
        command
    }

    /// Each call of the runner in the pipeline, with `kubeconfig=yes|no`.
    pub(crate) fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.calls_file()).unwrap_or_default().lines().map(str::to_string).collect()
    }

    /// The stacks in the store: project -> how many resources its checkpoint holds.
    pub(crate) fn stacks(&self) -> BTreeMap<String, usize> {
        let dir = self.store.root.join(BUCKET).join(".pulumi/stacks");
        let mut found = BTreeMap::new();
        for project in std::fs::read_dir(&dir).map(|e| e.flatten().collect::<Vec<_>>()).unwrap_or_default() {
            let file = project.path().join("dev.json");
            let Ok(text) = std::fs::read_to_string(&file) else { continue };
            let value: Value = serde_json::from_str(&text).unwrap();
            let resources = value["checkpoint"]["latest"]["resources"].as_array().map_or(0, Vec::len);
            found.insert(project.file_name().to_string_lossy().into_owned(), resources);
        }
        found
    }
}

/// One project's entry of a job's JSON report.
pub(crate) fn project_entry(report: &Value) -> &Value {
    let projects = report["projects"].as_array().unwrap();
    assert_eq!(projects.len(), 1, "a job runs one project: {report}");
    &projects[0]
}

/// Start and duration are each rounded to the millisecond in the reports.
const ROUNDING: f64 = 0.002;

/// Every job started after each of its needs ended, from the jobs' reports.
#[track_caller]
pub(crate) fn assert_needs_ended_first(needs: &BTreeMap<String, Vec<String>>, reports: &BTreeMap<String, Value>) {
    let span = |job: &str| {
        let entry = project_entry(&reports[job]);
        let start = entry["started"].as_f64().unwrap_or_else(|| panic!("{job} never started: {entry}"));
        (start, start + entry["duration"].as_f64().unwrap())
    };
    for (job, needed) in needs {
        for need in needed {
            let (start, _) = span(job);
            let (_, end) = span(need);
            assert!(start + ROUNDING >= end, "`{job}` started at {start}, before its need `{need}` ended at {end}");
        }
    }
}
