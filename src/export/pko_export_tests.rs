use super::*;

/// `export pko`'s default `--prerequisite-window`.
const DEFAULT_PREREQUISITE_WINDOW: Duration = Duration::from_secs(24 * 3600);
use crate::config::RepositoryRoot;
use crate::provider::ProviderCatalog;

const PROVIDER: &str = r#"
description = "seed 000 in a cluster"
plain_environment = ["LOG_LEVEL"]
[[config]]
key = "demo:region"
prompt = "Region"
default = "eu-west-1"

[[project]]
path = "infrastructure/vault"
phase = "infrastructure"
retry = { attempts = 3, backoff = "10s", on = ["connection reset"] }
ready = [{ tcp = "127.0.0.1:8200", timeout = "1m" }]

[[project]]
path = "update-vault-creds"
dir = "use-vault"
phase = "infrastructure"
targets = ["urn:pulumi:dev::use-vault::pulumi:providers:vault::creds"]
target_dependents = true
only_as_prerequisite = true
depends_on = ["infrastructure/vault"]

[[project]]
path = "use-vault"
phase = "infrastructure"
refresh = true
depends_on = ["infrastructure/vault"]
prerequisites = [{ project = "update-vault-creds", succeeded_within = "5m" }, { project = "infrastructure/vault", succeeded_within = "90m" }]
secrets = [{ key = "demo:db_password", prompt = "Database password", default_env = "DEMO_DB_PASSWORD" }]
on_success = [{ command = { argv = ["./notify", "done"], timeout = "1m" } }]

[[project]]
path = "kubernetes/applications/a-rather-long-application-name"
phase = "kubernetes"
depends_on = ["use-vault"]
"#;

fn export(window: Duration, destroy: bool, reference: GitReference) -> Result<PkoExport> {
    let dir = tempfile::tempdir().unwrap();
    let root_path = dir.path();
    std::fs::create_dir_all(root_path.join("providers")).unwrap();
    std::fs::write(root_path.join("providers/seed.toml"), PROVIDER).unwrap();
    for (folder, name) in [
        ("infrastructure/vault", "vault"),
        ("use-vault", "use-vault"),
        ("kubernetes/applications/a-rather-long-application-name", "long-app"),
    ] {
        let project = root_path.join("projects").join(folder);
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join("Pulumi.yaml"), format!("name: {name}\nruntime: yaml\n")).unwrap();
    }
    let root = RepositoryRoot::at(root_path).unwrap();
    let provider = ProviderCatalog::new(root.clone()).load("seed", None).unwrap();
    let stack_config = StackConfig::parse(
        Path::new("config/pulumi/Pulumi.dev.yaml"),
        "encryptionsalt: v1:abc\nconfig:\n  demo:region: eu-west-1\n  demo:replicas: 3\n  demo:tags:\n    team: infra\n  demo:db_password:\n    secure: v1:c2VjcmV0\n".into(),
    )
    .unwrap();
    let environment = EnvironmentFile::parse(
        Path::new("config/pulumi/environment"),
        "PULUMI_STACK=dev\nPULUMI_BACKEND_URL=s3://state?region=eu-west-1\nAWS_REGION=eu-west-1\nVAULT_TOKEN=hvs.real-token\nDEMO_DB_PASSWORD=hunter2-hunter2\nPULUMI_CONFIG_PASSPHRASE=correct horse\nKUBECONFIG=.runner/kube/config\nDD_API_KEY=dd-0123456789\nDB_PASS=pw\nGH_PAT=ghp_abcdef\nLOG_LEVEL=debug\n",
    )
    .unwrap();
    let options = PkoExportOptions {
        namespace: "infra".into(),
        git: GitSource { url: "https://github.com/acme/infra.git".into(), reference },
        destroy_on_finalize: destroy,
        secret_name: "dev-runner-secrets".into(),
        default_window: window,
    };
    PkoExport::build(&provider, root.path(), "dev", &stack_config, &environment, &options)
}

#[test]
fn seed_000_export() {
    let export = export(DEFAULT_PREREQUISITE_WINDOW, true, GitReference::Branch("main".into())).unwrap();
    insta::assert_snapshot!(export.render());
}

#[test]
fn no_secret_value_is_ever_a_literal() {
    let text = export(DEFAULT_PREREQUISITE_WINDOW, false, GitReference::Commit("0123abc".into())).unwrap().render();
    // Secret by the one rule masking uses: named like nothing secret is no longer a way out.
    for secret in ["hvs.real-token", "hunter2-hunter2", "correct horse", "c2VjcmV0", "dd-0123456789", "ghp_abcdef"] {
        assert!(!text.contains(secret), "{secret} leaked:\n{text}");
    }
    assert!(!text.contains("value: pw"), "{text}");
    // Declared plain in the provider file: a literal, in the export as in the logs.
    assert!(text.contains("LOG_LEVEL:\n      type: Literal\n      literal:\n        value: debug"), "{text}");
    assert!(text.contains("commit: 0123abc") && !text.contains("branch:"));
    assert!(!text.contains("destroyOnFinalize"));
}

#[test]
fn every_dependency_and_prerequisite_is_an_edge_with_its_window() {
    let export = export(Duration::from_secs(7200), false, GitReference::Branch("main".into())).unwrap();
    let use_vault = export.documents.iter().find(|document| document["metadata"]["name"] == "dev-use-vault").unwrap();
    let edges: Vec<(String, String)> = use_vault["spec"]["prerequisites"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["name"].as_str().unwrap().to_string(),
                entry["requirement"]["succeededWithinDuration"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        edges,
        [("dev-infrastructure-vault".into(), "1h30m".into()), ("dev-update-vault-creds".into(), "5m".into())]
    );
    let app = export.names.iter().find(|(path, _)| path.as_str().starts_with("kubernetes/")).unwrap();
    assert!(app.1.shortened_from.is_some() && app.1.name.len() <= 42, "{:?}", app.1);
    let app_doc = export.documents.iter().find(|d| d["metadata"]["name"] == app.1.name.as_str()).unwrap();
    assert_eq!(app_doc["spec"]["prerequisites"][0]["requirement"]["succeededWithinDuration"], "2h");
}

#[test]
fn hooks_gates_and_retries_are_listed_not_dropped() {
    let export = export(DEFAULT_PREREQUISITE_WINDOW, false, GitReference::Branch("main".into())).unwrap();
    let listed = export.not_exported.join("\n");
    for needle in [
        "on_success hook (run `./notify done`)",
        "ready gate tcp 127.0.0.1:8200",
        "retry policy (3 attempts)",
        "only_as_prerequisite",
    ] {
        assert!(listed.contains(needle), "{needle} missing from\n{listed}");
    }
    assert!(export.warnings.iter().any(|warning| warning.contains("KUBECONFIG")));
}
