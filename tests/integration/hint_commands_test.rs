//! Every `runner ...` command the runner prints as a hint (in an error, a warning, a footer or a
//! `next:` line) runs as printed: harvested from the output of many scenarios, each is run in the
//! same workspace and must not be refused as a usage error (a missing `--provider`, say).

use std::collections::BTreeSet;

use crate::support::{copy_tree, path_with, real_pulumi_dir, stash_local, RunOutput, Workspace, BRANCHES};

/// The commands quoted in backticks that start with `runner `.
pub(crate) fn harvested_commands(text: &str) -> BTreeSet<String> {
    text.split('`').skip(1).step_by(2).filter(|quoted| quoted.starts_with("runner ")).map(str::to_string).collect()
}

fn is_usage_error(output: &RunOutput) -> bool {
    let stderr = output.stderr();
    output.code() == 2
        && ["Usage: runner", "required arguments were not provided", "unexpected argument", "unknown project"]
            .iter()
            .any(|needle| stderr.contains(needle))
}

/// Runs every scenario, harvests the hints, and runs each of them as printed.
fn check_hints(workspace: &Workspace, scenarios: &[&[&str]]) -> BTreeSet<String> {
    let mut hints = BTreeSet::new();
    for args in scenarios {
        let output = workspace.run(args);
        hints.extend(harvested_commands(&format!("{}\n{}", output.stdout(), output.stderr())));
    }
    for hint in &hints {
        let args: Vec<&str> = hint.split_whitespace().skip(1).collect();
        let output = workspace.run(&args);
        assert!(!is_usage_error(&output), "`{hint}` fails as printed:\n{}", output.stderr());
    }
    hints
}

fn local_workspace() -> Workspace {
    let mut workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    std::fs::copy(stash_local().join("providers/local.toml"), workspace.path("providers/local.toml")).unwrap();
    let home = workspace.path("home");
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    workspace
}

#[test]
fn ext_hints_of_configuration_and_selection_errors_run_as_printed() {
    let workspace = local_workspace();
    let hints = check_hints(
        &workspace,
        &[
            &["validate", "--provider", "local", "--stack", "ci"],
            &["up", "--provider", "local", "--stack", "ci", "--non-interactive"],
            &["up", "--provider", "local", "--stack", "ci", "--only", "nosuch"],
            &["show", "--provider", "local", "--only", "infrastructure/clustr"],
            &["preview", "--provider", "local", "--stack", "ci", "--from", "nosuch"],
            &["timeline"],
            &["timeline", "nosuch"],
            &["history"],
        ],
    );
    for expected in [
        "runner config set --secret local:cluster_token --provider local --stack ci --project infrastructure/cluster",
        "runner show --provider local",
    ] {
        assert!(hints.contains(expected), "{expected:?} not among {hints:#?}");
    }
}

#[test]
fn hints_of_a_failed_and_an_interrupted_run_run_as_printed() {
    let script = r#"{"projects": {"b": {"fail": "boom", "fail_on": ["up"]}}}"#;
    let workspace = Workspace::with_fake_pulumi(BRANCHES, &["a", "b", "c", "d"], script);
    let hints = check_hints(
        &workspace,
        &[
            &["up", "--provider", "demo", "--stack", "dev", "--non-interactive"],
            &["history"],
            &["status", "--provider", "demo", "--stack", "dev"],
        ],
    );
    assert!(hints.iter().any(|hint| hint.ends_with("--resume")), "no resume hint among {hints:#?}");
}

/// `config set --secret` on a stack that does not exist yet makes it in the project that keeps
/// the secrets (real `pulumi`): it says which, the second time it says nothing.
#[test]
fn ext_a_secret_on_a_new_stack_says_which_stack_it_creates() {
    let workspace = local_workspace();
    workspace.env_file("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=new-stack-1234\n");
    let set = || {
        let output = workspace
            .command(&[
                "config",
                "set",
                "--secret",
                "local:cluster_token",
                "--provider",
                "local",
                "--stack",
                "dev",
                "--project",
                "infrastructure/cluster",
            ])
            .write_stdin("token-value-1234\n")
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let first = set();
    assert!(first.contains("note: creating stack `dev` of project `"), "{first}");
    let second = set();
    assert!(!second.contains("creating stack"), "{second}");
}
