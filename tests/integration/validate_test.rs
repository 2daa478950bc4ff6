use crate::snapshot::{runner_snapshot, Redactions};
use crate::support::{hermetic_runner, Workspace};

const PROVIDER: &str = r#"
description = "demo"
infra_type = "local"
[[config]]
key = "local:cidr"
default = "10.0.0.0/16"
[[project]]
path = "a"
phase = "infrastructure"
"#;

#[test]
fn validate_accepts_a_good_setup_and_changes_nothing() {
    let workspace = Workspace::new();
    workspace.provider("demo", PROVIDER).project("a").env_file("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=validate\n");
    let before = workspace.listing();
    runner_snapshot!(Redactions::of(&workspace), workspace.std_command(&["validate", "--provider", "demo"]));
    assert_eq!(workspace.listing(), before);
}

#[test]
fn validate_warns_about_version_floats() {
    let workspace = Workspace::new();
    workspace
        .provider("demo", PROVIDER)
        .project("a")
        .stack_file("dev", "config:\n  eks:k8s_version: 1.20\n")
        .env_file("PULUMI_CONFIG_PASSPHRASE=validate\n");
    runner_snapshot!(
        Redactions::of(&workspace),
        workspace.std_command(&["validate", "--provider", "demo", "--stack", "dev"])
    );
}

#[test]
fn mara_files_load_as_they_are() {
    let workspace = Workspace::new();
    workspace.provider("demo", PROVIDER).project("a");
    let example =
        std::fs::read_to_string(crate::support::repository().join("tests/fixtures/mara/Pulumi.stackname.yaml.example"))
            .unwrap();
    let environment = std::fs::read_to_string(
        crate::support::repository().join("tests/fixtures/mara/environment/edge-configparser-syntax.environment"),
    )
    .unwrap();
    workspace.stack_file("dev", &example).env_file(&format!("{environment}\nPULUMI_CONFIG_PASSPHRASE=validate\n"));
    runner_snapshot!(
        Redactions::of(&workspace),
        workspace.std_command(&["validate", "--provider", "demo", "--stack", "foo"])
    );
}

#[test]
fn root_is_found_from_a_nested_folder_and_can_be_overridden() {
    let workspace = Workspace::new();
    workspace.provider("demo", PROVIDER).project("a");
    let nested = workspace.path("projects/a");
    runner_snapshot!("from_a_nested_folder", Redactions::of(&workspace), hermetic_runner(&nested, &["providers"]));
    let elsewhere = tempfile::tempdir().unwrap();
    let args = ["--root", workspace.root().to_str().unwrap(), "providers"];
    runner_snapshot!("with_root", Redactions::of(&workspace), hermetic_runner(elsewhere.path(), &args));
}

#[test]
fn validate_warns_about_stack_references_without_a_dependency() {
    let workspace = Workspace::new();
    workspace
        .provider(
            "refs",
            "[[project]]\npath = \"network\"\nphase = \"infrastructure\"\n\n[[project]]\npath = \"cluster\"\nphase = \"infrastructure\"\n\n[[project]]\npath = \"app\"\nphase = \"infrastructure\"\ndepends_on = [\"cluster\"]\n",
        )
        .file("projects/network/Pulumi.yaml", "name: network\nruntime: yaml\n")
        .file(
            "projects/cluster/Pulumi.yaml",
            "name: cluster\nruntime: yaml\nresources:\n  net:\n    type: pulumi:pulumi:StackReference\n    properties:\n      name: organization/network/${pulumi.stack}\n",
        )
        .file("projects/app/Pulumi.yaml", "name: app\nruntime: yaml\n")
        .env_file("PULUMI_CONFIG_PASSPHRASE=validate\n")
        // The deployed state of `app` read `network` (the program no longer says so).
        .file(
            ".runner/backend/.pulumi/stacks/app/dev.json",
            r#"{"version":3,"checkpoint":{"latest":{"resources":[{"type":"pulumi:pulumi:StackReference","inputs":{"name":"organization/network/dev"}}]}}}"#,
        );
    runner_snapshot!(
        Redactions::of(&workspace),
        workspace.std_command(&["validate", "--provider", "refs", "--stack", "dev"])
    );
}

/// Hermetic: a copy of the shipped provider and projects, never the working tree's own
/// `config/pulumi/` (which `scripts/setup.sh` writes).
#[test]
fn the_shipped_local_provider_declares_every_reference() {
    let workspace = Workspace::new();
    let repository = crate::support::repository();
    crate::support::copy_tree(&repository.join("providers"), &workspace.path("providers"));
    crate::support::copy_tree(&repository.join("projects/local"), &workspace.path("projects/local"));
    workspace.env_file("PULUMI_STACK=lint\nPULUMI_CONFIG_PASSPHRASE=validate\nLOCAL_DEMO_API_KEY=validate-key\n");
    runner_snapshot!(
        Redactions::of(&workspace),
        workspace.std_command(&["validate", "--provider", "local", "--stack", "lint"])
    );
}

/// Everything `up` would stumble on is found by `validate`, all at once, with exit 2.
#[test]
fn validate_lists_every_problem_a_run_would_hit() {
    let mut workspace = Workspace::new();
    // A `pulumi` with only the YAML language host beside it, whatever this machine has.
    for tool in ["pulumi", "pulumi-language-yaml"] {
        workspace.file(&format!("bin/{tool}"), "#!/bin/sh\nexit 0\n");
        let path = workspace.path(&format!("bin/{tool}"));
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    workspace.set_env("PATH", format!("{}:/usr/bin:/bin", workspace.path("bin").display()));
    workspace
        .provider(
            "broken",
            "[[project]]\npath = \"good\"\nphase = \"infrastructure\"\n\n[[project]]\npath = \"unparsable\"\nphase = \"infrastructure\"\ndepends_on = [\"good\"]\n\n[[project]]\npath = \"manifest-only\"\nphase = \"infrastructure\"\nsecrets = [{ key = \"app:token\", prompt = \"token\" }]\n",
        )
        .provider("empty", "description = \"nothing\"\n")
        .project("good")
        .file("projects/unparsable/Pulumi.yaml", "name: [unclosed\nruntime: yaml\n")
        .file("projects/manifest-only/Pulumi.yaml", "name: vpc\nruntime: python\n");
    let redactions = Redactions::of(&workspace);
    runner_snapshot!(
        "broken",
        redactions,
        workspace.std_command(&["validate", "--provider", "broken", "--stack", "dev"])
    );
    runner_snapshot!(
        "empty",
        redactions,
        workspace.std_command(&["validate", "--provider", "empty", "--stack", "dev"])
    );
}

#[test]
fn a_missing_environment_file_is_named_with_how_to_start_one() {
    let mut workspace = Workspace::new();
    workspace.provider("demo", PROVIDER).project("a");
    workspace.set_env("PULUMI_CONFIG_PASSPHRASE", "validate");
    let (redactions, args) = (Redactions::of(&workspace), ["validate", "--provider", "demo", "--stack", "dev"]);
    runner_snapshot!("without", redactions, workspace.std_command(&args));
    workspace.file("config/pulumi/environment.example", "PULUMI_STACK=dev\n");
    runner_snapshot!("with_an_example", redactions, workspace.std_command(&args));
    workspace.env_file("PULUMI_STACK=dev\n");
    runner_snapshot!("present", redactions, workspace.std_command(&args));
}

/// A CI job keeps its values in the job's environment: no environment file is the expected state
/// there, and no advice to copy the example's demo passphrase over its secrets is printed. Where
/// both set a value, which one wins is said, never the values.
#[test]
fn a_ci_job_with_its_values_in_the_environment_gets_no_environment_file_advice() {
    let mut workspace = Workspace::new();
    workspace.provider("demo", PROVIDER).project("a");
    workspace.file("config/pulumi/environment.example", "PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=demo\n");
    let backend = format!("file://{}", workspace.path(".state").display());
    workspace.set_env("PULUMI_CONFIG_PASSPHRASE", "from-the-ci-secrets").set_env("PULUMI_BACKEND_URL", &backend);
    let (redactions, args) = (Redactions::of(&workspace), ["validate", "--provider", "demo", "--stack", "dev"]);
    runner_snapshot!("ci_without_a_file", redactions, workspace.std_command(&args));
    workspace.env_file("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=from-the-file\n");
    runner_snapshot!("ci_and_a_file_disagree", redactions, workspace.std_command(&args));
}

/// Every environment entry not known or declared plain is masked: a one-character value then
/// masks that character everywhere. Said once, without the value, with the way out; a declared
/// entry is quiet.
#[test]
fn validate_warns_about_a_short_value_it_will_mask_without_printing_it() {
    let workspace = Workspace::new();
    workspace
        .provider("demo", PROVIDER)
        .project("a")
        .env_file("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=validate\nDEBUG=7\nPIN=q9z\nREGION_NAME=eu-west-1\n");
    let redactions = Redactions::of(&workspace);
    let output = runner_snapshot!("masked", redactions, workspace.std_command(&["validate", "--provider", "demo"]));
    // The value itself is never printed, whatever the snapshot is re-accepted as.
    assert!(!String::from_utf8_lossy(&output.stderr).contains("q9z"));

    workspace.provider("demo", &format!("plain_environment = [\"DEBUG\"]\n{PROVIDER}"));
    runner_snapshot!("declared_plain", redactions, workspace.std_command(&["validate", "--provider", "demo"]));
}

/// `runtime: yml` has no language host next to the real `pulumi`: `validate` and `doctor` say
/// so, instead of `up` failing with "no language plugin 'pulumi-language-yml' found".
#[test]
fn ext_a_runtime_without_a_language_host_is_refused_before_a_run() {
    let workspace = Workspace::with_real_pulumi();
    workspace.provider("demo", PROVIDER).project("a");
    workspace.file("projects/a/Pulumi.yaml", "name: a\nruntime: yml\n");
    let validate = workspace.run(&["validate", "--provider", "demo", "--stack", "dev"]);
    validate.expect_code(2).expect_stderr_contains("no language host for runtime `yml`");
    assert!(validate.stderr().contains("`yaml`"), "the runtimes found are named: {}", validate.stderr());
    let doctor = workspace.run(&["doctor", "--provider", "demo"]);
    let text = format!("{}{}", doctor.stdout(), doctor.stderr());
    assert!(text.contains("no language host for runtime `yml`"), "{text}");
    workspace.file("projects/a/Pulumi.yaml", "name: a\nruntime: yaml\n");
    workspace.run(&["validate", "--provider", "demo", "--stack", "dev"]).expect_code(0);
}
