//! Dependents whose upstream outputs did not change are skipped, against the real `pulumi` on
//! the shipped `local` provider.

use std::process::Command;

use serde_json::Value;

use crate::support::{copy_tree, path_with, real_pulumi_dir, stash_local, RunOutput, Workspace};

const TOKEN: &str = "unchanged-test-cluster-token";

pub(crate) fn git(workspace: &Workspace, args: &[&str]) {
    let output = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(workspace.root())
        .env("HOME", workspace.root())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

/// The `local` provider in a git repository with two commits (so `--affected` has `HEAD~1`),
/// its kubeconfig written outside `.runner/` and its cluster token a value to look for.
fn local_repository() -> Workspace {
    let mut workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    std::fs::copy(stash_local().join("providers/local.toml"), workspace.path("providers/local.toml")).unwrap();
    let example = std::fs::read_to_string(stash_local().join("config/pulumi/environment.example")).unwrap();
    let environment = example
        .replace("KUBECONFIG=.runner/kube/config", "KUBECONFIG=home/kube/config")
        .replace("LOCAL_CLUSTER_TOKEN=local-dev-fake-token", &format!("LOCAL_CLUSTER_TOKEN={TOKEN}"));
    workspace.env_file(&environment);
    workspace.file(".gitignore", ".runner/\nhome/\nconfig/pulumi/Pulumi.dev.yaml\n*.json\n");
    let home = workspace.path("home");
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    git(&workspace, &["init", "-q", "-b", "main"]);
    git(&workspace, &["add", "-A"]);
    git(&workspace, &["commit", "-q", "-m", "first"]);
    workspace.file("README.md", "hello\n");
    git(&workspace, &["add", "-A"]);
    git(&workspace, &["commit", "-q", "-m", "second"]);
    workspace
}

#[track_caller]
fn up(workspace: &Workspace, extra: &[&str], report: &str) -> (Value, RunOutput) {
    let mut args = vec!["up", "--provider", "local", "--stack", "dev", "--report"];
    let target = format!("json={report}");
    args.push(&target);
    args.extend_from_slice(extra);
    let output = workspace.run(&args);
    assert_eq!(output.code(), 0, "{}", output.stderr());
    let json = serde_json::from_str(&std::fs::read_to_string(workspace.path(report)).unwrap()).unwrap();
    (json, output)
}

/// Each project's result and reason.
pub(crate) fn results(report: &Value) -> Vec<(String, String, String)> {
    let mut results: Vec<(String, String, String)> = report["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let text = |key: &str| p[key].as_str().unwrap_or_default().to_string();
            (text("project"), text("result"), text("reason"))
        })
        .collect();
    results.sort();
    results
}

pub(crate) fn edit(workspace: &Workspace, file: &str, from: &str, to: &str) {
    let path = workspace.path(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file} has no `{from}`");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn ext_an_affected_up_runs_only_what_sees_a_changed_output() {
    let workspace = local_repository();
    up(&workspace, &[], "first.json");

    // A resource the outputs do not read: only the network runs.
    edit(
        &workspace,
        "projects/local/infrastructure/network/Pulumi.yaml",
        "resources:\n",
        "resources:\n  note:\n    type: pulumi:index:Stash\n    properties:\n      input: a note no output reads\n",
    );
    let (report, output) = up(&workspace, &["--affected"], "same.json");
    let same = "outputs of infrastructure/network are the same".to_string();
    assert_eq!(
        results(&report),
        [
            ("infrastructure/cluster".into(), "unchanged".into(), same),
            ("infrastructure/network".into(), "succeeded".into(), String::new()),
            (
                "kubernetes/applications/demo".into(),
                "unchanged".into(),
                "outputs of infrastructure/cluster, kubernetes/certmgr, utility/demo-image are the same".into()
            ),
            (
                "kubernetes/certmgr".into(),
                "unchanged".into(),
                "outputs of infrastructure/cluster, infrastructure/registry are the same".into()
            ),
        ],
        "{}",
        output.stderr()
    );
    assert!(output.stdout().contains("unchanged"), "{}", output.stdout());
    let runs = workspace.run(&["status", "--provider", "local", "--stack", "dev"]);
    assert!(runs.stdout().contains("unchanged"), "{}", runs.stdout());

    // The output the cluster reads: the cluster runs, and its own outputs stay as they were.
    edit(
        &workspace,
        "projects/local/infrastructure/network/Pulumi.yaml",
        "value: local-dev-net",
        "value: local-dev-net-2",
    );
    let (report, output) = up(&workspace, &["--affected"], "changed.json");
    let changed = results(&report);
    let result = |project: &str| changed.iter().find(|r| r.0 == project).unwrap().1.clone();
    assert_eq!(result("infrastructure/network"), "succeeded", "{}", output.stderr());
    assert_eq!(result("infrastructure/cluster"), "succeeded", "{}", output.stderr());
    assert_eq!(result("kubernetes/certmgr"), "unchanged", "reads only the cluster's name and the registry");

    // `--no-skip-unchanged` runs them all.
    let (report, _) = up(&workspace, &["--affected", "--no-skip-unchanged"], "all.json");
    assert!(results(&report).iter().all(|r| r.1 == "succeeded"), "{report}");

    // What each `up` was made with is kept in the backend, as a salted digest in the update's
    // message: no secret (the token, the passphrase) in plain text anywhere under `.runner/`.
    let mut fingerprints = 0;
    for file in workspace.listing().into_iter().filter(|file| file.starts_with(".runner/")) {
        let text = std::fs::read(workspace.path(&file)).unwrap_or_default();
        let text = String::from_utf8_lossy(&text);
        assert!(!text.contains(TOKEN), "the cluster token is in {file}");
        assert!(!text.contains("local-dev-passphrase"), "the passphrase is in {file}");
        if file.ends_with(".history.json") && text.contains("runner up; inputs sha256:") {
            fingerprints += 1;
        }
    }
    assert!(fingerprints >= 6, "every `up` keeps its fingerprint in the backend: {fingerprints}");
    assert!(!workspace.path(".runner/last-seen").exists(), "no local memory stands in for the proof");
}

/// The projects the test double ran `up` in, in order, since `from` invocations.
fn fake_ups(workspace: &Workspace) -> Vec<String> {
    workspace
        .fake_invocations()
        .into_iter()
        .filter(|entry| entry["event"] == "start" && entry["op"] == "up")
        .map(|entry| entry["project"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn fake_run(workspace: &Workspace, args: &[&str]) -> (Vec<String>, RunOutput) {
    let _ = std::fs::remove_file(workspace.path("fake-state/invocations.jsonl"));
    let mut all = vec!["up", "--provider", "demo", "--stack", "dev"];
    all.extend_from_slice(args);
    let output = workspace.run(&all);
    (fake_ups(workspace), output)
}

#[test]
fn with_dependents_and_resume_skip_the_unchanged_and_always_run_does_not() {
    let script = |name: &str| format!(r#"{{"projects": {{"a": {{"outputs": {{"name": "{name}"}}}}}}}}"#);
    let workspace = Workspace::with_fake_pulumi(crate::support::BRANCHES, &["a", "b", "c", "d"], &script("one"));
    workspace.env_file("PULUMI_STACK=dev\n");
    let (ups, output) = fake_run(&workspace, &[]);
    assert_eq!(ups.len(), 4, "{}", output.stderr());

    let (ups, output) = fake_run(&workspace, &["--only", "a", "--with-dependents", "--report", "junit=j.xml"]);
    assert_eq!(output.code(), 0, "{}", output.stderr());
    assert_eq!(ups, ["a"], "{}", output.stderr());
    assert!(output.stderr().contains("b unchanged: outputs of a are the same"), "{}", output.stderr());
    assert!(output.stderr().contains("1 succeeded, 2 unchanged"), "{}", output.stderr());
    assert!(!output.stderr().contains("--resume"), "nothing is left to resume: {}", output.stderr());
    let junit = std::fs::read_to_string(workspace.path("j.xml")).unwrap();
    assert!(junit.contains("unchanged: outputs of a are the same"), "{junit}");

    // A changed output of `a`: `b` reads it and runs; `d` reads `b`, whose outputs stayed.
    workspace.file("fake-script.json", script("two"));
    let (ups, output) = fake_run(&workspace, &["--only", "a", "--with-dependents"]);
    assert_eq!(ups, ["a", "b"], "{}", output.stderr());

    // `--resume` after `a` failed: `a` runs again, what waited on it only if it must.
    workspace.file("fake-script.json", r#"{"projects": {"a": {"outputs": {"name": "two"}, "fail": "boom"}}}"#);
    let (_, output) = fake_run(&workspace, &["--only", "a", "--with-dependents"]);
    assert_eq!(output.code(), 1, "{}", output.stderr());
    workspace.file("fake-script.json", script("two"));
    let (ups, output) = fake_run(&workspace, &["--resume"]);
    assert_eq!(ups, ["a"], "{}", output.stderr());

    // An `up` of `b` that failed may have left its stack half updated: the next run runs it.
    let (ups, _) = fake_run(&workspace, &["--only", "a", "--with-dependents"]);
    assert_eq!(ups, ["a"]);
    workspace.file("fake-script.json", r#"{"projects": {"a": {"outputs": {"name": "two"}}, "b": {"fail": "half"}}}"#);
    let (_, output) = fake_run(&workspace, &["--only", "b"]);
    assert_eq!(output.code(), 1, "{}", output.stderr());
    workspace.file("fake-script.json", script("two"));
    let (ups, output) = fake_run(&workspace, &["--only", "a", "--with-dependents"]);
    assert_eq!(ups, ["a", "b"], "{}", output.stderr());

    // A program that reads outside data: `always_run` on it.
    let always =
        crate::support::BRANCHES.replacen("depends_on = [\"a\"]", "depends_on = [\"a\"]\nalways_run = true", 1);
    workspace.provider("demo", &always);
    let (ups, output) = fake_run(&workspace, &["--only", "a", "--with-dependents"]);
    assert_eq!(ups, ["a", "b"], "{}", output.stderr());
}

#[test]
fn ext_a_preview_reads_the_mock_outputs_of_an_upstream_never_deployed_and_up_refuses() {
    let workspace = local_repository();
    let provider = workspace.path("providers/local.toml");
    let text = std::fs::read_to_string(&provider).unwrap().replacen(
        "path = \"infrastructure/network\"\n",
        "path = \"infrastructure/network\"\nmock_outputs = { network_name = \"mock-net\", cidr = \"10.99.0.0/16\" }\n",
        1,
    );
    std::fs::write(&provider, text).unwrap();
    let only = ["--provider", "local", "--stack", "dev", "--only", "infrastructure/cluster"];

    let mut args = vec!["preview", "--report", "markdown=preview.md"];
    args.extend_from_slice(&only);
    let preview = workspace.run(&args);
    assert_eq!(preview.code(), 0, "{}", preview.stderr());
    let mocked = "with mock outputs of infrastructure/network (never deployed)";
    assert!(preview.stderr().contains("infrastructure/cluster succeeded"), "{}", preview.stderr());
    assert!(preview.stderr().contains(mocked), "{}", preview.stderr());
    let markdown = std::fs::read_to_string(workspace.path("preview.md")).unwrap();
    assert!(markdown.contains(mocked), "{markdown}");
    // The mocks reached the program: the pod network it would create is the mocked one.
    let events = workspace
        .listing()
        .into_iter()
        .find(|file| file.ends_with("infrastructure/cluster.events.jsonl"))
        .expect("the preview's event log");
    let events = std::fs::read_to_string(workspace.path(&events)).unwrap();
    assert!(events.contains("10.99.0.0/16"), "the mocked cidr is not in the preview");

    // The preview wrote nothing to the real backend: the cluster's stack is not there.
    let created: Vec<String> = workspace
        .listing()
        .into_iter()
        .filter(|file| file.starts_with(".runner/backend/.pulumi/stacks/local-cluster/"))
        .collect();
    assert!(created.is_empty(), "a mocked preview created {created:?}");

    let mut args = vec!["up"];
    args.extend_from_slice(&only);
    let up = workspace.run(&args);
    assert_eq!(up.code(), 1, "{}", up.stderr());
    assert!(
        up.stderr().contains("`infrastructure/network` never deployed on stack `dev`: `up` never uses `mock_outputs`"),
        "{}",
        up.stderr()
    );
    // Nothing of the mocks reached the real backend. (The network's stack exists, empty: the
    // cluster token was stored with `pulumi config set --secret` through the first project.)
    for file in workspace.listing().into_iter().filter(|file| file.starts_with(".runner/backend/")) {
        let text = String::from_utf8_lossy(&std::fs::read(workspace.path(&file)).unwrap_or_default()).into_owned();
        assert!(!text.contains("mock-net"), "a mock output is in {file}");
    }
}

/// A targeted `up` updates part of a stack: it keeps no fingerprint, so it never proves a later
/// skip of that project.
#[test]
fn a_targeted_up_proves_no_skip() {
    let script = r#"{"projects": {"a": {"outputs": {"name": "one"}}}}"#;
    let workspace = Workspace::with_fake_pulumi(crate::support::BRANCHES, &["a", "b", "c", "d"], script);
    workspace.env_file("PULUMI_STACK=dev\n");
    let (ups, output) = fake_run(&workspace, &[]);
    assert_eq!(ups.len(), 4, "{}", output.stderr());
    let (ups, output) = fake_run(&workspace, &["--only", "b", "--target", "urn:pulumi:dev::b::pulumi:index:Stash::r0"]);
    assert_eq!((ups.as_slice(), output.code()), (["b".to_string()].as_slice(), 0), "{}", output.stderr());
    let (ups, output) = fake_run(&workspace, &["--only", "a", "--with-dependents"]);
    assert_eq!(ups, ["a", "b"], "b's last update was targeted: {}", output.stderr());
}
