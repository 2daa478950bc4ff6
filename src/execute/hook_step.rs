use super::{EventSender, ExecutionEvent, ProjectCli, ProjectLifecycle, StackOutputs, StackTarget};
use crate::hooks;
use crate::provider::{HookSpec, Project};

impl<C: ProjectCli> ProjectLifecycle<C> {
    /// Reads the outputs once (with secrets, masked from then on) and runs each hook in order.
    pub(super) async fn run_hooks(
        &self,
        project: &Project,
        stack: &StackTarget,
        secret_outputs: Option<&[String]>,
        events: &EventSender,
    ) -> Result<(), String> {
        let outputs = self.cli.read_outputs(stack).await?;
        // Mask what the CLI says is secret; when the event log did not say, mask every output.
        match secret_outputs {
            Some(names) => {
                let secret: StackOutputs = outputs
                    .iter()
                    .filter(|(name, _)| names.contains(name))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                self.context.mask.add_json_strings(&secret);
            }
            None => self.context.mask.add_json_strings(&outputs),
        }
        for hook in &project.on_success {
            events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message: hook.describe() }).await;
            match hook {
                HookSpec::Kubeconfig { output } => {
                    let message = self.install_kubeconfig(output, &outputs).await?;
                    events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message }).await;
                }
                HookSpec::Command { argv, timeout } => {
                    hooks::run_command_hook(argv, *timeout, &stack.dir, &self.context.environment, &outputs)
                        .await
                        .map_err(|err| format!("on_success command: {err}"))?;
                }
            }
        }
        Ok(())
    }

    /// Installs the kubeconfig in stack output `output`; says where.
    async fn install_kubeconfig(&self, output: &str, outputs: &StackOutputs) -> Result<String, String> {
        let value = outputs
            .get(output)
            .ok_or_else(|| format!("stack output `{output}` does not exist; the kubeconfig hook needs it"))?;
        let kubeconfig = hooks::decode_kubeconfig_output(value).map_err(|err| format!("kubeconfig hook: {err}"))?;
        let environment = &self.context.environment;
        let variable = |key: &str| environment.get(key).filter(|value| !value.is_empty()).cloned();
        let target = hooks::kubeconfig_target(&variable).map_err(|err| format!("kubeconfig hook: {err}"))?;
        let shown = target.display().to_string();
        let context = tokio::task::spawn_blocking(move || hooks::install_kubeconfig(&target, &kubeconfig))
            .await
            .map_err(|err| format!("kubeconfig hook: {err}"))?
            .map_err(|err| format!("kubeconfig hook: {err}"))?;
        Ok(format!("kubeconfig context `{context}` installed in `{shown}`"))
    }
}
