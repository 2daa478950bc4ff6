//! The shipped `local` provider, end to end, against the real `pulumi` on a file backend.

use serde_json::Value;

use crate::support::{copy_tree, path_with, real_pulumi_dir, stash_local, Workspace};

fn local_workspace() -> Workspace {
    let mut workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    std::fs::copy(stash_local().join("providers/local.toml"), workspace.path("providers/local.toml")).unwrap();
    let example = std::fs::read_to_string(stash_local().join("config/pulumi/environment.example")).unwrap();
    workspace.env_file(&example);
    let home = workspace.path("home");
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    workspace
}

fn report(workspace: &Workspace, name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(workspace.path(name)).unwrap()).unwrap()
}

fn project<'a>(report: &'a Value, suffix: &str) -> &'a Value {
    report["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["project"].as_str().unwrap().ends_with(suffix))
        .unwrap_or_else(|| panic!("{suffix} not in report"))
}

/// Start and duration are each rounded to the millisecond in the report.
const ROUNDING: f64 = 0.002;

fn span(report: &Value, suffix: &str) -> (f64, f64) {
    let entry = project(report, suffix);
    let start = entry["started"].as_f64().unwrap();
    (start, start + entry["duration"].as_f64().unwrap())
}

#[track_caller]
fn run_ok(workspace: &Workspace, args: &[&str]) -> crate::support::RunOutput {
    let output = workspace.run(args);
    output.expect_code(0);
    output
}

fn kubectl(kubeconfig: &std::path::Path, args: &[&str]) -> String {
    let output = std::process::Command::new("kubectl")
        .args(args)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .env_remove("KUBECONFIG")
        .output()
        .expect("kubectl must be on PATH (see README)");
    assert!(output.status.success(), "kubectl {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

#[test]
fn ext_up_reup_preview_refresh_destroy() {
    let workspace = local_workspace();

    let up = run_ok(
        &workspace,
        &["up", "--provider", "local", "--stack", "dev", "--report", "json=up.json", "--report", "junit=up.xml"],
    );
    let first = report(&workspace, "up.json");
    assert_eq!(first["succeeded"], true, "{}", up.stderr());
    for entry in first["projects"].as_array().unwrap() {
        assert_eq!(entry["result"], "succeeded", "{entry}");
    }
    // The provider marks the application's URL as worth showing at the end of `up`.
    assert!(up.stdout().contains("outputs:\n  kubernetes/applications/demo  url = https://"), "{}", up.stdout());
    // Independent branches really run at the same time.
    let (network_start, network_end) = span(&first, "infrastructure/network");
    let (registry_start, registry_end) = span(&first, "infrastructure/registry");
    assert!(network_start < registry_end && registry_start < network_end, "network and registry did not overlap");
    // Dependencies first: the cluster starts after the network ended.
    assert!(span(&first, "infrastructure/cluster").0 >= network_end - ROUNDING);

    // The kubeconfig hook installed a context that the real kubectl accepts.
    let kubeconfig = workspace.path(".runner/kube/config");
    assert!(kubectl(&kubeconfig, &["config", "get-contexts", "-o", "name"]).lines().any(|name| name == "local-dev"));
    assert_eq!(kubectl(&kubeconfig, &["config", "current-context"]), "local-dev");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&kubeconfig).unwrap().permissions().mode() & 0o777, 0o600);

    // A second up changes nothing.
    run_ok(&workspace, &["up", "--provider", "local", "--stack", "dev", "--report", "json=reup.json"]);
    let second = report(&workspace, "reup.json");
    for entry in second["projects"].as_array().unwrap() {
        let changes = &entry["changes"];
        let changed: u64 =
            ["created", "updated", "deleted", "replaced"].iter().map(|k| changes[k].as_u64().unwrap()).sum();
        assert_eq!(changed, 0, "re-up changed {entry}");
    }

    run_ok(&workspace, &["preview", "--provider", "local", "--stack", "dev"]);
    run_ok(&workspace, &["refresh", "--provider", "local", "--stack", "dev"]);

    run_ok(&workspace, &["destroy", "--provider", "local", "--stack", "dev", "--yes", "--report", "json=destroy.json"]);
    let destroy = report(&workspace, "destroy.json");
    let (_, cluster_end) = span(&destroy, "infrastructure/cluster");
    assert!(
        span(&destroy, "infrastructure/network").0 >= cluster_end - ROUNDING,
        "destroy must remove the cluster before its network"
    );
    let (_, demo_end) = span(&destroy, "applications/demo");
    assert!(span(&destroy, "infrastructure/cluster").0 >= demo_end - ROUNDING, "kubernetes phase is destroyed first");

    // Nothing left: a refresh finds no stacks and a secret value never reached the logs.
    let logs: Vec<String> = workspace.listing().into_iter().filter(|f| f.starts_with(".runner/logs/")).collect();
    for log in logs {
        let text = std::fs::read_to_string(workspace.path(&log)).unwrap_or_default();
        assert!(!text.contains("local-dev-passphrase"), "passphrase leaked into {log}");
    }
}

#[test]
fn ext_a_failing_project_skips_its_dependents_and_the_other_branch_completes() {
    let workspace = local_workspace();
    // Break the registry program: an undefined reference is a program error in Pulumi YAML.
    let registry = workspace.path("projects/local/infrastructure/registry/Pulumi.yaml");
    let text = std::fs::read_to_string(&registry).unwrap();
    std::fs::write(&registry, format!("{text}\n  broken: ${{does_not_exist.value}}\n")).unwrap();
    let output = workspace.run(&["up", "--provider", "local", "--stack", "dev", "--report", "json=failed.json"]);
    output.expect_code(1).expect_stderr_contains("`infrastructure/registry` failed");
    let report = report(&workspace, "failed.json");
    assert_eq!(project(&report, "infrastructure/registry")["result"], "failed");
    assert_eq!(project(&report, "infrastructure/network")["result"], "succeeded");
    assert_eq!(project(&report, "infrastructure/cluster")["result"], "succeeded");
    assert_eq!(project(&report, "applications/demo")["result"], "skipped");
}

/// MARA's classic failure: the cluster destroyed while kubernetes stacks still hold objects in
/// it leaves stacks nothing can destroy any more. Refused, from what the backend holds; the
/// kubernetes projects destroyed first (`--with-dependents`, or by hand) make it allowed.
#[test]
fn ext_destroying_the_cluster_under_kubernetes_stacks_that_hold_resources_is_refused() {
    let workspace = local_workspace();
    workspace.run(&["up", "--provider", "local", "--stack", "dev"]).expect_code(0);
    let cluster_only =
        ["destroy", "--provider", "local", "--stack", "dev", "--yes", "--only", "infrastructure/cluster"];

    let refused = workspace.run(&cluster_only);
    refused.expect_code(2);
    let stderr = refused.stderr();
    assert!(stderr.contains("error: destroying `infrastructure/cluster` would strand what reads from it:"), "{stderr}");
    assert!(stderr.contains("`kubernetes/certmgr` holds ") && stderr.contains("`kubernetes/applications/demo` holds "));
    // The image build needs no cluster: its destroy does not go through it.
    assert!(!stderr.contains("utility/demo-image"), "{stderr}");
    assert!(
        stderr
            .contains("`runner destroy --provider local --stack dev --only infrastructure/cluster --with-dependents`"),
        "{stderr}"
    );
    let status = workspace.run(&["status", "--provider", "local", "--stack", "dev"]);
    assert!(!status.stdout().contains("destroy"), "nothing was destroyed:\n{}", status.stdout());

    // One kubernetes stack emptied by hand: the other still strands.
    workspace
        .run(&["destroy", "--provider", "local", "--stack", "dev", "--yes", "--only", "kubernetes/applications/demo"])
        .expect_code(0);
    let still = workspace.run(&cluster_only);
    still.expect_code(2);
    assert!(still.stderr().contains("`kubernetes/certmgr` holds ") && !still.stderr().contains("applications/demo"));

    let together = workspace.run(&[
        "destroy",
        "--provider",
        "local",
        "--stack",
        "dev",
        "--yes",
        "--only",
        "infrastructure/cluster",
        "--with-dependents",
        "--report",
        "json=together.json",
    ]);
    together.expect_code(0);
    let report = report(&workspace, "together.json");
    assert_eq!(project(&report, "kubernetes/certmgr")["result"], "succeeded");
    assert_eq!(project(&report, "infrastructure/cluster")["result"], "succeeded");
}
