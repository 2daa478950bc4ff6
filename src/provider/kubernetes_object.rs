use std::fmt;

use serde::Serialize;

/// The kinds a `kubernetes` readiness gate can wait for, each ready in Kubernetes' own terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KubernetesKind {
    /// Ready when its `Established` condition is `True`: its custom resources can be written.
    CustomResourceDefinition,
    /// Ready when one of its EndpointSlices holds a ready endpoint: something answers behind it
    /// (the readiness seed 001 is about: a webhook's Service).
    Service,
    /// Ready when its `Available` condition is `True` for its current generation.
    Deployment,
    /// Ready when its `Available` condition is `True`: the aggregated API answers.
    ApiService,
}

impl KubernetesKind {
    /// Every kind with the names it is written by (kubectl's singular and short names).
    pub const NAMES: [(KubernetesKind, &'static [&'static str]); 4] = [
        (KubernetesKind::CustomResourceDefinition, &["customresourcedefinition", "crd"]),
        (KubernetesKind::Service, &["service", "svc"]),
        (KubernetesKind::Deployment, &["deployment", "deploy"]),
        (KubernetesKind::ApiService, &["apiservice"]),
    ];

    pub fn from_name(name: &str) -> Option<Self> {
        let name = name.to_ascii_lowercase();
        Self::NAMES.iter().find(|(_, names)| names.contains(&name.as_str())).map(|(kind, _)| *kind)
    }

    /// The resource kubectl is asked for: fully qualified, so no other API group's kind of the
    /// same name is picked.
    pub fn kubectl_resource(self) -> &'static str {
        match self {
            KubernetesKind::CustomResourceDefinition => "customresourcedefinitions.apiextensions.k8s.io",
            KubernetesKind::Service => "services",
            KubernetesKind::Deployment => "deployments.apps",
            KubernetesKind::ApiService => "apiservices.apiregistration.k8s.io",
        }
    }

    pub fn namespaced(self) -> bool {
        matches!(self, KubernetesKind::Service | KubernetesKind::Deployment)
    }

    /// The word messages use.
    pub fn name(self) -> &'static str {
        match self {
            KubernetesKind::CustomResourceDefinition => "CRD",
            KubernetesKind::Service => "service",
            KubernetesKind::Deployment => "deployment",
            KubernetesKind::ApiService => "APIService",
        }
    }
}

/// One object a `kubernetes` gate waits for, written `kind/name` in the provider file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KubernetesObject {
    pub kind: KubernetesKind,
    pub name: String,
    /// Set for namespaced kinds only (`default` when the gate names none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

impl fmt::Display for KubernetesObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(namespace) => write!(f, "{} {namespace}/{}", self.kind.name(), self.name),
            None => write!(f, "{} {}", self.kind.name(), self.name),
        }
    }
}
