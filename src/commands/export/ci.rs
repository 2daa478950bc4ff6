use crate::cli::{CiExportSettings, CiSystem, Settings};
use crate::commands::LoadedProvider;
use crate::config::write_atomically;
use crate::error::{Result, UserError};
use crate::exit_status::ExitStatus;
use crate::export::{CiOptions, CiPipeline, GitHubActionsWorkflow, GitLabCiPipeline};

/// `runner export github-actions|gitlab-ci`: the graph as a pipeline on stdout, in a file, or
/// compared with the committed one (`--check`).
pub(crate) fn export_ci(settings: &Settings, ci: &CiExportSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &ci.stack.provider)?;
    if let Some(file) = &ci.output {
        crate::commands::InputFiles::of(&settings.root, Some(&loaded.provider)).refuse_overwrite("-o", file)?;
    }
    let rule = crate::commands::run::run_secret_mask::secret_rule(&loaded.provider);
    let options = CiOptions { operation: ci.operation, setup: ci.setup, affected: ci.affected.clone() };
    let pipeline =
        CiPipeline::build(&loaded.provider, &loaded.graph, &ci.stack.stack, &ci.stack.environment, &rule, options)?;
    let (text, tool) = match ci.system {
        CiSystem::GitHubActions => (GitHubActionsWorkflow::render(&pipeline), "github-actions"),
        CiSystem::GitLabCi => (GitLabCiPipeline::render(&pipeline), "gitlab-ci"),
    };
    let here = std::env::current_dir().unwrap_or_default();
    if let Some(file) = &ci.check {
        let committed = std::fs::read_to_string(here.join(file))
            .map_err(|err| UserError::Unreadable { path: file.clone(), source: err })?;
        if committed == text {
            crate::text::stderr_line!("`{}` is what `runner export {tool}` writes now", file.display());
            return Ok(ExitStatus::Success);
        }
        let first = committed
            .lines()
            .zip(text.lines())
            .position(|(old, new)| old != new)
            .map_or_else(|| committed.lines().count().min(text.lines().count()) + 1, |index| index + 1);
        crate::text::stderr_line!(
            "`{}` is stale: it differs from what `runner export {tool}` writes now from line {first}; write it again with `-o {}`",
            file.display(),
            file.display()
        );
        return Ok(ExitStatus::Failure);
    }
    match &ci.output {
        Some(file) => {
            // Relative to where the user is, like any shell redirection.
            let file = here.join(file);
            write_atomically(&file, text.as_bytes())?;
            crate::text::stderr_line!(
                "wrote {} to `{}`",
                crate::text::counted(pipeline.jobs.len(), "job"),
                crate::error::shown_path(&file)
            );
        }
        None => crate::commands::write_data(text.as_bytes())?,
    }
    Ok(ExitStatus::Success)
}
