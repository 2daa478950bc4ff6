use serde_json::Value;

use crate::provider::{KubernetesKind, KubernetesObject};

/// What a `kubernetes` gate found missing, in words its timeout message quotes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotReady {
    #[error("{object} has no {condition} condition yet")]
    NoCondition { object: KubernetesObject, condition: &'static str },
    #[error("{object} is not {condition} (status {status}{because})")]
    ConditionNotTrue { object: KubernetesObject, condition: &'static str, status: String, because: String },
    #[error("{object} is being rolled out: generation {generation} is not observed yet (observed {observed})")]
    GenerationNotObserved { object: KubernetesObject, generation: i64, observed: i64 },
    #[error("{object} has no EndpointSlice yet: nothing is selected behind it")]
    NoEndpointSlice { object: KubernetesObject },
    #[error("{object} has no endpoint in its {}", crate::text::counted(*.slices, "EndpointSlice"))]
    NoEndpoint { object: KubernetesObject, slices: usize },
    #[error("{object} has no ready endpoint ({not_ready} not ready)")]
    NoReadyEndpoint { object: KubernetesObject, not_ready: usize },
}

/// Whether an object `kubectl get -o json` returned is ready, in its kind's own terms.
pub(super) fn object_ready(object: &KubernetesObject, json: &Value) -> Result<(), NotReady> {
    match object.kind {
        KubernetesKind::CustomResourceDefinition => condition_true(object, json, "Established"),
        KubernetesKind::ApiService => condition_true(object, json, "Available"),
        KubernetesKind::Deployment => {
            let generation = json["metadata"]["generation"].as_i64().unwrap_or(0);
            let observed = json["status"]["observedGeneration"].as_i64().unwrap_or(0);
            if observed < generation {
                return Err(NotReady::GenerationNotObserved { object: object.clone(), generation, observed });
            }
            condition_true(object, json, "Available")
        }
        // A Service's readiness is its endpoints': see `endpoints_ready`.
        KubernetesKind::Service => Ok(()),
    }
}

/// Whether the EndpointSlices of a Service (`kubectl get endpointslices -l
/// kubernetes.io/service-name=...`) hold an endpoint that takes traffic. An endpoint whose
/// `ready` condition is absent counts as ready, as the EndpointSlice API says consumers should.
pub(super) fn endpoints_ready(object: &KubernetesObject, slices: &Value) -> Result<(), NotReady> {
    let slices = slices["items"].as_array().map(Vec::as_slice).unwrap_or_default();
    let endpoints: Vec<&Value> =
        slices.iter().flat_map(|slice| slice["endpoints"].as_array().map(Vec::as_slice).unwrap_or_default()).collect();
    let ready = endpoints
        .iter()
        .filter(|endpoint| endpoint["conditions"]["ready"].as_bool().unwrap_or(true))
        .filter(|endpoint| endpoint["addresses"].as_array().is_some_and(|addresses| !addresses.is_empty()))
        .count();
    let object = object.clone();
    match (ready, slices.len(), endpoints.len()) {
        (1.., _, _) => Ok(()),
        (_, 0, _) => Err(NotReady::NoEndpointSlice { object }),
        (_, slices, 0) => Err(NotReady::NoEndpoint { object, slices }),
        (_, _, not_ready) => Err(NotReady::NoReadyEndpoint { object, not_ready }),
    }
}

fn condition_true(object: &KubernetesObject, json: &Value, condition: &'static str) -> Result<(), NotReady> {
    let conditions = json["status"]["conditions"].as_array().map(Vec::as_slice).unwrap_or_default();
    let Some(found) = conditions.iter().find(|found| found["type"] == condition) else {
        return Err(NotReady::NoCondition { object: object.clone(), condition });
    };
    if found["status"] == "True" {
        return Ok(());
    }
    let because: Vec<&str> = [found["reason"].as_str(), found["message"].as_str()]
        .into_iter()
        .flatten()
        .filter(|text| !text.is_empty())
        .collect();
    Err(NotReady::ConditionNotTrue {
        object: object.clone(),
        condition,
        status: found["status"].as_str().unwrap_or("Unknown").to_string(),
        because: if because.is_empty() { String::new() } else { format!(", {}", because.join(": ")) },
    })
}

#[cfg(test)]
#[path = "kubernetes_readiness_tests.rs"]
mod tests;
