//! What the rows and reports count, against the real `pulumi`: the program's resources, never
//! the stack itself; `up` what the program registers, `refresh` every resource it read (the
//! stack reference too), under its own word.

use crate::support::{copy_tree, path_with, real_pulumi_dir, stash_local, Workspace};

fn counts(workspace: &Workspace, report: &str, project: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(workspace.path(report)).unwrap();
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    let projects = report["projects"].as_array().unwrap();
    projects.iter().find(|entry| entry["project"] == project).unwrap()["changes"].clone()
}

#[test]
fn ext_up_and_refresh_count_the_programs_resources_each_in_its_words() {
    let mut workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    std::fs::copy(stash_local().join("providers/local.toml"), workspace.path("providers/local.toml")).unwrap();
    workspace
        .env_file("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=counts-1234\nLOCAL_CLUSTER_TOKEN=cluster-token-1234\n");
    let home = workspace.path("home");
    workspace
        .set_env("PATH", path_with(&real_pulumi_dir()))
        .set_env("HOME", home.display().to_string())
        .set_env("KUBECONFIG", home.join(".kube/config").display().to_string());
    let args = |operation: &str, report: &str| {
        let report = format!("json={report}");
        let mut args: Vec<String> = [operation, "--provider", "local", "--stack", "dev", "--non-interactive"]
            .into_iter()
            .chain(["--only", "infrastructure/cluster", "--with-dependencies", "--report", &report])
            .map(str::to_string)
            .collect();
        if operation == "up" {
            args.push("--no-skip-unchanged".into());
        }
        args
    };
    let run = |operation: &str, report: &str| {
        let args = args(operation, report);
        workspace.run(&args.iter().map(String::as_str).collect::<Vec<_>>()).expect_code(0).stdout()
    };
    run("up", "first.json");
    // One `pulumi:index:Stash` and a stack reference, which `up` only reads.
    assert_eq!(counts(&workspace, "first.json", "infrastructure/cluster")["created"], 1);
    run("up", "again.json");
    let again = counts(&workspace, "again.json", "infrastructure/cluster");
    assert_eq!((again["created"].as_u64(), again["unchanged"].as_u64()), (Some(0), Some(1)), "{again}");
    let table = run("refresh", "refresh.json");
    let refreshed = counts(&workspace, "refresh.json", "infrastructure/cluster");
    assert_eq!(refreshed["unchanged"], 2, "the refresh read the stack reference too: {refreshed}");
    assert!(table.lines().next().unwrap().ends_with("in sync"), "{table}");
}
