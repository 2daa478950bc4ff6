//! One preflight, run by `validate` and by every operation before the first project starts:
//! every problem found at once, nothing run, exit 2.

use std::path::{Path, PathBuf};

use super::{program_problem, settle_pulumi_locks, with_prerequisites, WritableProbe};
use crate::config::RepositoryRoot;
use crate::error::UserError;
use crate::provider::{Project, Provider};
use crate::pulumi::{Backend, ChildEnvironment, PulumiLocks, PulumiManifest};

/// What the preflight looks at.
pub(crate) struct PreflightInput<'a> {
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
pub(crate) struct Preflight {
    pub problems: Vec<String>,
    pub notes: Vec<String>,
    /// A project's problem by its cause, in the order first found: one line per cause, with the
    /// projects it affects counted and named, not the same cause once per project.
    by_cause: Vec<(String, Vec<String>)>,
}

impl Preflight {
    pub(crate) fn run(input: &PreflightInput) -> Self {
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
        preflight.problems.extend(grouped(std::mem::take(&mut preflight.by_cause), input.projects.len()));
        if let Some(note) = manifests_only(input) {
            preflight.notes.push(note);
        }
        if input.report_locks {
            let locks = PulumiLocks::new(input.backend, input.environment);
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
    pub(crate) fn into_result(self) -> Result<(), UserError> {
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
            self.add_cause(problem, project);
        }
        if let Some(problem) =
            super::language_host_problem(&manifest.runtime, input.environment).filter(|_| input.programs_run_here)
        {
            self.add_cause(problem, project);
        }
    }

    fn add_cause(&mut self, cause: String, project: &Project) {
        let path = project.path.to_string();
        match self.by_cause.iter_mut().find(|(known, _)| *known == cause) {
            Some((_, projects)) => projects.push(path),
            None => self.by_cause.push((cause, vec![path])),
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

/// `project `a`: CAUSE`, `3 projects (`a`, `b`, `c`): CAUSE`, or `all 15 projects: CAUSE`.
fn grouped(by_cause: Vec<(String, Vec<String>)>, total: usize) -> Vec<String> {
    by_cause
        .into_iter()
        .map(|(cause, projects)| match projects.as_slice() {
            [one] => format!("project `{one}`: {cause}"),
            many if many.len() == total => format!("all {}: {cause}", crate::text::counted(total, "project")),
            many => {
                let names: Vec<String> = many.iter().map(|path| format!("`{path}`")).collect();
                format!("{} ({}): {cause}", crate::text::counted(many.len(), "project"), names.join(", "))
            }
        })
        .collect()
}

/// When no project of the provider has its program (MARA's providers here hold only the
/// manifests): how to point the runner at the checkout whose projects they are.
fn manifests_only(input: &PreflightInput) -> Option<String> {
    let projects = &input.provider.projects;
    let missing = projects.iter().filter(|project| {
        let dir = input.provider.dir_of(project);
        PulumiManifest::load(&dir).is_ok_and(|manifest| program_problem(&dir, &manifest.runtime).is_some())
    });
    if projects.is_empty() || missing.count() < projects.len() {
        return None;
    }
    let (name, folder) = (&input.provider.name, crate::error::shown_path(&input.provider.projects_root));
    Some(match input.provider.infra_type {
        // MARA's providers (`infra_type` is MARA's setting) name projects of a MARA checkout.
        Some(_) => format!(
            "provider `{name}` has manifests but no programs in `{folder}`: its projects are NGINX MARA's; run inside a MARA checkout (or pass `--root` to one), or pass `--projects-root` to the checkout's `pulumi/python`"
        ),
        None => format!(
            "provider `{name}` has manifests but no programs in `{folder}`: pass `--projects-root` to the folder that holds them"
        ),
    })
}
