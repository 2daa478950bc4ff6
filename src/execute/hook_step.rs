use super::{
    Cancellation, EventSender, ExecutionEvent, InstalledKubeconfig, OutputStream, ProjectCli, ProjectLifecycle,
    StackOutputs, StackTarget, StepError,
};
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
        cancellation: &Cancellation,
    ) -> Result<(), StepError> {
        let outputs = self.cli.read_outputs(stack).await?;
        // Mask what the CLI marks secret: the event log, else the CLI asked, else every output.
        let asked = match secret_outputs {
            Some(_) => None,
            None => self.cli.secret_output_names(stack).await,
        };
        match secret_outputs.or(asked.as_deref()) {
            Some(names) => {
                let secret: StackOutputs = outputs
                    .iter()
                    .filter(|(name, _)| names.contains(name))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                self.context.mask.add_json_values(&secret);
            }
            None => self.context.mask.add_guessed_outputs(&outputs),
        }
        for hook in &project.on_success {
            events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message: hook.describe() }).await;
            match hook {
                HookSpec::Kubeconfig { output, switch_context } => {
                    let (notes, installed) =
                        self.install_kubeconfig(project, output, *switch_context, &outputs).await?;
                    for message in notes {
                        events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message }).await;
                    }
                    events.send(ExecutionEvent::KubeconfigInstalled(installed)).await;
                }
                HookSpec::Command { argv, timeout } => {
                    let environment = &self.context.environment;
                    let hook =
                        hooks::CommandHook::new(argv, *timeout, &stack.dir, environment, &outputs, &self.context.mask);
                    let (result, printed) = hook.run_logged(cancellation).await;
                    for (stream, text) in
                        [(OutputStream::Stdout, printed.stdout), (OutputStream::Stderr, printed.stderr)]
                    {
                        for line in text.lines() {
                            let line = line.to_string();
                            events
                                .send(ExecutionEvent::ProjectOutput { project: project.path.clone(), stream, line })
                                .await;
                        }
                    }
                    result.map_err(StepError::Command)?;
                }
            }
        }
        Ok(())
    }

    /// Installs the kubeconfig in stack output `output` with care; says where, what was backed
    /// up and what was replaced.
    async fn install_kubeconfig(
        &self,
        project: &Project,
        output: &str,
        switch_context: bool,
        outputs: &StackOutputs,
    ) -> Result<(Vec<String>, InstalledKubeconfig), StepError> {
        let value = outputs.get(output).ok_or_else(|| StepError::MissingOutput(output.to_string()))?;
        let kubeconfig = hooks::decode_kubeconfig_output(value).map_err(StepError::Kubeconfig)?;
        let environment = &self.context.environment;
        let variable = |key: &str| environment.get(key).filter(|value| !value.is_empty()).cloned();
        let target = hooks::kubeconfig_target(&variable).map_err(StepError::Kubeconfig)?;
        let file = target.clone();
        let installed = tokio::task::spawn_blocking(move || {
            hooks::install_kubeconfig_with_care(&target, &kubeconfig, switch_context)
        })
        .await
        .map_err(|err| StepError::Internal(format!("kubeconfig hook: {err}")))?
        .map_err(StepError::Kubeconfig)?;
        let mut notes = hooks::kubeconfig_notes(&installed);
        notes.push(format!(
            "kubeconfig context `{}` installed in `{}`",
            installed.context,
            crate::error::shown_path(&file)
        ));
        let entries = installed.entries;
        Ok((notes, InstalledKubeconfig { project: project.path.clone(), context: installed.context, file, entries }))
    }
}
