use super::shared::stack_outputs::OutputReader;
use super::LoadedProvider;
use crate::cli::{Settings, StackSettings};
use crate::error::{Result, UserError};
use crate::exit_status::ExitStatus;
use crate::hooks;
use crate::provider::HookSpec;
use crate::pulumi::{Backend, ChildEnvironment};

/// `runner kubeconfig`: installs the kubeconfig of every `provides_cluster` project the way its
/// `kubeconfig` hook does, read again from that project's stack outputs. A CI job on another
/// machine than the cluster's job gets the cluster this way, never as a copied file.
pub(super) fn kubeconfig(settings: &Settings, stack: &StackSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &stack.provider)?;
    let providers: Vec<_> = loaded
        .provider
        .projects
        .iter()
        .filter(|project| project.provides_cluster)
        .filter_map(|project| {
            project.on_success.iter().find_map(|hook| match hook {
                HookSpec::Kubeconfig { output, switch_context } => Some((project, output.clone(), *switch_context)),
                HookSpec::Command { .. } => None,
            })
        })
        .collect();
    if providers.is_empty() {
        return Err(UserError::Usage(format!(
            "provider `{}` has no `provides_cluster` project with a `kubeconfig` hook: there is no kubeconfig to install",
            loaded.provider.name
        )));
    }
    let environment = ChildEnvironment::build(std::env::vars(), &stack.environment, &settings.root);
    let backend = Backend::from_environment(&environment);
    let pulumi = super::shared::pulumi_location::find_pulumi(&environment)?;
    let mask = super::run::run_secret_mask::run_secret_mask(&environment, &loaded.provider, None);
    let reader = OutputReader {
        pulumi: &pulumi,
        provider: &loaded.provider,
        stack: &stack.stack,
        environment: &environment,
        backend: &backend,
        // The kubeconfig is usually a secret output: `[secret]` would install nothing.
        show_secrets: true,
        mask: &mask,
    };
    let projects: Vec<_> = providers.iter().map(|(project, _, _)| *project).collect();
    let variable = |key: &str| environment.get(key).filter(|value| !value.is_empty()).map(str::to_string);
    let target = hooks::kubeconfig_target(&variable)
        .map_err(|err| UserError::Usage(format!("kubeconfig: {}", crate::error::ErrorChain(&err))))?;
    let mut failed = 0;
    for (result, (project, output, switch_context)) in reader.read_all(&projects).into_iter().zip(&providers) {
        let installed = match (&result.outputs, result.deployed) {
            (Err(err), _) => Err(crate::error::ErrorChain(err).to_string()),
            (Ok(_), false) => Err(format!("not deployed on stack `{}`", stack.stack)),
            (Ok(outputs), true) => outputs
                .get(output)
                .ok_or_else(|| format!("stack output `{output}` does not exist; the kubeconfig hook needs it"))
                .and_then(|value| {
                    hooks::decode_kubeconfig_output(value).map_err(|err| crate::error::ErrorChain(&err).to_string())
                })
                .and_then(|value| {
                    hooks::install_kubeconfig_with_care(&target, &value, *switch_context)
                        .map_err(|err| crate::error::ErrorChain(&err).to_string())
                }),
        };
        match installed {
            Ok(installed) => {
                for note in hooks::kubeconfig_notes(&installed) {
                    crate::text::stderr_line!("{}", mask.apply(&note));
                }
                crate::text::stderr_line!(
                    "kubeconfig context `{}` of `{}` installed in `{}`",
                    installed.context,
                    project.path,
                    crate::error::shown_path(&target)
                );
                let record = crate::execute::InstalledKubeconfig {
                    project: project.path.clone(),
                    context: installed.context,
                    file: target.clone(),
                    entries: installed.entries,
                };
                let state_dir = settings.root.state_dir();
                super::run::kubeconfig_record::remember(&state_dir, &stack.stack, &loaded.provider.name, &[record]);
            }
            Err(message) => {
                failed += 1;
                crate::text::stderr_line!("error: `{}`: {}", project.path, mask.apply(&message));
            }
        }
    }
    Ok(if failed > 0 { ExitStatus::Failure } else { ExitStatus::Success })
}
