use serde_json::{json, Value};

use super::*;

fn object(kind: KubernetesKind, name: &str, namespace: Option<&str>) -> KubernetesObject {
    KubernetesObject { kind, name: name.into(), namespace: namespace.map(str::to_string) }
}

/// What the real API server (kube-apiserver v1.34 of scripts/local-cluster.sh, no kubelet)
/// answered to the gate's own `kubectl get ... -o json`: a CRD just created, a Deployment of two
/// replicas, a Service's EndpointSlices (the controller's empty one and one written by hand)
/// and the built-in APIService `v1.apps`.
fn fixture(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kubernetes").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[test]
fn a_crd_is_ready_once_established() {
    let crd = object(KubernetesKind::CustomResourceDefinition, "certificates.certs.runner.dev", None);
    assert_eq!(object_ready(&crd, &fixture("crd-established.json")), Ok(()));
    let mut pending = fixture("crd-established.json");
    pending["status"]["conditions"] = json!([{ "type": "NamesAccepted", "status": "True" }, { "type": "Established", "status": "False", "reason": "Installing", "message": "the initial names have not been accepted" }]);
    let err = object_ready(&crd, &pending).unwrap_err().to_string();
    assert_eq!(
        err,
        "CRD certificates.certs.runner.dev is not Established (status False, Installing: the initial names have not been accepted)"
    );
    pending["status"] = json!({});
    assert_eq!(
        object_ready(&crd, &pending).unwrap_err().to_string(),
        "CRD certificates.certs.runner.dev has no Established condition yet"
    );
}

#[test]
fn a_deployment_without_pods_is_not_available_and_says_why() {
    let deployment = object(KubernetesKind::Deployment, "demo", Some("demo"));
    let err = object_ready(&deployment, &fixture("deployment-no-pods.json")).unwrap_err().to_string();
    assert!(
        err.starts_with("deployment demo/demo is not Available (status False, MinimumReplicasUnavailable"),
        "{err}"
    );
}

#[test]
fn a_deployment_is_ready_when_available_for_its_current_generation() {
    let deployment = object(KubernetesKind::Deployment, "demo", Some("demo"));
    let mut available = fixture("deployment-no-pods.json");
    let generation = available["metadata"]["generation"].clone();
    available["status"] = json!({
        "observedGeneration": generation,
        "conditions": [{ "type": "Available", "status": "True", "reason": "MinimumReplicasAvailable" }]
    });
    assert_eq!(object_ready(&deployment, &available), Ok(()));
    // A new generation not yet seen by the controller: its Available is about the old one.
    available["metadata"]["generation"] = json!(generation.as_i64().unwrap() + 1);
    assert!(object_ready(&deployment, &available).unwrap_err().to_string().contains("being rolled out"));
}

#[test]
fn a_service_is_ready_only_with_a_ready_endpoint() {
    let service = object(KubernetesKind::Service, "webhook", Some("cert-manager"));
    let slices = fixture("endpointslices-ready.json");
    assert_eq!(endpoints_ready(&service, &slices), Ok(()));

    let none = json!({ "kind": "List", "items": [] });
    assert_eq!(
        endpoints_ready(&service, &none).unwrap_err().to_string(),
        "service cert-manager/webhook has no EndpointSlice yet: nothing is selected behind it"
    );
    // The slice the endpoint slice controller keeps for the selector is empty (no pods run); the
    // one the test wrote by hand holds the endpoint.
    let written = slices["items"].as_array().unwrap().iter().position(|slice| slice["endpoints"].is_array()).unwrap();
    let mut not_ready = slices.clone();
    not_ready["items"][written]["endpoints"][0]["conditions"]["ready"] = json!(false);
    assert_eq!(
        endpoints_ready(&service, &not_ready).unwrap_err().to_string(),
        "service cert-manager/webhook has no ready endpoint (1 not ready)"
    );
    let mut empty = slices.clone();
    empty["items"][written]["endpoints"] = Value::Null;
    assert_eq!(
        endpoints_ready(&service, &empty).unwrap_err().to_string(),
        "service cert-manager/webhook has no endpoint in its 2 EndpointSlices"
    );
    // No `ready` condition at all: the EndpointSlice API says to take it as ready.
    let mut unknown = slices;
    unknown["items"][written]["endpoints"][0]["conditions"] = json!({});
    assert_eq!(endpoints_ready(&service, &unknown), Ok(()));
}

#[test]
fn an_apiservice_is_ready_once_available() {
    let apiservice = object(KubernetesKind::ApiService, "v1.apps", None);
    assert_eq!(object_ready(&apiservice, &fixture("apiservice-local.json")), Ok(()));
}

#[test]
fn no_json_shape_panics() {
    let shapes =
        [json!(null), json!([]), json!("text"), json!({ "status": { "conditions": "x" } }), json!({ "items": 3 })];
    for kind in KubernetesKind::NAMES.map(|(kind, _)| kind) {
        let target = object(kind, "x", kind.namespaced().then_some("default"));
        for shape in &shapes {
            let _ = object_ready(&target, shape);
            let _ = endpoints_ready(&target, shape);
        }
    }
}
