//! The `local` provider's real control plane (`scripts/local-cluster.sh`: etcd, kube-apiserver
//! and kube-controller-manager) started for one test in its workspace, and the Pulumi
//! Kubernetes provider (`scripts/install-kubernetes-provider.sh`) made visible to its `HOME`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::kube_api_server::{cache_root, kube_bin_dir};
use crate::loopback_port::free_port;
use crate::support::{repository, Workspace};

/// Kept in step with `scripts/install-kubernetes-provider.sh`.
pub(crate) const KUBERNETES_PLUGIN_VERSION: &str = "4.25.0";

/// A running control plane under `<workspace>/.runner/local-cluster`, where the shipped cluster
/// project reads it; stopped (its data left for the workspace's removal) when dropped.
pub(crate) struct LocalCluster {
    dir: PathBuf,
    /// The admin kubeconfig the script writes (not the one the runner's hook installs).
    pub admin_kubeconfig: PathBuf,
}

impl LocalCluster {
    pub(crate) fn start(workspace: &Workspace) -> Self {
        let bin = kube_bin_dir();
        assert!(
            bin.join("kube-controller-manager").is_file(),
            "kube-controller-manager is missing from `{}`: run `scripts/install-kube-test-servers.sh`",
            bin.display()
        );
        let dir = workspace.path(".runner/local-cluster");
        let cluster = Self { admin_kubeconfig: dir.join("admin.kubeconfig"), dir };
        // Ports of this test process only, so parallel tests never share a cluster.
        let (api, etcd) = (free_port(), free_port());
        let peer = free_port();
        let output = cluster
            .script("start")
            .env("RUNNER_KUBE_TEST_BIN", &bin)
            .env("RUNNER_LOCAL_CLUSTER_PORT", api.to_string())
            .env("RUNNER_LOCAL_CLUSTER_ETCD_PORT", etcd.to_string())
            .env("RUNNER_LOCAL_CLUSTER_ETCD_PEER_PORT", peer.to_string())
            .output()
            .unwrap();
        assert!(output.status.success(), "local-cluster.sh start: {}", String::from_utf8_lossy(&output.stderr));
        cluster
    }

    pub(crate) fn script(&self, action: &str) -> Command {
        let mut command = Command::new("bash");
        command
            .arg(repository().join("scripts/local-cluster.sh"))
            .arg(action)
            .env("RUNNER_LOCAL_CLUSTER_DIR", &self.dir)
            .env("RUNNER_KUBE_TEST_BIN", kube_bin_dir());
        command
    }

    /// `kubectl` as the cluster's admin, whatever the runner installed.
    #[track_caller]
    pub(crate) fn kubectl_ok(&self, args: &[&str]) -> String {
        kubectl_ok(&self.admin_kubeconfig, args)
    }

    /// The names of every object of `kind` (cluster-wide kinds, or the default namespace).
    pub(crate) fn names(&self, kind: &str) -> Vec<String> {
        let text = self.kubectl_ok(&["get", kind, "-o", "jsonpath={.items[*].metadata.name}"]);
        text.split_whitespace().map(str::to_string).collect()
    }
}

/// `kubectl --kubeconfig FILE ARGS`, which must succeed; its stdout.
#[track_caller]
pub(crate) fn kubectl_ok(kubeconfig: &Path, args: &[&str]) -> String {
    let output: Output = Command::new("kubectl").arg("--kubeconfig").arg(kubeconfig).args(args).output().unwrap();
    assert!(output.status.success(), "kubectl {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

impl Drop for LocalCluster {
    fn drop(&mut self) {
        let _ = self.script("stop").output();
    }
}

/// The folder holding `pulumi-resource-kubernetes`: `RUNNER_KUBERNETES_PROVIDER_BIN`, else the
/// install script's cache. Tests fail (never skip) without it: `scripts/test.sh` builds it.
pub(crate) fn kubernetes_provider_dir() -> PathBuf {
    crate::support::needs_external("the Pulumi Kubernetes provider");
    let dir = match std::env::var_os("RUNNER_KUBERNETES_PROVIDER_BIN") {
        Some(dir) => PathBuf::from(dir),
        None => cache_root().join(format!("pulumi-kubernetes-{KUBERNETES_PLUGIN_VERSION}")).join("bin"),
    };
    assert!(
        dir.join("pulumi-resource-kubernetes").is_file(),
        "`pulumi-resource-kubernetes` is missing from `{}`: run `scripts/install-kubernetes-provider.sh`",
        dir.display()
    );
    dir
}

/// Makes the built provider an installed plugin of the Pulumi home under `home`, as `pulumi
/// plugin install --file` would, by a link instead of a 300 MB copy per test.
pub(crate) fn install_kubernetes_plugin(home: &Path) {
    let plugin = home.join(".pulumi/plugins").join(format!("resource-kubernetes-v{KUBERNETES_PLUGIN_VERSION}"));
    std::fs::create_dir_all(&plugin).unwrap();
    let target = plugin.join("pulumi-resource-kubernetes");
    if !target.exists() {
        std::os::unix::fs::symlink(kubernetes_provider_dir().join("pulumi-resource-kubernetes"), &target).unwrap();
    }
}
