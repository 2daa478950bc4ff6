//! The kubeconfig entries each project's `kubeconfig` hook installed, kept per stack in
//! `.runner/kubeconfigs/<stack>.json`: a successful `destroy` of that project takes exactly those
//! out of the file again, so the destroyed cluster does not stay the current context unsaid.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::cli::{RunSettings, Settings};
use crate::commands::LoadedProvider;
use crate::execute::{InstalledKubeconfig, ProjectResult};
use crate::hooks::{remove_kubeconfig_entries, KubeconfigEntries};
use crate::plan::Operation;
use crate::provider::{HookSpec, Provider};
use crate::report::RunSummary;

#[derive(Debug, Default, Serialize, Deserialize)]
struct KubeconfigRecord {
    installs: Vec<KubeconfigInstallRecord>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct KubeconfigInstallRecord {
    provider: String,
    project: String,
    file: PathBuf,
    entries: KubeconfigEntries,
}

/// What an `up` installed in kubeconfig files is kept; what a `destroy` destroyed is taken out.
pub(crate) fn after_run(settings: &Settings, run: &RunSettings, loaded: &LoadedProvider, summary: &RunSummary) {
    let (state_dir, stack) = (settings.root.state_dir(), &run.stack.stack);
    match run.operation {
        Operation::Up => remember(&state_dir, stack, &loaded.provider.name, &summary.kubeconfigs),
        Operation::Destroy => {
            for line in remove_destroyed(&state_dir, stack, &loaded.provider, summary) {
                crate::text::stderr_line!("{line}");
            }
        }
        _ => {}
    }
}

fn record_file(state_dir: &Path, stack: &str) -> PathBuf {
    state_dir.join("kubeconfigs").join(format!("{stack}.json"))
}

fn load(state_dir: &Path, stack: &str) -> KubeconfigRecord {
    std::fs::read_to_string(record_file(state_dir, stack))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

fn save(state_dir: &Path, stack: &str, record: &KubeconfigRecord) -> std::io::Result<()> {
    let file = record_file(state_dir, stack);
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = serde_json::to_string_pretty(record).map_err(std::io::Error::other)?;
    let temp = file.with_extension(format!("json.{}.tmp", std::process::id()));
    std::fs::write(&temp, text)?;
    std::fs::rename(&temp, &file)
}

/// Keeps what this run's hooks (or `runner kubeconfig`) installed; a later install of the same
/// project into the same file adds to what it installed before.
pub(crate) fn remember(state_dir: &Path, stack: &str, provider: &str, installed: &[InstalledKubeconfig]) {
    if installed.is_empty() {
        return;
    }
    let mut record = load(state_dir, stack);
    for install in installed {
        let same = |kept: &&mut KubeconfigInstallRecord| {
            kept.provider == provider && kept.project == install.project.as_str() && kept.file == install.file
        };
        match record.installs.iter_mut().find(|kept| same(kept)) {
            Some(kept) => {
                let lists = [
                    (&mut kept.entries.contexts, &install.entries.contexts),
                    (&mut kept.entries.clusters, &install.entries.clusters),
                    (&mut kept.entries.users, &install.entries.users),
                ];
                for (kept, new) in lists {
                    kept.extend(new.iter().filter(|name| !kept.contains(name)).cloned().collect::<Vec<_>>());
                }
            }
            None => record.installs.push(KubeconfigInstallRecord {
                provider: provider.to_string(),
                project: install.project.to_string(),
                file: install.file.clone(),
                entries: install.entries.clone(),
            }),
        }
    }
    if let Err(err) = save(state_dir, stack, &record) {
        crate::text::stderr_line!(
            "warning: which kubeconfig entries were installed was not kept (a `destroy` will not remove them): {err}"
        );
    }
}

/// After a `destroy`: for every project destroyed whose hook installed a kubeconfig, takes the
/// recorded entries out of the file and says so, one line each. A project whose install was
/// never recorded (an older runner) gets the `kubectl` command instead. The record stays: a
/// second `destroy` finds nothing left to take out and says nothing.
pub(crate) fn remove_destroyed(
    state_dir: &Path,
    stack: &str,
    provider: &Provider,
    summary: &RunSummary,
) -> Vec<String> {
    let record = load(state_dir, stack);
    let mut lines = Vec::new();
    let destroyed = summary
        .reports
        .iter()
        .filter(|report| report.operation.is_none() && report.result == ProjectResult::Succeeded)
        .filter_map(|report| Some((report, provider.projects.iter().find(|project| project.path == report.project)?)));
    for (report, project) in destroyed {
        if !project.on_success.iter().any(|hook| matches!(hook, HookSpec::Kubeconfig { .. })) {
            continue;
        }
        let mine: Vec<_> = record
            .installs
            .iter()
            .filter(|kept| kept.provider == provider.name && kept.project == project.path.as_str())
            .collect();
        // Without a record, only a destroy that deleted something had a cluster to speak of.
        if mine.is_empty() && report.changes.deleted > 0 {
            lines.push(format!(
                "kubeconfig: `{}` was destroyed, but which context its hook installed was not recorded: \
                 drop it with `kubectl config delete-context NAME`",
                project.path
            ));
        }
        for kept in mine {
            let file = crate::error::shown_path(&kept.file);
            match remove_kubeconfig_entries(&kept.file, &kept.entries) {
                Ok(removal) if removal.removed.is_empty() && removal.kept.is_empty() => {}
                Ok(removal) if removal.removed.is_empty() => lines.push(kept_line(&removal.kept, &file, project)),
                Ok(removal) => {
                    if !removal.kept.is_empty() {
                        lines.push(kept_line(&removal.kept, &file, project));
                    }
                    let mut line = format!(
                        "kubeconfig: removed {} of destroyed `{}` from `{file}`",
                        removal.removed.describe(),
                        project.path
                    );
                    if let Some(current) = &removal.cleared_current {
                        line.push_str(&format!(
                            "; `{current}` was the current context, now none: pick one with `kubectl config use-context NAME`"
                        ));
                    }
                    lines.push(line);
                }
                Err(err) => {
                    let contexts = kept.entries.contexts.join(" ");
                    lines.push(format!(
                        "warning: kubeconfig: {err}; context `{contexts}` in `{file}` points at destroyed `{}`: drop it with `kubectl config delete-context {contexts}`",
                        project.path
                    ));
                }
            }
        }
    }
    lines
}

/// Entries of the names a destroyed project installed that no longer hold what it installed.
fn kept_line(kept: &KubeconfigEntries, file: &str, project: &crate::provider::Project) -> String {
    format!(
        "kubeconfig: left {} in `{file}`: no longer what destroyed `{}` installed (another cluster's under the same name, or changed since)",
        kept.describe(),
        project.path
    )
}
