//! The shipped `local` provider against a real control plane (`scripts/local-cluster.sh`) and
//! the real Pulumi Kubernetes provider: what `up` deploys is what `kubectl` shows, a change made
//! with `kubectl` is drift, `destroy` leaves nothing, and a `kubernetes` gate holds a dependent
//! until the API server says the object is ready.

use std::process::Stdio;
use std::time::{Duration, Instant, SystemTime};

use base64::Engine;

use crate::local_cluster::{install_kubernetes_plugin, kubectl_ok, LocalCluster};
use crate::support::{copy_tree, path_with, real_pulumi_dir, repository, Workspace};

const API_KEY: &str = "real-cluster-demo-key-8d1f";
const PASSPHRASE: &str = "real-cluster-passphrase";

/// The shipped `local` provider, projects and environment example in a workspace whose `HOME`
/// has the Kubernetes plugin installed.
fn shipped_local() -> Workspace {
    let mut workspace = Workspace::new();
    copy_tree(&repository().join("projects/local"), &workspace.path("projects/local"));
    std::fs::copy(repository().join("providers/local.toml"), workspace.path("providers/local.toml")).unwrap();
    let example = std::fs::read_to_string(repository().join("config/pulumi/environment.example")).unwrap();
    let environment = example
        .replace("LOCAL_DEMO_API_KEY=local-dev-demo-key", &format!("LOCAL_DEMO_API_KEY={API_KEY}"))
        .replace("PULUMI_CONFIG_PASSPHRASE=local-dev-passphrase", &format!("PULUMI_CONFIG_PASSPHRASE={PASSPHRASE}"));
    assert!(environment.contains(API_KEY) && environment.contains(PASSPHRASE), "the example changed:\n{example}");
    workspace.env_file(&environment);
    let home = workspace.path("home");
    install_kubernetes_plugin(&home);
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    workspace
}

/// `kubectl` through the kubeconfig the runner's hook installed (the environment's `KUBECONFIG`).
fn installed_kubectl(workspace: &Workspace, args: &[&str]) -> String {
    kubectl_ok(&workspace.path(".runner/kube/config"), args)
}

#[test]
fn ext_local_deploys_into_the_real_control_plane_notices_drift_and_destroys_in_reverse() {
    let workspace = shipped_local();
    let cluster = LocalCluster::start(&workspace);
    let up = workspace.run(&["up", "--provider", "local", "--stack", "dev", "--non-interactive"]);
    up.expect_code(0);
    assert!(up.stderr().contains("ready: kubernetes CRD certificates.certs.runner.dev passed"), "{}", up.stderr());

    // What the kubernetes phase deployed, seen through the kubeconfig the hook installed.
    let namespaces = installed_kubectl(&workspace, &["get", "namespaces", "-o", "name"]);
    for namespace in ["namespace/cert-manager", "namespace/demo"] {
        assert!(namespaces.lines().any(|line| line == namespace), "{namespace} missing:\n{namespaces}");
    }
    let objects = installed_kubectl(
        &workspace,
        &[
            "get",
            "configmaps,secrets,deployments,services,serviceaccounts,roles,rolebindings",
            "-n",
            "demo",
            "-o",
            "name",
        ],
    );
    for object in [
        "configmap/demo-settings",
        "secret/demo-credentials",
        "deployment.apps/demo",
        "service/demo",
        "serviceaccount/demo",
        "role.rbac.authorization.k8s.io/demo-reader",
        "rolebinding.rbac.authorization.k8s.io/demo-reader",
    ] {
        assert!(objects.lines().any(|line| line == object), "{object} missing:\n{objects}");
    }
    let crds = installed_kubectl(&workspace, &["get", "crd", "-o", "name"]);
    assert!(
        crds.contains("certificates.certs.runner.dev") && crds.contains("clusterissuers.certs.runner.dev"),
        "{crds}"
    );
    let custom = installed_kubectl(&workspace, &["get", "clusterissuers,certificates", "-A", "-o", "name"]);
    assert!(custom.contains("clusterissuer.certs.runner.dev/local-dev-ca"), "{custom}");
    assert!(custom.contains("certificate.certs.runner.dev/demo-tls"), "{custom}");
    // The stack secret reached the Secret, and nothing the runner printed or logged.
    let stored = installed_kubectl(
        &workspace,
        &["get", "secret", "demo-credentials", "-n", "demo", "-o", "jsonpath={.data.api-key}"],
    );
    assert_eq!(stored, base64::engine::general_purpose::STANDARD.encode(API_KEY));
    assert!(!up.stdout().contains(API_KEY) && !up.stderr().contains(API_KEY));
    for log in workspace.listing().into_iter().filter(|file| file.starts_with(".runner/logs/")) {
        let text = std::fs::read_to_string(workspace.path(&log)).unwrap_or_default();
        assert!(!text.contains(API_KEY) && !text.contains(PASSPHRASE), "a secret reached {log}");
    }

    // A change made behind Pulumi's back is drift of the project that owns the object.
    installed_kubectl(
        &workspace,
        &[
            "patch",
            "configmap",
            "demo-settings",
            "-n",
            "demo",
            "--type",
            "merge",
            "-p",
            r#"{"data":{"hostname":"changed.example"}}"#,
        ],
    );
    let drift = workspace.run(&["drift", "--provider", "local", "--stack", "dev"]);
    drift.expect_code(3);
    let said = format!("{}{}", drift.stdout(), drift.stderr());
    assert!(said.contains("drift found in 1 of 6 projects: kubernetes/applications/demo"), "{said}");
    assert!(said.contains("kubernetes:core/v1:ConfigMap") && said.contains("settings"), "{said}");
    // `refresh` records the live object; drift is then gone, and `up` puts the program's back.
    workspace.run(&["refresh", "--provider", "local", "--stack", "dev", "--non-interactive"]).expect_code(0);
    workspace.run(&["drift", "--provider", "local", "--stack", "dev"]).expect_code(0);
    workspace.run(&["up", "--provider", "local", "--stack", "dev", "--non-interactive"]).expect_code(0);
    let hostname = installed_kubectl(
        &workspace,
        &["get", "configmap", "demo-settings", "-n", "demo", "-o", "jsonpath={.data.hostname}"],
    );
    assert_eq!(hostname, "demo.local-dev.test");

    // Destroy, kubernetes phase first: nothing of ours is left in the cluster, read as its admin
    // (the hook's kubeconfig entries are gone after `destroy`).
    workspace.run(&["destroy", "--provider", "local", "--stack", "dev", "--yes"]).expect_code(0);
    let namespaces = cluster.names("namespaces");
    assert!(!namespaces.iter().any(|name| name == "demo" || name == "cert-manager"), "{namespaces:?}");
    assert!(cluster.names("crd").is_empty());
    assert!(!cluster.names("clusterroles").iter().any(|name| name.contains("runner-local")));
}

/// The shipped network and cluster projects, a webhook whose Service has no pod behind it (no
/// kubelet runs), gated on `kubernetes = "svc/..."`, and a consumer of it.
const GATED: &str = r#"description = "a consumer behind a webhook gate"
infra_type = "local"
projects_root = "projects/local"

[[project]]
path = "infrastructure/network"
phase = "infrastructure"

[[project]]
path = "infrastructure/cluster"
phase = "infrastructure"
depends_on = ["infrastructure/network"]
provides_cluster = true
always_run = true
on_success = [{ kubeconfig = { output = "kubeconfig", switch_context = true } }]

[[project]]
path = "kubernetes/webhook"
phase = "kubernetes"
ready = [{ kubernetes = "svc/webhook", namespace = "gate-test", timeout = "3m", interval = "1s" }]

[[project]]
path = "kubernetes/consumer"
phase = "kubernetes"
depends_on = ["kubernetes/webhook"]
"#;

const WEBHOOK: &str = r#"name: gate-webhook
runtime: yaml
resources:
  cluster:
    type: pulumi:pulumi:StackReference
    properties:
      name: organization/local-cluster/${pulumi.stack}
  kubernetes:
    type: pulumi:providers:kubernetes
    properties:
      kubeconfig: ${cluster.outputs["kubeconfig"]}
  namespace:
    type: kubernetes:core/v1:Namespace
    properties:
      metadata:
        name: gate-test
    options:
      provider: ${kubernetes}
  service:
    type: kubernetes:core/v1:Service
    properties:
      metadata:
        name: webhook
        namespace: ${namespace.metadata.name}
        annotations:
          pulumi.com/skipAwait: "true"
      spec:
        selector: { app: webhook }
        ports: [{ port: 443, targetPort: 10250 }]
    options:
      provider: ${kubernetes}
"#;

const CONSUMER: &str = "name: gate-consumer\nruntime: yaml\nresources:\n  started:\n    type: pulumi:index:Stash\n    properties:\n      input: after-the-webhook\n";

/// What the endpoint slice controller would write once a webhook pod is ready.
const READY_SLICE: &str = r#"apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: webhook-ready
  namespace: gate-test
  labels: { kubernetes.io/service-name: webhook, endpointslice.kubernetes.io/managed-by: runner-tests }
addressType: IPv4
ports: [{ name: "", port: 10250, protocol: TCP }]
endpoints:
  - addresses: ["10.0.0.5"]
    conditions: { ready: true }
"#;

#[test]
fn ext_a_kubernetes_gate_holds_the_dependent_until_the_service_has_a_ready_endpoint() {
    let workspace = shipped_local();
    workspace.provider("gated", GATED);
    workspace.file("projects/local/kubernetes/webhook/Pulumi.yaml", WEBHOOK);
    workspace.file("projects/local/kubernetes/consumer/Pulumi.yaml", CONSUMER);
    let cluster = LocalCluster::start(&workspace);
    let stderr_path = workspace.path("up.stderr");
    let mut up = workspace.std_command(&[
        "up",
        "--provider",
        "gated",
        "--stack",
        "dev",
        "--non-interactive",
        "--progress",
        "plain",
    ]);
    let mut child = up.stdout(Stdio::null()).stderr(std::fs::File::create(&stderr_path).unwrap()).spawn().unwrap();
    let stderr = || std::fs::read_to_string(&stderr_path).unwrap_or_default();

    let waiting = Instant::now();
    while !stderr().contains("waiting until ready: kubernetes service gate-test/webhook") {
        assert!(child.try_wait().unwrap().is_none(), "up ended before the gate:\n{}", stderr());
        assert!(waiting.elapsed() < Duration::from_secs(180), "the gate never started:\n{}", stderr());
        std::thread::sleep(Duration::from_millis(200));
    }
    // Several attempts find the Service without a ready endpoint; the consumer has not started.
    std::thread::sleep(Duration::from_secs(4));
    assert!(child.try_wait().unwrap().is_none(), "up ended while nothing was ready:\n{}", stderr());
    assert!(!stderr().contains("kubernetes/consumer started"), "{}", stderr());
    let consumer_stack = workspace.path(".runner/backend/.pulumi/stacks/gate-consumer");
    assert!(!consumer_stack.exists(), "the consumer's stack exists before the webhook was ready");

    workspace.file("ready-slice.yaml", READY_SLICE);
    cluster.kubectl_ok(&["apply", "-f", workspace.path("ready-slice.yaml").to_str().unwrap()]);
    let ready_at = SystemTime::now();
    let status = child.wait().unwrap();
    let text = stderr();
    assert_eq!(status.code(), Some(0), "{text}");
    let passed =
        text.lines().find(|line| line.contains("ready: kubernetes service gate-test/webhook passed after")).unwrap();
    let attempts: u32 = passed.split("passed after ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(attempts >= 3, "{passed}");
    // The consumer's stack was made after the endpoint was: the gate held it until then.
    let created = std::fs::metadata(consumer_stack.join("dev.json")).unwrap().modified().unwrap();
    assert!(created >= ready_at, "the consumer's stack is older than the ready endpoint");
    let consumer = text.lines().position(|line| line.contains("kubernetes/consumer started")).unwrap();
    let gate = text.lines().position(|line| line == passed).unwrap();
    assert!(consumer > gate, "{text}");
}

/// `scripts/local-cluster.sh start` is safe to repeat: a running cluster is left alone, and
/// what a crash or a reboot left (pid files of processes that are gone) is cleared before the
/// same data starts again; `status` tells which, `delete` removes everything.
#[test]
fn ext_the_local_cluster_starts_twice_and_again_after_its_processes_were_killed() {
    let workspace = Workspace::new();
    let cluster = LocalCluster::start(&workspace);
    cluster.kubectl_ok(&["create", "namespace", "kept-across-restarts"]);
    let pids = |dir: &std::path::Path| -> Vec<u32> {
        ["etcd", "kube-apiserver", "kube-controller-manager"]
            .iter()
            .map(|name| std::fs::read_to_string(dir.join(format!("run/{name}.pid"))).unwrap().trim().parse().unwrap())
            .collect()
    };
    let state = workspace.path(".runner/local-cluster");
    let first = pids(&state);

    let again = cluster.script("start").output().unwrap();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already running"));
    assert_eq!(pids(&state), first, "a running cluster is left alone");

    // A crash, or a reboot: every process gone at once, the pid files left behind.
    for pid in &first {
        let _ = std::process::Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    while first.iter().any(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists()) {
        assert!(Instant::now() < deadline, "the killed processes did not go");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(cluster.script("status").status().unwrap().code(), Some(1));
    let restarted = cluster.script("start").output().unwrap();
    assert!(restarted.status.success(), "{}", String::from_utf8_lossy(&restarted.stderr));
    assert_ne!(pids(&state), first);
    assert_eq!(cluster.script("status").status().unwrap().code(), Some(0));
    let kept = cluster.kubectl_ok(&["get", "namespace", "kept-across-restarts", "-o", "name"]);
    assert_eq!(kept.trim(), "namespace/kept-across-restarts", "the data stays across restarts");

    let deleted = cluster.script("delete").output().unwrap();
    assert!(deleted.status.success());
    assert!(!state.exists(), "delete removes the state folder");
}

const UP: [&str; 6] = ["up", "--provider", "local", "--stack", "dev", "--non-interactive"];

/// The two ways a newcomer meets the `local` provider without its control plane, each answered
/// by the provider's `failure_hints` under Pulumi's own error: never started in this checkout
/// (the cluster project cannot read its state), and stopped after a deploy (a reboot: the
/// kubernetes projects' API server refuses connections).
#[test]
fn ext_local_without_its_running_control_plane_says_how_to_start_it() {
    let workspace = shipped_local();
    let up = |only: &[&str]| workspace.run(&[&UP[..], only].concat());
    let never_started = up(&["--only", "infrastructure/cluster"]);
    never_started.expect_code(1);
    let said = never_started.stderr();
    assert!(said.contains("local-cluster/server: no such file or directory"), "{said}");
    assert!(
        said.contains("  hint: the local control plane has no state in this checkout: start it with `bash scripts/local-cluster.sh start`"),
        "{said}"
    );

    let cluster = LocalCluster::start(&workspace);
    up(&[]).expect_code(0);
    let stopped = cluster.script("stop").output().unwrap();
    assert!(stopped.status.success(), "{}", String::from_utf8_lossy(&stopped.stderr));
    let after_a_reboot = up(&["--only", "kubernetes/certmgr"]);
    after_a_reboot.expect_code(1);
    let said = after_a_reboot.stderr();
    assert!(said.contains("connection refused"), "{said}");
    assert!(
        said.contains(
            "  hint: the local control plane is not running: `bash scripts/local-cluster.sh status`, then `start`"
        ),
        "{said}"
    );
}
