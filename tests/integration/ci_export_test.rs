//! `runner export github-actions|gitlab-ci` through the binary: every shipped provider's
//! workflows pass `actionlint`, a stale committed pipeline fails `--check`, a backend on this
//! machine and an input file as `-o` are refused.

use crate::ci_tools::actionlint;
use crate::support::{copy_tree, repository, Workspace};

const SHIPPED: [&str; 4] = ["aws", "digitalocean", "linode", "local"];
const OPERATIONS: [&str; 5] = ["up", "preview", "refresh", "destroy", "drift"];
const SHARED: &str = "PULUMI_BACKEND_URL=s3://state?region=eu-west-1\n";

fn shipped_workspace(environment: &str) -> Workspace {
    let workspace = Workspace::new();
    copy_tree(&repository().join("providers"), &workspace.path("providers"));
    copy_tree(&repository().join("projects"), &workspace.path("projects"));
    workspace.env_file(&format!(
        "PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=never-written-passphrase\nLOCAL_DEMO_API_KEY=never-written-key\nDO_TOKEN=dop_v1_never_written\n{environment}"
    ));
    workspace
}

#[test]
fn ext_every_shipped_workflow_passes_actionlint_with_no_finding() {
    let workspace = shipped_workspace(SHARED);
    let mut files = Vec::new();
    for provider in SHIPPED {
        for operation in OPERATIONS {
            for (variant, extra) in [("setup", &[][..]), ("affected", &["--affected", "--no-setup"][..])] {
                let file = format!(".github/workflows/{provider}-{operation}-{variant}.yml");
                let mut args = vec!["export", "github-actions", "--provider", provider, "--stack", "dev"];
                args.extend(["--operation", operation, "-o", &file]);
                args.extend(extra);
                let output = workspace.run(&args);
                output.expect_code(0);
                let text = std::fs::read_to_string(workspace.path(&file)).unwrap();
                for secret in ["never-written-passphrase", "never-written-key", "dop_v1_never_written"] {
                    assert!(!text.contains(secret) && !output.stderr().contains(secret), "{secret} in {file}");
                }
                files.push(file);
            }
        }
    }
    let lint = std::process::Command::new(actionlint())
        .current_dir(workspace.root())
        .arg("-no-color")
        .args(&files)
        .output()
        .expect("actionlint starts");
    let findings = String::from_utf8_lossy(&lint.stdout);
    assert!(lint.status.success() && findings.trim().is_empty(), "actionlint found:\n{findings}");
}

#[test]
fn check_passes_on_the_written_pipeline_and_fails_once_a_provider_changed() {
    let workspace = shipped_workspace(SHARED);
    for (tool, file) in [("github-actions", ".github/workflows/deploy.yml"), ("gitlab-ci", ".gitlab-ci.yml")] {
        let export = ["export", tool, "--provider", "local", "--stack", "dev"];
        workspace.run(&[&export[..], &["-o", file]].concat()).expect_code(0);
        workspace.run(&[&export[..], &["--check", file]].concat()).expect_code(0);
    }
    // A new dependency changes the `needs`: both committed pipelines are stale now.
    let provider = std::fs::read_to_string(workspace.path("providers/local.toml")).unwrap();
    let changed = provider.replace(
        "path = \"infrastructure/registry\"\ndescription = \"Registry\"\nphase = \"infrastructure\"\n",
        "path = \"infrastructure/registry\"\ndescription = \"Registry\"\nphase = \"infrastructure\"\ndepends_on = [\"infrastructure/network\"]\n",
    );
    assert_ne!(provider, changed);
    workspace.provider("local", &changed);
    for (tool, file) in [("github-actions", ".github/workflows/deploy.yml"), ("gitlab-ci", ".gitlab-ci.yml")] {
        let before = std::fs::read_to_string(workspace.path(file)).unwrap();
        let output = workspace.run(&["export", tool, "--provider", "local", "--stack", "dev", "--check", file]);
        output.expect_code(1).expect_stderr_contains("is stale");
        assert_eq!(std::fs::read_to_string(workspace.path(file)).unwrap(), before, "--check wrote {file}");
    }
}

#[test]
fn a_backend_on_this_machine_is_refused_naming_pulumi_backend_url() {
    for environment in ["", "PULUMI_BACKEND_URL=file://~/.pulumi\n"] {
        let workspace = shipped_workspace(environment);
        for tool in ["github-actions", "gitlab-ci"] {
            let output = workspace.run(&["export", tool, "--provider", "local", "--stack", "dev"]);
            output.expect_code(2).expect_stderr_contains("`PULUMI_BACKEND_URL`");
            assert!(output.stdout().is_empty(), "{}", output.stdout());
        }
    }
}

#[test]
fn an_input_of_the_runner_is_never_the_output() {
    let workspace = shipped_workspace(SHARED);
    let before = std::fs::read_to_string(workspace.path("providers/local.toml")).unwrap();
    let output =
        workspace.run(&["export", "gitlab-ci", "--provider", "local", "--stack", "dev", "-o", "providers/local.toml"]);
    output.expect_code(2).expect_stderr_contains("would overwrite");
    assert_eq!(std::fs::read_to_string(workspace.path("providers/local.toml")).unwrap(), before);
}

#[test]
fn the_manual_shows_what_the_export_of_local_writes_now() {
    let workspace = Workspace::new();
    copy_tree(&repository().join("providers"), &workspace.path("providers"));
    copy_tree(&repository().join("projects/local"), &workspace.path("projects/local"));
    let example = std::fs::read_to_string(repository().join("config/pulumi/environment.example")).unwrap();
    workspace.env_file(&format!("{example}PULUMI_BACKEND_URL=s3://my-state-bucket?region=eu-west-1\n"));
    let readme = std::fs::read_to_string(repository().join("docs/src/ci.md")).unwrap();
    for tool in ["github-actions", "gitlab-ci"] {
        let output = workspace.run(&["export", tool, "--provider", "local", "--stack", "dev"]);
        output.expect_code(0);
        assert!(
            readme.contains(&format!("```yaml\n{}```\n", output.stdout())),
            "docs/src/ci.md's `{tool}` file is stale; it is now:\n{}",
            output.stdout()
        );
    }
}
