//! Issue 28: a dependent of an `up` is skipped as `unchanged` only while the shared backend proves
//! its stack is as the runner's last `up` left it and nothing that `up` read has changed. A sweep
//! of the ways a stack or its inputs change behind the runner's back, against the real `pulumi`
//! on the shipped `local` provider, on the file backend and on S3 (versitygw on loopback).
//!
//! Each case starts from a deployed state in which `kubernetes/certmgr` (a dependent of the
//! cluster and of the registry) is proven unchanged, applies one change, and runs
//! `up --only infrastructure/cluster --with-dependents`: certmgr must run. The control run after
//! every case proves the state was restored (certmgr skipped again), so the change, and nothing
//! left over, is what made it run.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::object_store::{ObjectStore, ACCESS_KEY, BUCKET, SECRET_KEY};
use crate::support::{copy_tree, path_with, real_pulumi_dir, stash_local, RunOutput, Workspace};
use crate::unchanged_test::{edit, git, results};

const CERTMGR: &str = "kubernetes/certmgr";
const PASSPHRASE: &str = "local-dev-passphrase";
const SAME: &str = "outputs of infrastructure/cluster, infrastructure/registry are the same";
/// The certmgr program reads a file through a folder symlinked into its project folder.
const READ_VALUES: &str = "resources:\n  values:\n    type: pulumi:index:Stash\n    properties:\n      input:\n        fn::readFile: ./shared/values.txt\n";

/// A deployed `local` provider in a git repository, with a `pulumi` on PATH that logs every
/// invocation, and what it takes to run the real `pulumi` by hand on the same backend.
struct Deployment {
    workspace: Workspace,
    /// The backend as `pulumi` by hand (another checkout) reaches it.
    backend_url: String,
    /// Outside the repository: another checkout, the folder symlinked into certmgr.
    outside: tempfile::TempDir,
    /// Where the backend's objects are files: `.runner/backend`, or the store's bucket folder.
    state: PathBuf,
    _store: Option<ObjectStore>,
}

impl Deployment {
    /// The repository (file backend when `store` is `None`), deployed once with `up`.
    fn new(store: Option<ObjectStore>) -> Self {
        let outside = tempfile::tempdir().unwrap();
        let mut workspace = Workspace::new();
        copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
        std::fs::copy(stash_local().join("providers/local.toml"), workspace.path("providers/local.toml")).unwrap();
        let example = std::fs::read_to_string(stash_local().join("config/pulumi/environment.example")).unwrap();
        let mut environment = example.replace("KUBECONFIG=.runner/kube/config", "KUBECONFIG=home/kube/config");
        environment.push_str("BUILD_VERSION=2026.11.1\n");
        let backend_url = match &store {
            Some(store) => {
                environment.push_str(&format!("PULUMI_BACKEND_URL={}\n", store.url(BUCKET)));
                store.url(BUCKET)
            }
            None => format!("file://{}", workspace.path(".runner/backend").display()),
        };
        workspace.env_file(&environment);
        workspace.file(".gitignore", ".runner/\nhome/\nconfig/pulumi/Pulumi.dev.yaml\n*.json\n");

        // A folder outside the repository, symlinked into certmgr's project folder and read by its program.
        let shared = outside.path().join("shared");
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::write(shared.join("values.txt"), "replicas: 1\n").unwrap();
        std::os::unix::fs::symlink(&shared, workspace.path("projects/local/kubernetes/certmgr/shared")).unwrap();
        edit(&workspace, "projects/local/kubernetes/certmgr/Pulumi.yaml", "resources:\n", READ_VALUES);

        // Every `pulumi` the runner starts, logged as "$PWD $*".
        let shim = workspace.path("home/shim");
        std::fs::create_dir_all(&shim).unwrap();
        let script = format!(
            "#!/bin/sh\nprintf '%s %s\\n' \"$PWD\" \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            workspace.path("home/pulumi-calls.log").display(),
            real_pulumi_dir().join("pulumi").display()
        );
        std::fs::write(shim.join("pulumi"), script).unwrap();
        let mut permissions = std::fs::metadata(shim.join("pulumi")).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(shim.join("pulumi"), permissions).unwrap();
        let path = format!("{}:{}", shim.display(), path_with(&real_pulumi_dir()));
        let home = workspace.path("home");
        workspace.set_env("PATH", path).set_env("HOME", home.display().to_string());
        if store.is_some() {
            workspace.set_env("AWS_ACCESS_KEY_ID", ACCESS_KEY).set_env("AWS_SECRET_ACCESS_KEY", SECRET_KEY);
        }

        // Two commits, so `--affected` has `HEAD~1` and sees only what the test changes after.
        git(&workspace, &["init", "-q", "-b", "main"]);
        git(&workspace, &["add", "-A"]);
        git(&workspace, &["commit", "-q", "-m", "first"]);
        workspace.file("README.md", "hello\n");
        git(&workspace, &["add", "-A"]);
        git(&workspace, &["commit", "-q", "-m", "second"]);

        let state = match &store {
            Some(store) => store.root.join(BUCKET),
            None => workspace.path(".runner/backend"),
        };
        let deployment = Self { workspace, backend_url, outside, state, _store: store };
        let (report, output) = deployment.up(&[], "deploy.json");
        assert!(results(&report).iter().all(|r| r.1 == "succeeded"), "{}", output.stderr());
        deployment
    }

    #[track_caller]
    fn up(&self, extra: &[&str], report: &str) -> (Value, RunOutput) {
        let target = format!("json={report}");
        let mut args = vec!["up", "--provider", "local", "--stack", "dev", "--non-interactive", "--report", &target];
        args.extend_from_slice(extra);
        let output = self.workspace.run(&args);
        assert_eq!(output.code(), 0, "runner {args:?}\n{}", output.stderr());
        let json = serde_json::from_str(&std::fs::read_to_string(self.workspace.path(report)).unwrap()).unwrap();
        (json, output)
    }

    /// `up --only infrastructure/cluster --with-dependents`: certmgr's result and reason.
    #[track_caller]
    fn cluster_with_dependents(&self, report: &str) -> (String, String, RunOutput) {
        let (report, output) = self.up(&["--only", "infrastructure/cluster", "--with-dependents"], report);
        let results = results(&report);
        let of = |project: &str| results.iter().find(|r| r.0 == project).cloned();
        let cluster = of("infrastructure/cluster").expect("the cluster is in the run");
        assert_eq!(cluster.1, "succeeded", "{}", output.stderr());
        let (_, result, reason) = of(CERTMGR).expect("certmgr is in the run");
        (result, reason, output)
    }

    /// The real `pulumi` by hand (no runner, no `--message`), in `dir`, on the same backend.
    #[track_caller]
    fn pulumi_by_hand(&self, dir: &Path, args: &[&str]) {
        let mut command = Command::new(real_pulumi_dir().join("pulumi"));
        command
            .args(args)
            .current_dir(dir)
            .env("PATH", path_with(&real_pulumi_dir()))
            .env("PULUMI_BACKEND_URL", &self.backend_url)
            .env("PULUMI_CONFIG_PASSPHRASE", PASSPHRASE)
            .env("PULUMI_SKIP_UPDATE_CHECK", "true")
            .env("HOME", self.workspace.path("home"))
            .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
            .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
            .env_remove("PULUMI_STACK")
            .env_remove("KUBECONFIG");
        let output = command.output().unwrap();
        assert!(
            output.status.success(),
            "pulumi {args:?} in {}:\n{}\n{}",
            dir.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// `pulumi <operation>` by hand on `project`'s stack in this checkout.
    #[track_caller]
    fn by_hand_here(&self, project: &str, operation: &str) {
        let name = manifest_name(&self.workspace.path(&format!("projects/local/{project}")));
        let stack = format!("organization/{name}/dev");
        let config = self.workspace.path("config/pulumi/Pulumi.dev.yaml");
        let dir = self.workspace.path(&format!("projects/local/{project}"));
        let config = config.display().to_string();
        self.pulumi_by_hand(&dir, &[operation, "--yes", "--skip-preview", "--stack", &stack, "--config-file", &config]);
    }

    /// Another checkout of the repository (its own copy of the registry and of the shared stack
    /// file, made on first use and kept), whose registry program is edited from `from` to `to`
    /// and deployed by hand on the same backend.
    #[track_caller]
    fn registry_up_in_another_checkout(&self, from: &str, to: &str) {
        let other = self.outside.path().join("other-checkout");
        let registry = other.join("projects/local/infrastructure/registry");
        let config = other.join("config/pulumi/Pulumi.dev.yaml");
        if !registry.exists() {
            copy_tree(&self.workspace.path("projects/local/infrastructure/registry"), &registry);
            std::fs::create_dir_all(other.join("config/pulumi")).unwrap();
            std::fs::copy(self.workspace.path("config/pulumi/Pulumi.dev.yaml"), &config).unwrap();
        }
        let program = registry.join("Pulumi.yaml");
        let text = std::fs::read_to_string(&program).unwrap();
        assert!(text.contains(from), "the registry's program has no `{from}`");
        std::fs::write(&program, text.replacen(from, to, 1)).unwrap();
        let config = config.display().to_string();
        let args =
            ["up", "--yes", "--skip-preview", "--stack", "organization/local-registry/dev", "--config-file", &config];
        self.pulumi_by_hand(&registry, &args);
    }

    /// The newest update record of a project's stack in the backend, as Pulumi wrote it.
    fn latest_record(&self, project: &str) -> Value {
        let name = manifest_name(&self.workspace.path(&format!("projects/local/{project}")));
        let folder = self.state.join(format!(".pulumi/history/{name}/dev"));
        let newest = std::fs::read_dir(&folder)
            .unwrap()
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|file| file.ends_with(".history.json"))
            .max_by_key(|file| file.trim_start_matches("dev-").split('.').next().unwrap().parse::<u128>().unwrap())
            .unwrap();
        serde_json::from_str(&std::fs::read_to_string(folder.join(newest)).unwrap()).unwrap()
    }

    /// Every project file, config file and installed plugin, content included: what the runner
    /// fingerprints besides the environment and the `pulumi` binary.
    fn inputs(&self) -> Vec<(String, Vec<u8>)> {
        let mut files = Vec::new();
        for folder in ["projects", "config", "home/.pulumi/plugins"] {
            let mut found = Vec::new();
            if self.workspace.path(folder).exists() {
                walk(&self.workspace.path(folder), &mut found);
            }
            for file in found {
                let name = file.strip_prefix(self.workspace.root()).unwrap().display().to_string();
                files.push((name, std::fs::read(&file).unwrap()));
            }
        }
        files.sort();
        files
    }

    fn calls(&self) -> String {
        std::fs::read_to_string(self.workspace.path("home/pulumi-calls.log")).unwrap_or_default()
    }
}

/// Files under `dir`, through symlinked folders as the runner reads them.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn manifest_name(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("Pulumi.yaml")).unwrap();
    text.lines().find_map(|line| line.strip_prefix("name: ")).unwrap().trim().to_string()
}

/// One change made behind the runner's back, and what certmgr must do in the next `up`.
struct Case {
    name: &'static str,
    change: fn(&Deployment),
    /// Whether the change may touch the repository's inputs (the environment file, a file read
    /// by the program); when not, the test checks it did not, so only the backend changed.
    touches_inputs: bool,
    certmgr: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "certmgr destroyed",
        change: |d| {
            let args = ["destroy", "--provider", "local", "--stack", "dev", "--only", CERTMGR];
            let output = d.workspace.run(&[&args[..], &["--non-interactive", "--yes"]].concat());
            assert_eq!(output.code(), 0, "{}", output.stderr());
            assert_eq!(d.latest_record(CERTMGR)["kind"], "destroy");
        },
        touches_inputs: false,
        certmgr: "succeeded",
    },
    Case {
        name: "another checkout changed the registry's outputs",
        change: |d| d.registry_up_in_another_checkout("value: local-dev\n", "value: local-dev-other\n"),
        touches_inputs: false,
        certmgr: "succeeded",
    },
    Case {
        name: "certmgr's latest update is a `pulumi up` by hand",
        change: |d| {
            d.by_hand_here(CERTMGR, "up");
            let record = d.latest_record(CERTMGR);
            assert_eq!((&record["kind"], &record["result"]), (&"update".into(), &"succeeded".into()), "{record}");
            assert!(!record["message"].as_str().unwrap_or_default().contains("runner up"), "{record}");
        },
        touches_inputs: false,
        certmgr: "succeeded",
    },
    Case {
        name: "SYSTEM_ACCESS_TOKEN added to the environment file",
        change: |d| {
            let text = std::fs::read_to_string(d.workspace.path("config/pulumi/environment")).unwrap();
            d.workspace.env_file(&format!("{text}SYSTEM_ACCESS_TOKEN=token-one\n"));
        },
        touches_inputs: true,
        certmgr: "succeeded",
    },
    Case {
        name: "SYSTEM_ACCESS_TOKEN changed in the environment file",
        change: |d| {
            edit(
                &d.workspace,
                "config/pulumi/environment",
                "SYSTEM_ACCESS_TOKEN=token-one",
                "SYSTEM_ACCESS_TOKEN=token-two",
            )
        },
        touches_inputs: true,
        certmgr: "succeeded",
    },
    Case {
        name: "BUILD_VERSION changed in the environment file",
        change: |d| {
            edit(&d.workspace, "config/pulumi/environment", "BUILD_VERSION=2026.11.1", "BUILD_VERSION=2026.11.2")
        },
        touches_inputs: true,
        certmgr: "succeeded",
    },
    Case {
        name: "a file read through a folder symlinked into certmgr changed",
        change: |d| std::fs::write(d.outside.path().join("shared/values.txt"), "replicas: 2\n").unwrap(),
        touches_inputs: true,
        certmgr: "succeeded",
    },
    Case {
        name: "a `pulumi refresh` by hand of certmgr that changed nothing",
        change: |d| {
            d.by_hand_here(CERTMGR, "refresh");
            let record = d.latest_record(CERTMGR);
            assert_eq!((&record["kind"], &record["result"]), (&"refresh".into(), &"succeeded".into()), "{record}");
            let changes = record["resourceChanges"].as_object().unwrap();
            assert!(changes.iter().all(|(kind, count)| kind == "same" || count == 0), "{record}");
        },
        touches_inputs: false,
        certmgr: "unchanged",
    },
    Case {
        name: "a `pulumi refresh` by hand of certmgr that changed its state",
        change: |d| {
            // An output certmgr does not read: on its own, certmgr is still skipped...
            d.registry_up_in_another_checkout("outputs:\n", "outputs:\n  owner: another checkout\n");
            let (result, reason, output) = d.cluster_with_dependents("unread-output.json");
            assert_eq!((result.as_str(), reason.as_str()), ("unchanged", SAME), "{}", output.stderr());
            // ...until a refresh reads the new outputs into its stack reference.
            d.by_hand_here(CERTMGR, "refresh");
            let record = d.latest_record(CERTMGR);
            assert_eq!((&record["kind"], &record["result"]), (&"refresh".into(), &"succeeded".into()), "{record}");
            assert_eq!(record["resourceChanges"]["update"], 1, "the refresh changed the stack reference: {record}");
        },
        touches_inputs: false,
        certmgr: "succeeded",
    },
];

/// The control: nothing certmgr reads changed, so it is skipped, and says why.
#[track_caller]
fn control(deployment: &Deployment, index: usize, after: &str) {
    let (result, reason, output) = deployment.cluster_with_dependents(&format!("control-{index}.json"));
    assert_eq!(
        (result.as_str(), reason.as_str()),
        ("unchanged", SAME),
        "control after `{after}`: certmgr is not skipped\n{}",
        output.stderr()
    );
}

/// An `--affected` up after a change no output reads: one `pulumi up` (the network's), and not
/// one `pulumi` process for the projects skipped.
fn affected_control(deployment: &Deployment) {
    let workspace = &deployment.workspace;
    std::fs::write(workspace.path("home/pulumi-calls.log"), "").unwrap();
    edit(
        workspace,
        "projects/local/infrastructure/network/Pulumi.yaml",
        "resources:\n",
        "resources:\n  note:\n    type: pulumi:index:Stash\n    properties:\n      input: a note no output reads\n",
    );
    let (report, output) = deployment.up(&["--affected"], "affected.json");
    assert_eq!(
        results(&report),
        [
            (
                "infrastructure/cluster".into(),
                "unchanged".into(),
                "outputs of infrastructure/network are the same".into()
            ),
            ("infrastructure/network".into(), "succeeded".into(), String::new()),
            (
                "kubernetes/applications/demo".into(),
                "unchanged".into(),
                "outputs of infrastructure/cluster, kubernetes/certmgr, utility/demo-image are the same".into()
            ),
            (CERTMGR.into(), "unchanged".into(), SAME.into()),
        ],
        "{}",
        output.stderr()
    );
    let calls = deployment.calls();
    let root = workspace.root().display().to_string();
    let seen: Vec<String> = calls.lines().map(|line| line.replace(&root, "[ROOT]")).collect();
    eprintln!("pulumi processes of the --affected control:\n{}", seen.join("\n"));
    let ups: Vec<&String> = seen.iter().filter(|line| line.split(' ').nth(1) == Some("up")).collect();
    assert_eq!(ups.len(), 1, "exactly one `pulumi up`; all the processes:\n{}", seen.join("\n"));
    assert!(ups[0].starts_with("[ROOT]/projects/local/infrastructure/network "), "{}", seen.join("\n"));
    let skipped = ["infrastructure/cluster", CERTMGR, "kubernetes/applications/demo"];
    let for_skipped: Vec<&String> = seen
        .iter()
        .filter(|line| skipped.iter().any(|project| line.starts_with(&format!("[ROOT]/projects/local/{project} "))))
        .collect();
    assert!(
        for_skipped.is_empty(),
        "`pulumi` ran for skipped projects: {for_skipped:#?}\nall the processes:\n{}",
        seen.join("\n")
    );
    let others: Vec<&String> = seen.iter().filter(|line| line.split(' ').nth(1) != Some("up")).collect();
    assert!(others.is_empty(), "`pulumi` processes besides the one `up`:\n{}", seen.join("\n"));
}

fn sweep(deployment: Deployment) {
    let started = std::time::Instant::now();
    affected_control(&deployment);
    control(&deployment, 0, "deploy");
    let mut wrong = Vec::new();
    for (index, case) in CASES.iter().enumerate() {
        let before = deployment.inputs();
        (case.change)(&deployment);
        if !case.touches_inputs {
            assert!(deployment.inputs() == before, "`{}` changed a file of the repository", case.name);
        }
        let (result, reason, output) = deployment.cluster_with_dependents(&format!("case-{index}.json"));
        eprintln!("case `{}`: certmgr {result} {reason}", case.name);
        if result != case.certmgr {
            wrong.push(format!(
                "`{}`: certmgr {result} ({reason}), expected {}\n{}",
                case.name,
                case.certmgr,
                output.stderr()
            ));
        }
        control(&deployment, index + 1, case.name);
    }
    eprintln!("sweep took {:?}", started.elapsed());
    assert!(wrong.is_empty(), "cases where certmgr was wrongly skipped or run:\n{}", wrong.join("\n\n"));
}

#[test]
fn ext_every_change_behind_the_runners_back_runs_the_dependent_on_a_file_backend() {
    sweep(Deployment::new(None));
}

#[test]
fn ext_every_change_behind_the_runners_back_runs_the_dependent_on_an_s3_backend() {
    let scratch = tempfile::tempdir().unwrap();
    let store = ObjectStore::start(&scratch.path().join("store"));
    sweep(Deployment::new(Some(store)));
}
