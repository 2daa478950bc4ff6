//! A provider built in memory, shared by the tests of planning and execution.

use std::path::PathBuf;

use crate::error::Location;
use crate::provider::{Phase, Project, ProjectPath, Provider};

/// A provider built in memory: planning never touches the file system.
pub(crate) fn test_provider(projects: &[(&str, Phase, &[&str])]) -> Provider {
    Provider {
        name: "test".into(),
        description: "in-memory provider".into(),
        infra_type: None,
        file: PathBuf::from("providers/test.toml"),
        projects_root: PathBuf::from("projects"),
        config: Vec::new(),
        secrets_project: None,
        strict_phase_barrier: false,
        pools: Default::default(),
        plain_environment: Vec::new(),
        projects: projects
            .iter()
            .enumerate()
            .map(|(i, (path, phase, depends_on))| Project {
                path: ProjectPath::new(path),
                description: path.rsplit('/').next().unwrap().to_string(),
                phase: *phase,
                depends_on: depends_on.iter().map(|d| ProjectPath::new(d)).collect(),
                secrets: Vec::new(),
                on_success: Vec::new(),
                retry: None,
                ready: Vec::new(),
                targets: Vec::new(),
                target_dependents: false,
                refresh: false,
                always_run: false,
                mock_outputs: Default::default(),
                prerequisites: Vec::new(),
                dir: None,
                only_as_prerequisite: false,
                provides_cluster: false,
                needs_cluster: *phase == Phase::Kubernetes,
                pool: None,
                show_outputs: Vec::new(),
                failure_hints: Vec::new(),
                origin: Location::line("providers/test.toml", i + 1),
                dependency_origins: Vec::new(),
            })
            .collect(),
    }
}

use Phase::{Infrastructure as I, Kubernetes as K};

/// NGINX MARA's AWS projects and their dependencies, marked as the shipped provider marks them:
/// the kubeconfig project provides the cluster, the image build and push need none.
pub(crate) fn mara_aws_provider() -> Provider {
    let mut provider = mara_aws_unmarked();
    for project in &mut provider.projects {
        match project.path.as_str() {
            "infrastructure/kubeconfig" | "infrastructure/aws/eks" => project.provides_cluster = true,
            "utility/kic-image-build" | "utility/kic-image-push" => project.needs_cluster = false,
            _ => {}
        }
    }
    provider
}

fn mara_aws_unmarked() -> Provider {
    test_provider(&[
        ("infrastructure/aws/vpc", I, &[]),
        ("infrastructure/aws/eks", I, &["infrastructure/aws/vpc"]),
        ("infrastructure/aws/ecr", I, &[]),
        ("infrastructure/kubeconfig", I, &["infrastructure/aws/eks"]),
        ("kubernetes/secrets", K, &["infrastructure/kubeconfig"]),
        ("utility/kic-image-build", K, &[]),
        ("utility/kic-image-push", K, &["utility/kic-image-build", "infrastructure/aws/ecr"]),
        ("kubernetes/nginx/ingress-controller-namespace", K, &["infrastructure/kubeconfig"]),
        (
            "kubernetes/nginx/ingress-controller",
            K,
            &["kubernetes/nginx/ingress-controller-namespace", "utility/kic-image-push"],
        ),
        ("kubernetes/logstore", K, &["infrastructure/kubeconfig"]),
        ("kubernetes/logagent", K, &["kubernetes/logstore"]),
        ("kubernetes/certmgr", K, &["infrastructure/kubeconfig"]),
        ("kubernetes/prometheus", K, &["kubernetes/secrets", "kubernetes/certmgr"]),
        ("kubernetes/observability", K, &["kubernetes/certmgr"]),
        (
            "kubernetes/applications/sirius",
            K,
            &[
                "kubernetes/secrets",
                "kubernetes/nginx/ingress-controller",
                "kubernetes/logagent",
                "kubernetes/prometheus",
                "kubernetes/observability",
            ],
        ),
    ])
}
