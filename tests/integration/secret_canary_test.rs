//! Secrets planted everywhere a secret can come from must not appear in anything the runner
//! prints or writes: terminal output, `.runner/` (logs, event logs, history) and reports.

use crate::support::{copy_tree, path_with, real_pulumi_dir, stash_local, Workspace};

const PASSPHRASE: &str = "canary-passphrase-AAAA";
const CLUSTER_TOKEN: &str = "canary-token-BBBB";
const NAMED_TOKEN: &str = "canary-apitoken-CCCC";
const DECLARED: &str = "canary-declared-DDDD";
/// Secret only because the program marks it `fn::secret`: no variable name gives it away.
const OUTPUT: &str = "canary-output-EEEE";

#[test]
fn ext_no_secret_leaks_through_up_failure_refresh_and_destroy() {
    let mut workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    let local = std::fs::read_to_string(stash_local().join("providers/local.toml")).unwrap();
    let declared =
        "[[config]]\nkey = \"local:api_key\"\nprompt = \"API key\"\nsecret = true\ndefault_env = \"LOCAL_API_KEY\"\n\n";
    let local = local.replacen("[[config]]", &format!("{declared}[[config]]"), 1);
    workspace.provider("local", &local);
    // The same projects plus one whose program fails with every secret in its error message.
    let leaky = "\n[[project]]\npath = \"infrastructure/leaky\"\nphase = \"infrastructure\"\n";
    // ...and one whose `fn::secret` output is printed by a failing command hook.
    let hooked = "\n[[project]]\npath = \"infrastructure/hooked\"\nphase = \"infrastructure\"\non_success = [{ command = { argv = [\"sh\", \"-c\", \"echo \\\"token is $RUNNER_OUTPUT_TOKEN\\\"; echo \\\"token is $RUNNER_OUTPUT_TOKEN\\\" >&2; exit 3\"] } }]\n";
    workspace.provider("canary", &format!("{local}{leaky}{hooked}"));
    workspace.file(
        "projects/local/infrastructure/hooked/Pulumi.yaml",
        format!("name: local-hooked\nruntime: yaml\nstackConfigDir: ../../../../config/pulumi\noutputs:\n  plain: visible\n  token:\n    fn::secret: {OUTPUT}\n"),
    );
    workspace.file(
        "projects/local/infrastructure/leaky/Pulumi.yaml",
        format!("name: local-leaky\nruntime: yaml\nstackConfigDir: ../../../../config/pulumi\nvariables:\n  broken:\n    fn::readFile: ./missing-{PASSPHRASE}-{CLUSTER_TOKEN}-{NAMED_TOKEN}-{DECLARED}\noutputs:\n  value: ${{broken}}\n"),
    );
    workspace.env_file(&format!(
        "PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE={PASSPHRASE}\nLOCAL_CLUSTER_TOKEN={CLUSTER_TOKEN}\nMY_API_TOKEN={NAMED_TOKEN}\nLOCAL_API_KEY={DECLARED}\n"
    ));
    let home = workspace.path("home");
    workspace
        .set_env("PATH", path_with(&real_pulumi_dir()))
        .set_env("HOME", home.display().to_string())
        .set_env("KUBECONFIG", home.join(".kube/config").display().to_string());

    let mut printed = String::new();
    let runs: [(&[&str], i32); 4] = [
        (&["up", "--provider", "local"], 0),
        (&["up", "--provider", "canary"], 1),
        (&["refresh", "--provider", "local"], 0),
        (&["destroy", "--provider", "local", "--yes"], 0),
    ];
    for (i, (args, code)) in runs.iter().enumerate() {
        let mut full: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        full.extend(["--stack", "dev", "--verbose", "--non-interactive"].map(String::from));
        full.push(format!("--report=json=reports/{i}.json"));
        full.push(format!("--report=junit=reports/{i}.xml"));
        let full: Vec<&str> = full.iter().map(String::as_str).collect();
        let output = workspace.run(&full);
        output.expect_code(*code);
        if i == 0 {
            // The kubeconfig (outside `.runner/`) did get the real token: masking is for output
            // only. (The `destroy` at the end takes the entry out again.)
            let kubeconfig = std::fs::read_to_string(home.join(".kube/config")).unwrap();
            assert!(kubeconfig.contains(CLUSTER_TOKEN), "{kubeconfig}");
        }
        printed.push_str(&output.stdout());
        printed.push_str(&output.stderr());
    }
    assert!(printed.contains("[secret]"), "the failing run must have masked something:\n{printed}");

    let mut leaks = Vec::new();
    assert!(printed.contains("token is [secret]"), "the failing hook's message must be shown, masked:\n{printed}");
    for secret in [PASSPHRASE, CLUSTER_TOKEN, NAMED_TOKEN, DECLARED, OUTPUT] {
        if printed.contains(secret) {
            leaks.push(format!("{secret} in the output"));
        }
        for file in workspace.listing().into_iter().filter(|f| f.starts_with(".runner/") || f.starts_with("reports/")) {
            let bytes = std::fs::read(workspace.path(&file)).unwrap();
            if String::from_utf8_lossy(&bytes).contains(secret) {
                leaks.push(format!("{secret} in {file}"));
            }
        }
    }
    assert!(leaks.is_empty(), "secrets leaked:\n{}", leaks.join("\n"));
    let kubeconfig = std::fs::read_to_string(home.join(".kube/config")).unwrap_or_default();
    assert!(!kubeconfig.contains(CLUSTER_TOKEN), "destroy takes out the user it installed:\n{kubeconfig}");
}
