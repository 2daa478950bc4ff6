//! Files kept as the user wrote them, and data commands that fail when their data did not arrive.

use crate::support::{copy_tree, path_with, real_pulumi_dir, repository, stash_local, Workspace};

fn local_workspace(env_file: &str) -> Workspace {
    let workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    std::fs::copy(stash_local().join("providers/local.toml"), workspace.path("providers/local.toml")).unwrap();
    workspace.env_file(env_file);
    workspace
}

/// `KUBECONFIG=~/.kube/config` in the environment file is the user's home, as a shell reads it:
/// the cluster's kubeconfig goes there, never to a folder named `~` inside the repository.
#[test]
fn ext_a_kubeconfig_under_tilde_lands_in_the_real_home() {
    let mut workspace = local_workspace(
        "PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=tilde-1234\nLOCAL_CLUSTER_TOKEN=cluster-token-1234\nKUBECONFIG=~/.kube/config\n",
    );
    let home = workspace.path("home");
    std::fs::create_dir_all(&home).unwrap();
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    let output = workspace.run(&[
        "up",
        "--provider",
        "local",
        "--stack",
        "dev",
        "--non-interactive",
        "--only",
        "infrastructure/cluster",
        "--with-dependencies",
    ]);
    output.expect_code(0);
    assert!(!workspace.path("~").exists(), "a folder named `~` inside the repository");
    let installed = std::fs::read_to_string(home.join(".kube/config")).expect("the kubeconfig in the home");
    assert!(installed.contains("local-dev"), "{installed}");
}

#[test]
fn a_home_path_without_home_is_refused_naming_the_line() {
    let workspace = local_workspace("PULUMI_STACK=dev\nKUBECONFIG=${HOME}/.kube/config\n");
    let output = workspace.command(&["validate", "--provider", "local"]).env_remove("HOME").output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("config/pulumi/environment:2: `KUBECONFIG` names the home folder"), "{stderr}");
    assert!(!workspace.path("$HOME").exists() && !workspace.path("${HOME}").exists());
}

/// `config set --secret` stores all of stdin, one line end dropped: a PEM key whole, as the real
/// `pulumi config get` reads it back; empty input is refused.
#[test]
fn ext_a_secret_from_stdin_is_stored_whole() {
    let mut workspace = local_workspace("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=whole-secret-1234\n");
    let home = workspace.path("home");
    std::fs::create_dir_all(&home).unwrap();
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    let pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----";
    for (key, input, stored) in
        [("local:pem", format!("{pem}\n"), pem.to_string()), ("local:blank_end", "a\nb\n\n".into(), "a\nb\n".into())]
    {
        let output = workspace
            .command(&["config", "set", "--secret", key, "--provider", "local", "--stack", "dev"])
            .write_stdin(input)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let get = std::process::Command::new(real_pulumi_dir().join("pulumi"))
            .args(["config", "get", key, "--json", "--stack", "organization/local-network/dev", "--config-file"])
            .arg(workspace.path("config/pulumi/Pulumi.dev.yaml"))
            .current_dir(workspace.path("projects/local/infrastructure/network"))
            .env("HOME", &home)
            .env("PULUMI_BACKEND_URL", format!("file://{}", workspace.path(".runner/backend").display()))
            .env("PULUMI_CONFIG_PASSPHRASE", "whole-secret-1234")
            .env("PULUMI_SKIP_UPDATE_CHECK", "true")
            .output()
            .unwrap();
        assert!(get.status.success(), "{}", String::from_utf8_lossy(&get.stderr));
        let got: serde_json::Value = serde_json::from_slice(&get.stdout).unwrap();
        assert_eq!(got["value"], stored.as_str(), "{got}");
        assert_eq!(got["secret"], true);
    }
    let empty = workspace
        .command(&["config", "set", "--secret", "local:empty", "--provider", "local", "--stack", "dev"])
        .write_stdin("\n")
        .output()
        .unwrap();
    assert_eq!(empty.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&empty.stderr).contains("no value for `local:empty` on stdin"));
}

/// `--report FILE` and `-o FILE` naming something the runner reads are refused before anything runs.
#[test]
fn reports_and_exports_never_overwrite_an_input_file() {
    let workspace = local_workspace("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=inputs-1234\n");
    workspace.stack_file("dev", "config:\n  local:cidr: 10.42.0.0/16\n");
    let inputs = [
        "config/pulumi/environment",
        "config/pulumi/Pulumi.dev.yaml",
        "providers/local.toml",
        "projects/local/infrastructure/network/Pulumi.yaml",
        "projects/local/infrastructure/network/new.json",
    ];
    let before = workspace.listing();
    let read = |relative: &str| std::fs::read(workspace.path(relative)).ok();
    let contents: Vec<_> = inputs.iter().map(|input| read(input)).collect();
    for input in inputs {
        let report = format!("json={input}");
        let up = workspace.run(&["preview", "--provider", "local", "--non-interactive", "--report", &report]);
        up.expect_code(2).expect_stderr_contains(&format!("`--report` would overwrite `{input}`"));
        let export = workspace.run(&[
            "export",
            "pko",
            "--provider",
            "local",
            "--git-url",
            "https://github.com/acme/infra.git",
            "--git-branch",
            "main",
            "-o",
            input,
        ]);
        export.expect_code(2).expect_stderr_contains(&format!("`-o` would overwrite `{input}`"));
    }
    assert_eq!(inputs.iter().map(|input| read(input)).collect::<Vec<_>>(), contents);
    assert_eq!(workspace.listing(), before);
}

fn export_args() -> Vec<&'static str> {
    vec![
        "export",
        "pko",
        "--provider",
        "local",
        "--git-url",
        "https://github.com/acme/infra.git",
        "--git-branch",
        "main",
    ]
}

/// Data commands whose stdout cannot take the data fail, with an error on stderr, instead of
/// leaving a cut file behind exit 0.
#[test]
fn ext_data_commands_fail_on_a_full_stdout() {
    let mut workspace =
        local_workspace("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=full-disk-1234\nLOCAL_CLUSTER_TOKEN=token-1234\nLOCAL_DEMO_API_KEY=demo-key-1234\n");
    workspace.stack_file("dev", "config:\n  local:cidr: 10.42.0.0/16\n");
    let home = workspace.path("home");
    std::fs::create_dir_all(&home).unwrap();
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    // Outputs of a stack never deployed are a failure of their own (`not deployed`): deploy the
    // one project read, so the run with room on stdout succeeds.
    let network = ["--only", "infrastructure/network"];
    let up = [&["up", "--provider", "local", "--non-interactive"][..], &network[..]].concat();
    workspace.run(&up).expect_code(0);
    let commands: Vec<Vec<&str>> = vec![
        export_args(),
        [&["outputs", "--provider", "local", "--json"][..], &network[..]].concat(),
        vec!["show", "--provider", "local", "--format", "json"],
        vec!["show", "--provider", "local", "--format", "dot"],
        vec!["show", "--provider", "local", "--format", "mermaid"],
    ];
    for args in commands {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let output = workspace.std_command(&args).stdout(full).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("cannot write `stdout`: No space left on device"), "{args:?}: {stderr}");
        // The `io::Error` is the error's source: the printer shows the chain, the cause once.
        assert_eq!(stderr.matches("No space left on device").count(), 1, "{args:?}: {stderr}");
        let fine = workspace.std_command(&args).output().unwrap();
        assert!(
            fine.status.success() && !fine.stdout.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&fine.stderr)
        );
    }
}

/// `export check` refuses a stream cut short anywhere (at 4096 bytes, as a full disk leaves it,
/// or between two documents), and accepts the whole one with its placeholders filled in.
#[test]
fn export_check_refuses_a_cut_stream() {
    let workspace =
        local_workspace("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=cut-stream-1234\nLOCAL_CLUSTER_TOKEN=token-1234\nLOCAL_DEMO_API_KEY=demo-key-1234\n");
    workspace.stack_file("dev", "config:\n  local:cidr: 10.42.0.0/16\n");
    let output = workspace.run(&export_args());
    output.expect_code(0);
    let stream = output.stdout();
    assert!(stream.len() > 4096, "{}", stream.len());
    let filled = stream.replace("${PULUMI_CONFIG_PASSPHRASE}", "a-much-longer-real-passphrase");
    workspace.file("filled.yaml", &filled);
    workspace.run(&["export", "check", "filled.yaml"]).expect_code(0);
    let last_document = stream.rfind("\n---\n").unwrap() + 1;
    for (name, cut) in [("cut-4096.yaml", &stream[..4096]), ("cut-document.yaml", &stream[..last_document])] {
        workspace.file(name, cut);
        workspace.run(&["export", "check", name]).expect_code(2).expect_stderr_contains("cut short");
    }
}

/// `export pko` refuses what `validate` refuses, with the same problems and exit status, and says
/// which backend the Stacks will use.
#[test]
fn export_runs_the_preflight_validate_runs_and_names_the_backend() {
    let workspace =
        local_workspace("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=preflight-1234\nLOCAL_CLUSTER_TOKEN=token-1234\nLOCAL_DEMO_API_KEY=demo-key-1234\n");
    copy_tree(&repository().join("providers"), &workspace.path("providers"));
    // A stack file made for `local`, exported for `aws`.
    workspace.stack_file("dev", "config:\n  kubernetes:infra_type: local\n  local:cidr: 10.42.0.0/16\n");
    let validate = workspace.run(&["validate", "--provider", "aws"]);
    validate.expect_code(2);
    let mut args = export_args();
    args[3] = "aws";
    let export = workspace.run(&args);
    export.expect_code(2);
    assert!(export.stdout().is_empty(), "{}", export.stdout());
    let problems = |stderr: String| {
        stderr.lines().filter(|line| !line.starts_with("warning:")).map(str::to_string).collect::<Vec<_>>()
    };
    assert_eq!(problems(export.stderr()), problems(validate.stderr()));

    let local = workspace.run(&export_args());
    local.expect_code(0).expect_stderr_contains("warning: the runner's default backend (`.runner/backend`");
    workspace.env_file("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=preflight-1234\nLOCAL_CLUSTER_TOKEN=token-1234\nLOCAL_DEMO_API_KEY=demo-key-1234\nPULUMI_BACKEND_URL=s3://state?region=eu-west-1\n");
    let shared = workspace.run(&export_args());
    shared
        .expect_code(0)
        .expect_stderr_contains("backend: the Stacks will use `s3://state?region=eu-west-1` (`spec.backend`)");
    assert!(shared.stdout().contains("backend: s3://state?region=eu-west-1"), "{}", shared.stdout());
}

/// `config set` and `up` keep the stack file as the user wrote it (four-space indentation, a
/// comment on the `config:` line, CRLF), or refuse before changing anything.
#[test]
fn the_stack_file_keeps_what_the_user_wrote_or_is_refused_first() {
    let workspace =
        local_workspace("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=stack-file-1234\nLOCAL_CLUSTER_TOKEN=token-1234\nLOCAL_DEMO_API_KEY=demo-key-1234\n");
    let stack_file = workspace.path("config/pulumi/Pulumi.dev.yaml");
    let written = "config: # set by hand\r\n    local:cidr: 10.42.0.0/16 # the lab range\r\n";
    workspace.stack_file("dev", written);
    let set = workspace.run(&["config", "set", "local:cluster_name", "lab-one", "--provider", "local"]);
    set.expect_code(0);
    assert_eq!(std::fs::read_to_string(&stack_file).unwrap(), format!("{written}    local:cluster_name: lab-one\r\n"));
    workspace.run(&["validate", "--provider", "local"]).expect_code(0);

    // A flow mapping over several lines cannot be extended line by line: `up` would have to
    // write the defaults there, so it stops before the lock, the history or the backend.
    let flow = "config: {\n  local:cidr: 10.42.0.0/16\n}\n";
    workspace.stack_file("dev", flow);
    let before = workspace.listing();
    let up = workspace.run(&["up", "--provider", "local", "--non-interactive"]);
    up.expect_code(2).expect_stderr_contains("config/pulumi/Pulumi.dev.yaml:1: cannot edit this stack file safely");
    assert_eq!(std::fs::read_to_string(&stack_file).unwrap(), flow);
    assert_eq!(workspace.listing(), before);
    assert!(up.stdout().is_empty(), "{}", up.stdout());
}

/// A kubeconfig holding comments is not rewritten without them: the hook fails naming the file
/// and line, and the file is left as the user wrote it (the real `pulumi` deploys the cluster).
#[test]
fn ext_a_commented_kubeconfig_is_refused_naming_the_line() {
    let mut workspace = local_workspace(
        "PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=kube-comment-1234\nLOCAL_CLUSTER_TOKEN=cluster-token-1234\n",
    );
    let home = workspace.path("home");
    let kubeconfig = home.join(".kube/config");
    std::fs::create_dir_all(kubeconfig.parent().unwrap()).unwrap();
    let users = "apiVersion: v1\nkind: Config\n# prod belongs to the ops team\nclusters:\n- name: prod\n  cluster:\n    server: https://prod.example\ncontexts:\n- name: prod\n  context:\n    cluster: prod\n    user: ops\ncurrent-context: prod\nusers:\n- name: ops\n  user:\n    token: ops-token\n";
    std::fs::write(&kubeconfig, users).unwrap();
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    let output = workspace.run(&[
        "up",
        "--provider",
        "local",
        "--non-interactive",
        "--only",
        "infrastructure/cluster",
        "--with-dependencies",
    ]);
    output.expect_code(1);
    let printed = format!("{}{}", output.stdout(), output.stderr());
    assert!(printed.contains(&format!("{}:3: a comment", kubeconfig.display())), "{printed}");
    assert_eq!(std::fs::read_to_string(&kubeconfig).unwrap(), users);
    let left: Vec<_> =
        std::fs::read_dir(kubeconfig.parent().unwrap()).unwrap().flatten().map(|entry| entry.file_name()).collect();
    assert_eq!(left.len(), 1, "no backup or temporary file: {left:?}");
}
