//! Every configuration error names its file (and line), exits 2, and writes nothing.

use crate::support::Workspace;

const TWO_PROJECTS: &str = r#"
description = "two projects"
[[project]]
path = "a"
phase = "infrastructure"

[[project]]
path = "b"
phase = "kubernetes"
depends_on = ["a"]
"#;

fn workspace(provider: &str) -> Workspace {
    let workspace = Workspace::new();
    workspace.provider("demo", provider).project("a").project("b").project("c");
    workspace
}

#[track_caller]
fn expect_error(workspace: &Workspace, args: &[&str], message: &str) {
    let before = workspace.listing();
    let output = workspace.run(args);
    output.expect_code(2).expect_stderr_contains(message);
    assert!(output.stdout().is_empty(), "errors go to stderr, stdout was: {}", output.stdout());
    assert_eq!(workspace.listing(), before, "a failed command must write nothing");
}

#[test]
fn cycle_prints_the_whole_cycle() {
    let provider = r#"
[[project]]
path = "a"
phase = "infrastructure"
depends_on = ["c"]
[[project]]
path = "b"
phase = "infrastructure"
depends_on = ["a"]
[[project]]
path = "c"
phase = "infrastructure"
depends_on = ["b"]
"#;
    expect_error(
        &workspace(provider),
        &["show", "--provider", "demo"],
        "providers/demo.toml:2: dependency cycle: a -> c -> b -> a",
    );
}

#[test]
fn self_dependency_is_named() {
    let provider = "[[project]]\npath = \"a\"\nphase = \"infrastructure\"\ndepends_on = [\"a\"]\n";
    expect_error(
        &workspace(provider),
        &["show", "--provider", "demo"],
        "providers/demo.toml:4: project `a` depends on itself",
    );
}

#[test]
fn unknown_dependency_suggests_the_nearest_name() {
    let provider = "[[project]]\npath = \"network\"\nphase = \"infrastructure\"\n[[project]]\npath = \"a\"\nphase = \"infrastructure\"\ndepends_on = [\"netwrk\"]\n";
    let workspace = workspace(provider);
    workspace.project("network");
    expect_error(
        &workspace,
        &["show", "--provider", "demo"],
        "providers/demo.toml:7: project `a` depends on unknown project `netwrk` (did you mean `network`?)",
    );
}

#[test]
fn duplicate_project_names_both_places() {
    let provider = "[[project]]\npath = \"a\"\nphase = \"infrastructure\"\n\n[[project]]\npath = \"a/\"\nphase = \"infrastructure\"\n";
    expect_error(
        &workspace(provider),
        &["show", "--provider", "demo"],
        "providers/demo.toml:5: project `a` is declared twice (first at `",
    );
}

#[test]
fn path_escaping_the_projects_root_is_refused() {
    let provider = "[[project]]\npath = \"../outside\"\nphase = \"infrastructure\"\n";
    expect_error(
        &workspace(provider),
        &["show", "--provider", "demo"],
        "providers/demo.toml:2: project path `../outside` escapes the projects root",
    );
}

#[test]
fn missing_pulumi_yaml_names_the_folder() {
    let provider = "[[project]]\npath = \"nowhere\"\nphase = \"infrastructure\"\n";
    expect_error(
        &workspace(provider),
        &["show", "--provider", "demo"],
        "providers/demo.toml:1: project `nowhere` has no `Pulumi.yaml` in",
    );
}

#[test]
fn infrastructure_cannot_depend_on_kubernetes() {
    let provider = "[[project]]\npath = \"a\"\nphase = \"kubernetes\"\n[[project]]\npath = \"b\"\nphase = \"infrastructure\"\ndepends_on = [\"a\"]\n";
    expect_error(
        &workspace(provider),
        &["show", "--provider", "demo"],
        "providers/demo.toml:7: infrastructure project `b` depends on kubernetes project `a`",
    );
}

#[test]
fn unknown_provider_suggests_a_name() {
    expect_error(
        &workspace(TWO_PROJECTS),
        &["show", "--provider", "dem"],
        "unknown provider `dem` (did you mean `demo`?)",
    );
}

#[test]
fn unknown_key_in_provider_names_line() {
    let provider = "[[project]]\npath = \"a\"\nphase = \"infrastructure\"\ncolour = \"blue\"\n";
    expect_error(
        &workspace(provider),
        &["show", "--provider", "demo"],
        "providers/demo.toml:4: unknown field `colour`",
    );
}

#[test]
fn wrong_phase_value_names_line() {
    let provider = "[[project]]\npath = \"a\"\nphase = \"infra\"\n";
    expect_error(
        &workspace(provider),
        &["show", "--provider", "demo"],
        "providers/demo.toml:3: unknown variant `infra`",
    );
}

#[test]
fn environment_duplicate_key_names_line() {
    let workspace = workspace(TWO_PROJECTS);
    workspace.env_file("PULUMI_STACK=foo\nPULUMI_STACK=bar\n");
    expect_error(
        &workspace,
        &["validate", "--provider", "demo"],
        "config/pulumi/environment:2: `PULUMI_STACK` is set twice (first on line 1)",
    );
}

#[test]
fn environment_line_without_assignment_names_line() {
    let workspace = workspace(TWO_PROJECTS);
    workspace.env_file("PULUMI_STACK=dev\nthis is not an assignment\n");
    expect_error(
        &workspace,
        &["validate", "--provider", "demo"],
        "config/pulumi/environment:2: `this is not an assignment` is not an assignment",
    );
}

#[test]
fn stack_flag_and_environment_must_agree() {
    let workspace = workspace(TWO_PROJECTS);
    workspace.env_file("PULUMI_STACK=dev\n");
    expect_error(
        &workspace,
        &["validate", "--provider", "demo", "--stack", "prod"],
        "stack `prod` from `--stack` differs from `PULUMI_STACK=dev`",
    );
}

#[test]
fn infra_type_must_match_the_provider() {
    let workspace = workspace(&format!("infra_type = \"AWS\"\n{TWO_PROJECTS}"));
    workspace.stack_file("dev", "config:\n  aws:region: us-east-1\n  kubernetes:infra_type: DO\n");
    expect_error(
        &workspace,
        &["validate", "--provider", "demo", "--stack", "dev"],
        "Pulumi.dev.yaml:3: `kubernetes:infra_type` is `DO` but provider `demo` expects `AWS`",
    );
}

#[test]
fn invalid_stack_yaml_names_the_file() {
    let workspace = workspace(TWO_PROJECTS);
    workspace.stack_file("dev", "config:\n  a: [unclosed\n");
    expect_error(&workspace, &["validate", "--provider", "demo", "--stack", "dev"], "config/pulumi/Pulumi.dev.yaml:");
}

#[test]
fn missing_required_keys_are_all_listed() {
    let provider = format!("{TWO_PROJECTS}\n[[config]]\nkey = \"aws:region\"\ndefault_env = \"AWS_DEFAULT_REGION\"\n[[config]]\nkey = \"aws:profile\"\n");
    let workspace = workspace(&provider);
    let output = workspace
        .command(&["validate", "--provider", "demo", "--stack", "dev"])
        .env_remove("AWS_DEFAULT_REGION")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("`aws:region`") && stderr.contains("`aws:profile`"), "{stderr}");
    assert!(stderr.contains("or set `AWS_DEFAULT_REGION`"), "{stderr}");
}

#[test]
fn no_root_found_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let output =
        assert_cmd::Command::cargo_bin("runner").unwrap().current_dir(dir.path()).args(["providers"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no repository root found"));
}

#[test]
fn usage_errors_exit_2() {
    let workspace = workspace(TWO_PROJECTS);
    workspace.run(&["show"]).expect_code(2);
    workspace.run(&["up", "--provider", "demo", "--parallelism", "0"]).expect_code(2);
    workspace
        .run(&["up", "--provider", "demo", "--report", "xml=out"])
        .expect_code(2)
        .expect_stderr_contains("unknown report kind `xml`");
}

#[test]
fn help_teaches_and_exits_0() {
    let workspace = workspace(TWO_PROJECTS);
    let output = workspace.run(&["--help"]);
    output.expect_code(0);
    for command in ["providers", "show", "validate", "up", "preview", "refresh", "destroy", "Exit codes"] {
        assert!(output.stdout().contains(command), "--help lacks {command}");
    }
}

/// Errors show paths as the footer does, relative to where the user stands: the environment
/// file is `config/pulumi/environment`, never this machine's absolute path.
#[test]
fn errors_name_the_environment_file_relative_to_where_the_user_stands() {
    let workspace = Workspace::new();
    workspace.provider("demo", "[[project]]\npath = \"a\"\nphase = \"infrastructure\"\n").project("a");
    let output = workspace.run(&["validate", "--provider", "demo"]);
    output.expect_code(2).expect_stderr_contains("`PULUMI_STACK` in `config/pulumi/environment`");
    let root = workspace.root().display().to_string();
    assert!(!output.stderr().contains(&root), "{}", output.stderr());
    workspace.env_file("PULUMI_STACK=dev\n");
    let mismatch = workspace.run(&["validate", "--provider", "demo", "--stack", "prod"]);
    assert!(!mismatch.stderr().contains(&root), "{}", mismatch.stderr());
}
