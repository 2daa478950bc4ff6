//! Seed 000, against the real `pulumi`: an explicit provider captures a credential in the state;
//! after the credential is rotated, refresh fails until a targeted `up` of the provider resource
//! runs first. The runner runs that prerequisite when it has not succeeded within its window.

use crate::support::{real_pulumi_dir, tokenauth_plugin_dir, Workspace};

const PROGRAM: &str = r#"name: use-vault
runtime: yaml
variables:
  token:
    fn::invoke:
      function: tokenauth:index:getEnv
      arguments:
        name: VAULT_TOKEN
      return: value
resources:
  creds:
    type: pulumi:providers:tokenauth
    properties:
      token: ${token}
  greeting:
    type: tokenauth:index:Secret
    properties:
      value: hello
    options:
      provider: ${creds}
outputs:
  value: ${greeting.value}
"#;

const PROVIDER_URN: &str = "urn:pulumi:dev::use-vault::pulumi:providers:tokenauth::creds";

fn environment(workspace: &Workspace, token: &str) {
    let vault = workspace.path("vault");
    std::fs::write(&vault, format!("{token}\n")).unwrap();
    workspace.env_file(&format!(
        "PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=seed-000-passphrase\nTOKENAUTH_VAULT={}\nVAULT_TOKEN={token}\n",
        vault.display()
    ));
}

fn history_projects(workspace: &Workspace) -> Vec<Vec<String>> {
    let mut runs: Vec<serde_json::Value> = std::fs::read_dir(workspace.path(".runner/history"))
        .unwrap()
        .flatten()
        .map(|entry| serde_json::from_slice(&std::fs::read(entry.path()).unwrap()).unwrap())
        .collect();
    runs.sort_by(|a, b| a["started"].as_f64().partial_cmp(&b["started"].as_f64()).unwrap());
    runs.iter()
        .filter(|run| run["provider"] == "vault")
        .map(|run| {
            run["projects"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| format!("{} {}", p["project"].as_str().unwrap(), p["result"].as_str().unwrap()))
                .collect()
        })
        .collect()
}

#[test]
fn ext_refresh_after_credential_rotation_succeeds_because_the_prerequisite_ran_first() {
    let mut workspace = Workspace::new();
    workspace.file("projects/use-vault/Pulumi.yaml", PROGRAM);
    workspace.provider("plain", "[[project]]\npath = \"use-vault\"\nphase = \"infrastructure\"\n");
    // The window is long enough for a loaded machine to get from one run to the next inside it;
    // the provider is rewritten with a short one further down to see it pass.
    let vault = |window: &str| {
        format!(
            r#"
[[project]]
path = "update-vault-creds"
dir = "use-vault"
phase = "infrastructure"
targets = ["{PROVIDER_URN}"]
only_as_prerequisite = true

[[project]]
path = "use-vault"
phase = "infrastructure"
prerequisites = [{{ project = "update-vault-creds", succeeded_within = "{window}" }}]
"#
        )
    };
    workspace.provider("vault", &vault("2m"));
    let home = workspace.path("home");
    workspace
        .set_env(
            "PATH",
            format!(
                "{}:{}:{}",
                tokenauth_plugin_dir().display(),
                real_pulumi_dir().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .set_env("HOME", home.display().to_string());

    environment(&workspace, "token-1");
    workspace.run(&["up", "--provider", "plain", "--non-interactive"]).expect_code(0);

    // Rotate: the old token is revoked, the new one is in the environment. The state still
    // holds the old one, so a plain refresh fails.
    environment(&workspace, "token-2");
    workspace
        .run(&["refresh", "--provider", "plain", "--non-interactive"])
        .expect_code(1)
        .expect_stderr_contains("permission denied");

    // With the prerequisite, the targeted update of the provider runs first and refresh succeeds.
    workspace
        .run(&["refresh", "--provider", "vault", "--non-interactive"])
        .expect_code(0)
        .expect_stderr_contains("prerequisite `update-vault-creds` has not succeeded within 2m: running it first");
    // Inside its window it is not run again.
    workspace
        .run(&["refresh", "--provider", "vault", "--non-interactive"])
        .expect_code(0)
        .expect_stderr_contains("prerequisite `update-vault-creds` succeeded");
    assert_eq!(
        history_projects(&workspace),
        [
            vec!["use-vault succeeded".to_string(), "update-vault-creds succeeded".to_string()],
            vec!["use-vault succeeded".to_string()]
        ]
    );

    // Rotate again and let a shorter window pass: destroy, too, refreshes the credentials first.
    environment(&workspace, "token-3");
    workspace.provider("vault", &vault("1s"));
    std::thread::sleep(std::time::Duration::from_millis(1500));
    workspace
        .run(&["destroy", "--provider", "vault", "--non-interactive", "--yes"])
        .expect_code(0)
        .expect_stderr_contains("running it first");
}
