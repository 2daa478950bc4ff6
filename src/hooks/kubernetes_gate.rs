use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::kubernetes_readiness::{endpoints_ready, object_ready};
use super::GateAttemptError;
use crate::cancel::{Cancellation, ChildEnd, ChildProcess};
use crate::provider::{KubernetesKind, KubernetesObject};

/// One attempt of a `kubernetes` gate: the object (and a Service's EndpointSlices) read with
/// `kubectl` through the run's environment, so `KUBECONFIG` is the file the run's `kubeconfig`
/// hook wrote, then judged by `object_ready`/`endpoints_ready`.
pub(super) async fn kubernetes_attempt(
    object: &KubernetesObject,
    context: Option<&str>,
    cwd: &Path,
    env: &BTreeMap<String, String>,
    cancellation: &Cancellation,
) -> Result<(), GateAttemptError> {
    let mut get = vec![object.kind.kubectl_resource().to_string(), object.name.clone()];
    if let Some(namespace) = &object.namespace {
        get.extend(["--namespace".to_string(), namespace.clone()]);
    }
    let json = kubectl_json(&get, context, cwd, env, cancellation).await?;
    object_ready(object, &json)?;
    if object.kind == KubernetesKind::Service {
        let mut list = vec![
            "endpointslices.discovery.k8s.io".to_string(),
            "--selector".to_string(),
            format!("kubernetes.io/service-name={}", object.name),
        ];
        if let Some(namespace) = &object.namespace {
            list.extend(["--namespace".to_string(), namespace.clone()]);
        }
        let slices = kubectl_json(&list, context, cwd, env, cancellation).await?;
        endpoints_ready(object, &slices)?;
    }
    Ok(())
}

async fn kubectl_json(
    get: &[String],
    context: Option<&str>,
    cwd: &Path,
    env: &BTreeMap<String, String>,
    cancellation: &Cancellation,
) -> Result<Value, GateAttemptError> {
    let mut args = vec!["get".to_string()];
    args.extend(get.iter().cloned());
    args.extend(["--output".to_string(), "json".to_string(), "--request-timeout".to_string(), "20s".to_string()]);
    if let Some(context) = context {
        args.extend(["--context".to_string(), context.to_string()]);
    }
    let output =
        ChildProcess::new("kubectl").args(&args).current_dir(cwd).env_clear().envs(env).output(cancellation).await;
    match output.end {
        ChildEnd::Exited(0) => serde_json::from_str(&output.stdout_text()).map_err(|err| GateAttemptError::NotJson {
            command: format!("kubectl get {}", get.join(" ")),
            detail: err.to_string(),
        }),
        ChildEnd::SpawnFailed(reason) => Err(GateAttemptError::NotStarted(format!("kubectl: {reason}"))),
        ChildEnd::Exited(code) => {
            let text = output.stderr_text();
            let last =
                text.trim().lines().last().unwrap_or_default().trim_start_matches("Error from server ").to_string();
            Err(GateAttemptError::Exited {
                code: code.to_string(),
                last: format!("kubectl get {}: {last}", get.join(" ")),
            })
        }
        end => Err(GateAttemptError::Exited {
            code: "none".into(),
            last: format!("kubectl get {}: {}", get.join(" "), end.describe()),
        }),
    }
}
