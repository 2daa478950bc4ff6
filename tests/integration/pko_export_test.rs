//! `runner export pko` against a real Kubernetes API server with the operator's v2.9.0 CRDs:
//! every shipped provider's export passes server-side validation, and the Stacks read back
//! carry exactly the runner's graph as `spec.prerequisites`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::kube_api_server::KubeApiServer;
use crate::support::{copy_tree, repository, Workspace};

const NAMESPACE: &str = "runner-export";
const SHIPPED: [&str; 4] = ["aws", "digitalocean", "linode", "local"];

fn shipped_workspace() -> Workspace {
    let workspace = Workspace::new();
    copy_tree(&repository().join("providers"), &workspace.path("providers"));
    copy_tree(&repository().join("projects"), &workspace.path("projects"));
    workspace.env_file(
        "PULUMI_STACK=dev\nAWS_REGION=us-east-1\nDO_TOKEN=dop_v1_not_real\nPULUMI_CONFIG_PASSPHRASE=never-printed\nLOCAL_DEMO_API_KEY=local-demo-key-1234\n",
    );
    // `export pko` runs `validate`'s preflight: every shipped provider must be valid over this
    // stack (no `kubernetes:infra_type`, which names one provider; every required key set).
    workspace.stack_file(
        "dev",
        "encryptionsalt: v1:abc\nconfig:\n  demo:replicas: 3\n  demo:password:\n    secure: v1:bm90IHJlYWw=\n  kic-helm:fqdn: demo.example.com\n  linode:soa_email: ops@example.com\n  digitalocean:token:\n    secure: v1:bm90IHJlYWw=\n  linode:token:\n    secure: v1:bm90IHJlYWw=\n",
    );
    // MARA's Python programs are not in this repository: stand-ins satisfy the runtime check.
    for manifest in walk(&workspace.path("projects/mara")).into_iter().filter(|path| path.ends_with("Pulumi.yaml")) {
        workspace.file(&manifest.parent().unwrap().join("__main__.py").display().to_string(), "");
    }
    let secrets = [
        "prometheus:adminpass",
        "sirius:accounts_pwd",
        "sirius:ledger_pwd",
        "sirius:demo_login_user",
        "sirius:demo_login_pwd",
        "linode:harbor_password",
        "linode:harbor_db_password",
        "linode:harbor_sudo_user_password",
    ];
    let secure: String = secrets.iter().map(|key| format!("  {key}:\n    secure: v1:bm90IHJlYWw=\n")).collect();
    workspace.file("projects/mara/kubernetes/secrets/Pulumi.dev.yaml", format!("config:\n{secure}"));
    workspace
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

fn export(workspace: &Workspace, provider: &str) -> String {
    let output = workspace.run(&[
        "export",
        "pko",
        "--provider",
        provider,
        "--stack",
        "dev",
        "--namespace",
        NAMESPACE,
        "--git-url",
        "https://github.com/acme/infra.git",
        "--git-branch",
        "main",
    ]);
    output.expect_code(0);
    let text = output.stdout();
    for secret in ["dop_v1_not_real", "never-printed", "bm90IHJlYWw="] {
        assert!(
            !text.contains(secret) && !output.stderr().contains(secret),
            "{secret} printed by the export of {provider}"
        );
    }
    text
}

/// `project path -> its dependencies` from `runner show --format json`.
fn graph_edges(workspace: &Workspace, provider: &str) -> BTreeMap<String, BTreeSet<String>> {
    let output = workspace.run(&["show", "--provider", provider, "--format", "json"]);
    output.expect_code(0);
    let show: Value = serde_json::from_str(&output.stdout()).unwrap();
    show["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|project| {
            let dependencies =
                project["depends_on"].as_array().unwrap().iter().map(|d| d.as_str().unwrap().to_string()).collect();
            (project["path"].as_str().unwrap().to_string(), dependencies)
        })
        .collect()
}

/// The same edges, read back from the Stacks the API server stored.
fn stored_edges(server: &KubeApiServer, provider_stacks: &BTreeSet<String>) -> BTreeMap<String, BTreeSet<String>> {
    let list: Value =
        serde_json::from_str(&server.kubectl(&["get", "stacks", "-n", NAMESPACE, "-o", "json"], None)).unwrap();
    let items: Vec<&Value> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| provider_stacks.contains(item["metadata"]["name"].as_str().unwrap()))
        .collect();
    let project_of: BTreeMap<&str, &str> = items
        .iter()
        .map(|item| {
            (
                item["metadata"]["name"].as_str().unwrap(),
                item["metadata"]["annotations"]["runner.dev/project"].as_str().unwrap(),
            )
        })
        .collect();
    items
        .iter()
        .map(|item| {
            let prerequisites = item["spec"]["prerequisites"].as_array().cloned().unwrap_or_default();
            let dependencies = prerequisites
                .iter()
                .map(|entry| {
                    let name = entry["name"].as_str().unwrap();
                    assert_eq!(entry["requirement"]["succeededWithinDuration"], "24h", "{entry}");
                    project_of.get(name).unwrap_or_else(|| panic!("prerequisite `{name}` is no Stack")).to_string()
                })
                .collect();
            (project_of[item["metadata"]["name"].as_str().unwrap()].to_string(), dependencies)
        })
        .collect()
}

fn stack_names(stream: &str) -> BTreeSet<String> {
    stream
        .split("\n---\n")
        .filter(|document| document.contains("kind: Stack"))
        .filter_map(|document| document.lines().find_map(|line| line.strip_prefix("  name: ")).map(str::to_string))
        .collect()
}

#[test]
fn ext_every_shipped_export_passes_the_real_api_server_and_keeps_the_graph() {
    let workspace = shipped_workspace();
    let server = KubeApiServer::start(&workspace.path("kube"));
    let crds = repository().join("tests/fixtures/pko-crds-v2.9.0");
    // Server-side: the Stack CRD is too large for client-side apply's last-applied annotation.
    server.kubectl(&["apply", "--server-side", "-f", crds.to_str().unwrap()], None);
    // `kubectl wait` fails outright while the new CRD has no conditions yet: poll instead.
    server.wait_until("the Stack CRD is established and served", || {
        server.kubectl_output(&["get", "stacks", "--all-namespaces"], None).status.success()
    });
    server.kubectl(&["create", "namespace", NAMESPACE], None);

    for provider in SHIPPED {
        let stream = export(&workspace, provider);
        server.kubectl(&["apply", "--server-side", "--dry-run=server", "-f", "-"], Some(&stream));
        server.kubectl(&["apply", "--server-side", "-f", "-"], Some(&stream));
        let names = stack_names(&stream);
        assert!(!names.is_empty());
        assert_eq!(stored_edges(&server, &names), graph_edges(&workspace, provider), "provider {provider}");
    }
    // Why the runner checks first: the server takes a window the operator cannot parse.
    let local = export(&workspace, "local");
    let unparsable = local.replacen("succeededWithinDuration: 24h", "succeededWithinDuration: 'five minutes'", 1);
    server.kubectl(&["apply", "--server-side", "--dry-run=server", "-f", "-"], Some(&unparsable));
    workspace.file("unparsable.yaml", &unparsable);
    workspace.run(&["export", "check", "unparsable.yaml"]).expect_code(2);

    // The Secret the Stacks read is the template, with placeholders only.
    let secret: Value = serde_json::from_str(
        &server.kubectl(&["get", "secret", "dev-runner-secrets", "-n", NAMESPACE, "-o", "json"], None),
    )
    .unwrap();
    assert!(secret["data"].as_object().unwrap().contains_key("PULUMI_CONFIG_PASSPHRASE"), "{secret}");
}

#[test]
fn bad_exports_are_stopped_by_the_runner_before_the_server() {
    let workspace = shipped_workspace();
    let stream = export(&workspace, "local");
    workspace.file("good.yaml", &stream);
    workspace.run(&["export", "check", "good.yaml"]).expect_code(0);

    let long_name = "dev-infrastructure-network-with-a-fifty-char-names";
    assert_eq!(long_name.len(), 50);
    let renamed = stream.replace("name: dev-infrastructure-network\n", &format!("name: {long_name}\n"));
    assert_ne!(renamed, stream);
    workspace.file("long.yaml", &renamed);
    workspace
        .run(&["export", "check", "long.yaml"])
        .expect_code(2)
        .expect_stderr_contains("name has 50 characters, the operator allows at most 42");

    let integer = stream.replacen("succeededWithinDuration: 24h", "succeededWithinDuration: 300", 1);
    workspace.file("integer.yaml", &integer);
    workspace
        .run(&["export", "check", "integer.yaml"])
        .expect_code(2)
        .expect_stderr_contains("must be a Go duration string such as `5m`, not `300`");

    let quoted = stream.replacen("succeededWithinDuration: 24h", "succeededWithinDuration: 'five minutes'", 1);
    workspace.file("quoted.yaml", &quoted);
    workspace
        .run(&["export", "check", "quoted.yaml"])
        .expect_code(2)
        .expect_stderr_contains("`five minutes` is not a Go duration");

    let env = stream.replacen("type: Literal", "type: Env", 1);
    assert_ne!(env, stream);
    workspace.file("env.yaml", &env);
    workspace.run(&["export", "check", "env.yaml"]).expect_code(2).expect_stderr_contains("type `Env`");

    // The generator refuses what the operator would reject, before writing anything.
    let bad_git = workspace.run(&[
        "export",
        "pko",
        "--provider",
        "local",
        "--stack",
        "dev",
        "--git-url",
        "https://github.com/acme",
        "--git-branch",
        "main",
    ]);
    bad_git.expect_code(2).expect_stderr_contains("names no owner and repository");
    assert_eq!(bad_git.stdout(), "");
    let both = workspace.run(&[
        "export",
        "pko",
        "--provider",
        "local",
        "--stack",
        "dev",
        "--git-url",
        "https://github.com/acme/infra",
        "--git-branch",
        "main",
        "--git-commit",
        "abc1234",
    ]);
    both.expect_code(2);
    assert_eq!(both.stdout(), "");
    workspace
        .run(&[
            "export",
            "pko",
            "--provider",
            "local",
            "--stack",
            "dev",
            "--namespace",
            "Infra_Team",
            "--git-url",
            "https://github.com/acme/infra",
            "--git-branch",
            "main",
        ])
        .expect_code(2)
        .expect_stderr_contains("is not a DNS label");
}
