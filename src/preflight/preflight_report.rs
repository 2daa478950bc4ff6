//! One preflight, run by `validate` and by every operation before the first project starts:
//! every problem found at once, nothing run, exit 2.

use std::path::{Path, PathBuf};

use super::{program_problem, settle_pulumi_locks, with_prerequisites, WritableProbe};
use crate::config::RepositoryRoot;
use crate::error::UserError;
use crate::provider::{Project, Provider};
use crate::pulumi::{Backend, ChildEnvironment, PulumiLocks, PulumiManifest};

/// What the preflight looks at.
pub struct PreflightInput<'a> {
    pub root: &'a RepositoryRoot,
    pub provider: &'a Provider,
    /// The projects that would run.
    pub projects: Vec<&'a Project>,
    pub stack: &'a str,
    pub environment: &'a ChildEnvironment,
    pub backend: &'a Backend,
    /// `--report` files.
    pub reports: Vec<PathBuf>,
    /// The exact `runner` command that removes abandoned Pulumi locks, for the hint.
    pub unlock_command: String,
    /// Also ask for the passphrase of a passphrase backend (`validate`; a run asks in a terminal).
    pub require_passphrase: bool,
    /// Name Pulumi's locks on the stacks (`validate`). A run reads them once it holds the
    /// runner's own stack lock, and removes those whose holder is gone.
    pub report_locks: bool,
    /// Check that a language host for each project's runtime is installed beside `pulumi`:
    /// not for `export`, whose programs run on another machine.
    pub programs_run_here: bool,
}

/// The problems (each stops the run) and notes (said once, never stop it) of a preflight.
#[derive(Debug, Default)]
pub struct Preflight {
    pub problems: Vec<String>,
    pub notes: Vec<String>,
}

impl Preflight {
    pub fn run(input: &PreflightInput) -> Self {
        let mut preflight = Preflight::default();
        if input.require_passphrase {
            preflight.check_passphrase(input.environment, input.backend);
        }
        if input.provider.projects.is_empty() {
            preflight.problems.push(format!(
                "provider `{}` (`{}`) declares no project: there is nothing to run",
                input.provider.name,
                input.provider.file.display()
            ));
        }
        for project in &input.projects {
            preflight.check_project(input, project);
        }
        if input.report_locks {
            let locks = PulumiLocks::new(input.backend, input.environment).with_history(&input.root.state_dir());
            let projects = with_prerequisites(input.provider, &input.projects);
            let found =
                settle_pulumi_locks(&locks, input.provider, &projects, input.stack, &input.unlock_command, false);
            preflight.problems.extend(found.problems);
            preflight.notes.extend(found.notes);
        }
        let state_dir = input.root.state_dir();
        let mut probe = WritableProbe::default();
        for dir in [state_dir.join("history"), state_dir.join("logs"), state_dir.join("locks")] {
            if let Err(reason) = probe.probe(&dir) {
                preflight.problems.push(format!("cannot write `{}`: {reason}", dir.display()));
            }
        }
        for report in &input.reports {
            preflight.check_report_path(report, &mut probe);
        }
        preflight
    }

    /// `Err` with every problem when there is any; notes go to stderr either way.
    pub fn into_result(self) -> Result<(), UserError> {
        for note in &self.notes {
            crate::text::stderr_line!("note: {note}");
        }
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(UserError::PreflightFailed { problems: self.problems })
        }
    }

    fn check_passphrase(&mut self, environment: &ChildEnvironment, backend: &Backend) {
        let passphrase_set = environment.get("PULUMI_CONFIG_PASSPHRASE").is_some()
            || environment.get("PULUMI_CONFIG_PASSPHRASE_FILE").is_some();
        if backend.is_local() && !passphrase_set {
            self.problems.push(format!(
                "the backend `{}` encrypts secrets with a passphrase, but neither `PULUMI_CONFIG_PASSPHRASE` nor `PULUMI_CONFIG_PASSPHRASE_FILE` is set (environment file or process environment)",
                backend.url
            ));
        }
    }

    fn check_project(&mut self, input: &PreflightInput, project: &Project) {
        let dir = input.provider.dir_of(project);
        let manifest = match PulumiManifest::load(&dir) {
            Ok(manifest) => manifest,
            Err(err) => {
                self.problems.push(format!("project `{}`: {}", project.path, crate::error::ErrorChain(&err)));
                return;
            }
        };
        if let Some(problem) = program_problem(&dir, &manifest.runtime) {
            self.problems.push(format!("project `{}`: {problem}", project.path));
        }
        if let Some(problem) =
            super::language_host_problem(&manifest.runtime, input.environment).filter(|_| input.programs_run_here)
        {
            self.problems.push(format!("project `{}`: {problem}", project.path));
        }
    }

    fn check_report_path(&mut self, report: &Path, probe: &mut WritableProbe) {
        if report.is_dir() {
            self.problems.push(format!("report path `{}` is a folder, not a file", report.display()));
            return;
        }
        let dir = match report.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        if let Err(reason) = probe.probe(dir) {
            self.problems.push(format!("cannot write the report `{}`: {reason}", report.display()));
        }
    }
}
