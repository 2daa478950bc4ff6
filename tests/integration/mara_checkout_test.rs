//! Inside an unchanged MARA checkout: built-in providers, MARA's files where MARA keeps them,
//! MARA's command line, and a full run of MARA's layout against the real `pulumi`.

use serde_json::json;

use crate::mara_checkout::MaraCheckout;
use crate::snapshot::{runner_snapshot, Redactions};
use crate::support::{path_with, real_pulumi_dir, repository, Workspace};

fn mara_local() -> String {
    std::fs::read_to_string(repository().join("tests/fixtures/mara/mara-local.toml")).unwrap()
}

#[test]
fn ext_show_validate_and_providers_work_in_a_checkout_with_no_runner_file() {
    let checkout = MaraCheckout::new();
    let before = checkout.listing();
    let redactions = Redactions::for_root(checkout.root());
    let show = checkout.run(&["show", "--provider", "aws"]);
    show.expect_code(0);

    // MARA's own command line, from a folder inside the checkout: the same plan, stated whole.
    let mara = ["-p", "aws", "-s", "dev", "show-execution"];
    let execution =
        runner_snapshot!("show_execution", redactions, std_command_in(&checkout, "pulumi/python/kubernetes", &mara));
    assert_eq!(show.stdout(), String::from_utf8_lossy(&execution.stdout), "`show` prints what `show-execution` does");

    runner_snapshot!("list_providers", redactions, std_command_in(&checkout, "", &["list-providers"]));

    // MARA's example stack file, copied as its README says, validates for every stack file reader.
    let example = std::fs::read_to_string(checkout.path("config/pulumi/Pulumi.stackname.yaml.example")).unwrap();
    checkout.file("config/pulumi/Pulumi.dev.yaml", &example);
    checkout.file("config/pulumi/environment", "PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=validate-1234\n");
    // Everything but MARA's secrets is there; `validate` names each, as `up` would need them.
    let validate =
        runner_snapshot!("validate_the_example", redactions, std_command_in(&checkout, "", &["-p", "aws", "validate"]));
    let stderr = String::from_utf8_lossy(&validate.stderr);
    assert!(!stderr.contains("kic-helm"), "the example's plain values validate: {stderr}");

    let mut expected = before.clone();
    expected.extend(["config/pulumi/Pulumi.dev.yaml".to_string(), "config/pulumi/environment".to_string()]);
    expected.sort();
    assert_eq!(checkout.listing(), expected, "show, validate and providers write nothing");
    assert!(!checkout.path(".runner").exists(), "nor `.runner/`");
}

#[test]
fn a_stack_file_outside_the_checkout_is_refused_naming_both_folders() {
    let checkout = MaraCheckout::new();
    // The runner's own repository layout, pointed at the checkout's projects: two stack files.
    let workspace = Workspace::new();
    std::fs::copy(repository().join("providers/aws.toml"), workspace.path("providers/aws.toml")).unwrap();
    crate::support::copy_tree(&repository().join("providers/common"), &workspace.path("providers/common"));
    workspace.env_file("PULUMI_STACK=dev\n");
    let projects = checkout.path("pulumi/python");
    // The checkout's folder is the one temporary folder besides the workspace: `[TEMP]`. The
    // runner's own folder is relative to where the user stands (the workspace), and the error
    // names MARA's `config:` line (`Pulumi.yaml:6`).
    runner_snapshot!(
        Redactions::of(&workspace),
        workspace.std_command(&["validate", "--provider", "aws", "--projects-root", projects.to_str().unwrap()])
    );
}

#[test]
fn ext_a_providers_folder_in_the_checkout_overrides_and_adds() {
    let checkout = MaraCheckout::new();
    let aws = std::fs::read_to_string(repository().join("providers/aws.toml"))
        .unwrap()
        .replace("NGINX MARA on AWS (VPC, EKS, ECR)", "Our own AWS");
    checkout.provider("aws", &aws).provider("mara-local", &mara_local());
    let redactions = Redactions::for_root(checkout.root());
    runner_snapshot!("providers_of_the_checkout", redactions, std_command_in(&checkout, "", &["providers"]));
    // The checkout's file extends the built-in shared set: it has no providers/common/.
    runner_snapshot!("show_mara_local", redactions, std_command_in(&checkout, "", &["show", "-p", "mara-local"]));
}

#[test]
fn ext_ci_names_every_missing_secret_with_a_command_that_works_as_printed() {
    let checkout = MaraCheckout::new();
    checkout.file("config/pulumi/environment", "PULUMI_STACK=dev\n");
    let before = checkout.listing();
    let redactions = Redactions::for_root(checkout.root());
    let up = ["-p", "aws", "-s", "dev", "up"];
    // Every missing secret, each with a runner command that sets it.
    let output =
        runner_snapshot!("ci_missing_secrets", redactions, std_command_in(&checkout, "", &up).env("CI", "true"));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(checkout.listing(), before, "nothing may be written");
    assert!(!checkout.path(".runner").exists());

    // The printed command, run as printed by a shell in the same folder, stores the secret.
    let command = stderr
        .lines()
        .find(|line| line.contains("`prometheus:adminpass`"))
        .and_then(|line| line.split('`').nth(3))
        .unwrap()
        .to_string();
    let mut shell = std::process::Command::new("sh")
        .args(["-c", &command])
        .current_dir(checkout.root())
        .env("PATH", runner_and_pulumi_path())
        .env("HOME", checkout.home())
        .env("PULUMI_CONFIG_PASSPHRASE", "ci-passphrase-1234")
        .env_remove("PULUMI_BACKEND_URL")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    shell.stdin.take().unwrap().write_all(b"ci-prometheus-5678").unwrap();
    let result = shell.wait_with_output().unwrap();
    assert!(result.status.success(), "`{command}`: {}", String::from_utf8_lossy(&result.stderr));
    let own = std::fs::read_to_string(checkout.path("pulumi/python/kubernetes/secrets/Pulumi.dev.yaml")).unwrap();
    let parsed: serde_norway::Value = serde_norway::from_str(&own).unwrap();
    assert!(parsed["config"]["prometheus:adminpass"]["secure"].is_string(), "{own}");
    assert!(!own.contains("ci-prometheus-5678"));

    // Once set, it is no longer missing.
    let mut command = std_command_in(&checkout, "", &up);
    command.env("CI", "true").env("PULUMI_CONFIG_PASSPHRASE", "ci-passphrase-1234");
    let output = runner_snapshot!("ci_once_set", redactions, command);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("prometheus:adminpass"), "{stderr}");
}

#[test]
fn ext_secrets_for_every_stack_are_refused_on_the_pulumi_service() {
    let checkout = MaraCheckout::new();
    checkout.file("config/pulumi/environment", "PULUMI_STACK=dev\nPULUMI_BACKEND_URL=https://api.pulumi.com\n");
    let redactions = Redactions::for_root(checkout.root());
    // DigitalOcean's token is read by every project, so it would go into the shared stack file.
    let up = ["up", "-p", "digitalocean", "--non-interactive"];
    runner_snapshot!("service_up", redactions, std_command_in(&checkout, "", &up).env_remove("DIGITALOCEAN_TOKEN"));
    assert!(!checkout.path("config/pulumi/Pulumi.dev.yaml").exists());
    // `validate` makes the same check; with the token in the environment both pass it.
    checkout.file("config/pulumi/Pulumi.dev.yaml", "config:\n  kic-helm:fqdn: mara.example.test\n");
    let validate = ["validate", "-p", "digitalocean"];
    let mut without = std_command_in(&checkout, "", &validate);
    runner_snapshot!("service_validate_without_the_token", redactions, without.env_remove("DIGITALOCEAN_TOKEN"));
    // Only MARA's own secrets are left missing (they live in the secrets project's stack).
    let mut with = std_command_in(&checkout, "", &validate);
    let output = runner_snapshot!(
        "service_validate_with_the_token",
        redactions,
        with.env("DIGITALOCEAN_TOKEN", "dop-token-1234")
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("shared stack file"), "{stderr}");
}

#[test]
fn ext_doctor_in_a_checkout_names_what_mara_s_python_projects_need() {
    let checkout = MaraCheckout::new();
    checkout.file("config/pulumi/environment", "PULUMI_CONFIG_PASSPHRASE=doctor-1234\n");
    // Where this machine keeps `kubectl` and `python3`, and its cloud credentials, are its own
    // business: the snapshot reads none of them.
    let redactions = Redactions::for_root(checkout.root()).with(r"\bat \S+/(kubectl|python3)\b", "at [PATH]/$1");
    let doctor = || {
        let mut command = std_command_in(&checkout, "", &["doctor", "-p", "aws"]);
        command.env_remove("AWS_ACCESS_KEY_ID").env_remove("AWS_PROFILE").env_remove("AWS_WEB_IDENTITY_TOKEN_FILE");
        command
    };
    runner_snapshot!("doctor_without_the_virtualenv", redactions, doctor());
    // The virtualenv MARA's `virtualenv: ../../venv` names, once it exists.
    std::fs::create_dir_all(checkout.path("pulumi/python/venv/bin")).unwrap();
    std::os::unix::fs::symlink(which::which("python3").unwrap(), checkout.path("pulumi/python/venv/bin/python"))
        .unwrap();
    runner_snapshot!("doctor_with_the_virtualenv", redactions, doctor());
}

/// The whole journey against the real `pulumi`: prompts in a terminal, `up` of MARA's twelve
/// Kubernetes-set projects (YAML programs reading each other through StackReferences), then
/// MARA's `down`. Only MARA's own files and `.runner/` are written; the secrets are in the
/// secrets project's own stack file, encrypted, and nowhere else.
#[test]
fn ext_prompts_up_and_down_in_a_checkout_write_only_mara_s_files() {
    let checkout = MaraCheckout::new().with_yaml_programs();
    checkout.provider("mara-local", &mara_local());
    checkout.file("config/pulumi/environment", "PULUMI_STACK=dev\n");
    let before = checkout.listing();
    let secrets = [
        ("prometheus:adminpass", "prom-secret-1111"),
        ("sirius:accounts_pwd", "accounts-secret-2222"),
        ("sirius:ledger_pwd", "ledger-secret-3333"),
        ("sirius:demo_login_user", "demo-user-4444"),
        ("sirius:demo_login_pwd", "demo-pwd-5555"),
    ];
    let mut script = vec![
        json!({"expect": r"Passphrase of the local Pulumi backend.*: ", "send": "mara-passphrase-1234\r"}),
        json!({"expect": r"Repeat it", "send": "mara-passphrase-1234\r"}),
        json!({"expect": r"\(kic-helm:fqdn\) \[mara\.example\.test\]", "send": "bank.example.test\r"}),
    ];
    for (key, value) in secrets {
        script.push(json!({"expect": format!(r"\({}\)", regex_escape(key)), "send": format!("{value}\r")}));
        script.push(json!({"expect": r"Repeat it", "send": format!("{value}\r")}));
    }
    // Outside the checkout: it holds the secrets in plain text.
    let script_file = checkout.home().join("pty-script.json");
    std::fs::write(&script_file, serde_json::Value::from(script).to_string()).unwrap();
    let output = std::process::Command::new("python3")
        .arg(repository().join("tests/support/drive-pty.py"))
        .arg(&script_file)
        .arg("--")
        .arg(assert_cmd::cargo::cargo_bin("runner"))
        .args(["-p", "mara-local", "-s", "dev", "up"])
        .current_dir(checkout.root())
        .env("PATH", path_with(&real_pulumi_dir()))
        .env("HOME", checkout.home())
        .env("NO_COLOR", "1")
        .env("TERM", "xterm")
        .env_remove("CI")
        .env_remove("PULUMI_CONFIG_PASSPHRASE")
        .env_remove("PULUMI_BACKEND_URL")
        .env_remove("KUBECONFIG")
        .output()
        .unwrap();
    let transcript = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{transcript}");
    assert!(transcript.contains("up: 12 succeeded in"), "{transcript}");

    // Only what MARA itself writes: the shared stack file's answers and the secrets project's stack.
    let mut expected = before.clone();
    expected.extend([
        "config/pulumi/Pulumi.dev.yaml".to_string(),
        "pulumi/python/kubernetes/secrets/Pulumi.dev.yaml".to_string(),
    ]);
    expected.sort();
    assert_eq!(checkout.listing(), expected);

    let shared = std::fs::read_to_string(checkout.path("config/pulumi/Pulumi.dev.yaml")).unwrap();
    let shared_yaml: serde_norway::Value = serde_norway::from_str(&shared).unwrap();
    assert_eq!(shared_yaml["config"]["kic-helm:fqdn"], serde_norway::Value::from("bank.example.test"));
    assert_eq!(shared_yaml["config"]["kubernetes:infra_type"], serde_norway::Value::from("local"));
    let own = std::fs::read_to_string(checkout.path("pulumi/python/kubernetes/secrets/Pulumi.dev.yaml")).unwrap();
    let own_yaml: serde_norway::Value = serde_norway::from_str(&own).unwrap();
    for (key, value) in secrets {
        assert!(own_yaml["config"][key]["secure"].is_string(), "{key} is stored encrypted: {own}");
        assert!(!shared.contains(key), "{key} is not in the shared stack file: {shared}");
        assert!(!transcript.contains(value), "{key} was echoed: {transcript}");
        assert_eq!(checkout.files_containing(value), Vec::<String>::new(), "{key} in plain text");
    }
    assert_eq!(checkout.files_containing("mara-passphrase-1234"), Vec::<String>::new());

    // The programs really read them: the application got its host name from the shared file and
    // its login through the secrets project's stack.
    let outputs = std::process::Command::new(real_pulumi_dir().join("pulumi"))
        .args(["stack", "output", "--json", "--show-secrets", "--stack", "organization/sirius-deploy/dev"])
        .current_dir(checkout.path("pulumi/python/kubernetes/applications/sirius"))
        .env("HOME", checkout.home())
        .env("PULUMI_BACKEND_URL", format!("file://{}", checkout.path(".runner/backend").display()))
        .env("PULUMI_CONFIG_PASSPHRASE", "mara-passphrase-1234")
        .env("PULUMI_SKIP_UPDATE_CHECK", "true")
        .output()
        .unwrap();
    let outputs: serde_json::Value = serde_json::from_slice(&outputs.stdout).unwrap();
    assert_eq!(outputs["application_url"], "https://bank.example.test");
    assert_eq!(outputs["demo_login_user"], "demo-user-4444");

    // MARA's `down`, from inside the projects folder.
    let output = checkout
        .command_in("pulumi/python", &["-p", "mara-local", "-s", "dev", "down", "--yes"])
        .env("PULUMI_CONFIG_PASSPHRASE", "mara-passphrase-1234")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("12 succeeded, 0 failed"), "{stdout}");
    let state =
        std::fs::read_to_string(checkout.path(".runner/backend/.pulumi/stacks/sirius-deploy/dev.json")).unwrap();
    let state: serde_json::Value = serde_json::from_str(&state).unwrap();
    let resources = state.pointer("/checkpoint/latest/resources").and_then(|r| r.as_array()).map_or(0, Vec::len);
    assert_eq!(resources, 0, "destroyed");
    assert_eq!(checkout.listing(), expected, "down writes nothing new");
}

/// `checkout.command_in(relative, args)` as the `std::process::Command` `runner_snapshot!` runs:
/// the same program, arguments, environment and folder.
fn std_command_in(checkout: &MaraCheckout, relative: &str, args: &[&str]) -> std::process::Command {
    let command = checkout.command_in(relative, args);
    let mut std = std::process::Command::new(command.get_program());
    std.args(command.get_args());
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => std.env(key, value),
            None => std.env_remove(key),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        std.current_dir(dir);
    }
    std
}

fn regex_escape(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c.to_string() } else { format!("\\{c}") }).collect()
}

/// `runner` (as printed hints name it) and the real `pulumi`, first on PATH.
fn runner_and_pulumi_path() -> String {
    let runner_dir = std::path::Path::new(env!("CARGO_BIN_EXE_runner")).parent().unwrap().to_path_buf();
    format!("{}:{}", runner_dir.display(), path_with(&real_pulumi_dir()))
}
