//! Every configuration error names its file (and line), exits 2, and writes nothing.

use crate::snapshot::{runner_snapshot, Redactions};
use crate::support::{hermetic_runner, Workspace};

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

/// Runs `runner ARGS` in the workspace, states whole what it prints (exit code, stdout, stderr)
/// as a snapshot named after the test, and checks that it wrote nothing.
macro_rules! expect_error {
    ($workspace:expr, $args:expr) => {{
        let workspace: &Workspace = $workspace;
        let before = workspace.listing();
        runner_snapshot!(Redactions::of(workspace), workspace.std_command($args));
        assert_eq!(workspace.listing(), before, "a failed command must write nothing");
    }};
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
    expect_error!(&workspace(provider), &["show", "--provider", "demo"]);
}

#[test]
fn self_dependency_is_named() {
    let provider = "[[project]]\npath = \"a\"\nphase = \"infrastructure\"\ndepends_on = [\"a\"]\n";
    expect_error!(&workspace(provider), &["show", "--provider", "demo"]);
}

#[test]
fn unknown_dependency_suggests_the_nearest_name() {
    let provider = "[[project]]\npath = \"network\"\nphase = \"infrastructure\"\n[[project]]\npath = \"a\"\nphase = \"infrastructure\"\ndepends_on = [\"netwrk\"]\n";
    let workspace = workspace(provider);
    workspace.project("network");
    expect_error!(&workspace, &["show", "--provider", "demo"]);
}

#[test]
fn duplicate_project_names_both_places() {
    let provider = "[[project]]\npath = \"a\"\nphase = \"infrastructure\"\n\n[[project]]\npath = \"a/\"\nphase = \"infrastructure\"\n";
    expect_error!(&workspace(provider), &["show", "--provider", "demo"]);
}

#[test]
fn path_escaping_the_projects_root_is_refused() {
    let provider = "[[project]]\npath = \"../outside\"\nphase = \"infrastructure\"\n";
    expect_error!(&workspace(provider), &["show", "--provider", "demo"]);
}

#[test]
fn missing_pulumi_yaml_names_the_folder() {
    let provider = "[[project]]\npath = \"nowhere\"\nphase = \"infrastructure\"\n";
    expect_error!(&workspace(provider), &["show", "--provider", "demo"]);
}

#[test]
fn infrastructure_cannot_depend_on_kubernetes() {
    let provider = "[[project]]\npath = \"a\"\nphase = \"kubernetes\"\n[[project]]\npath = \"b\"\nphase = \"infrastructure\"\ndepends_on = [\"a\"]\n";
    expect_error!(&workspace(provider), &["show", "--provider", "demo"]);
}

#[test]
fn unknown_provider_suggests_a_name() {
    expect_error!(&workspace(TWO_PROJECTS), &["show", "--provider", "dem"]);
}

#[test]
fn unknown_key_in_provider_names_line() {
    let provider = "[[project]]\npath = \"a\"\nphase = \"infrastructure\"\ncolour = \"blue\"\n";
    expect_error!(&workspace(provider), &["show", "--provider", "demo"]);
}

#[test]
fn wrong_phase_value_names_line() {
    let provider = "[[project]]\npath = \"a\"\nphase = \"infra\"\n";
    expect_error!(&workspace(provider), &["show", "--provider", "demo"]);
}

#[test]
fn environment_duplicate_key_names_line() {
    let workspace = workspace(TWO_PROJECTS);
    workspace.env_file("PULUMI_STACK=foo\nPULUMI_STACK=bar\n");
    expect_error!(&workspace, &["validate", "--provider", "demo"]);
}

#[test]
fn environment_line_without_assignment_names_line() {
    let workspace = workspace(TWO_PROJECTS);
    workspace.env_file("PULUMI_STACK=dev\nthis is not an assignment\n");
    expect_error!(&workspace, &["validate", "--provider", "demo"]);
}

#[test]
fn stack_flag_and_environment_must_agree() {
    let workspace = workspace(TWO_PROJECTS);
    workspace.env_file("PULUMI_STACK=dev\n");
    expect_error!(&workspace, &["validate", "--provider", "demo", "--stack", "prod"]);
}

#[test]
fn infra_type_must_match_the_provider() {
    let workspace = workspace(&format!("infra_type = \"AWS\"\n{TWO_PROJECTS}"));
    workspace.stack_file("dev", "config:\n  aws:region: us-east-1\n  kubernetes:infra_type: DO\n");
    expect_error!(&workspace, &["validate", "--provider", "demo", "--stack", "dev"]);
}

#[test]
fn invalid_stack_yaml_names_the_file() {
    let workspace = workspace(TWO_PROJECTS);
    workspace.stack_file("dev", "config:\n  a: [unclosed\n");
    expect_error!(&workspace, &["validate", "--provider", "demo", "--stack", "dev"]);
}

#[test]
fn missing_required_keys_are_all_listed() {
    let provider = format!("{TWO_PROJECTS}\n[[config]]\nkey = \"aws:region\"\ndefault_env = \"AWS_DEFAULT_REGION\"\n[[config]]\nkey = \"aws:profile\"\n");
    let workspace = workspace(&provider);
    let mut command = workspace.std_command(&["validate", "--provider", "demo", "--stack", "dev"]);
    command.env_remove("AWS_DEFAULT_REGION");
    runner_snapshot!(Redactions::of(&workspace), command);
}

#[test]
fn no_root_found_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    runner_snapshot!(Redactions::for_root(dir.path()), hermetic_runner(dir.path(), &["providers"]));
}

#[test]
fn usage_errors_exit_2() {
    let workspace = workspace(TWO_PROJECTS);
    let redactions = Redactions::of(&workspace);
    runner_snapshot!("show_without_a_provider", redactions, workspace.std_command(&["show"]));
    let zero = ["up", "--provider", "demo", "--parallelism", "0"];
    runner_snapshot!("parallelism_zero", redactions, workspace.std_command(&zero));
    let xml = ["up", "--provider", "demo", "--report", "xml=out"];
    runner_snapshot!("unknown_report_kind", redactions, workspace.std_command(&xml));
}

#[test]
fn help_teaches_and_exits_0() {
    let workspace = workspace(TWO_PROJECTS);
    runner_snapshot!(Redactions::of(&workspace), workspace.std_command(&["--help"]));
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
