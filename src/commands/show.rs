use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

use super::LoadedProvider;
use crate::cli::{Settings, ShowFormat, ShowSettings};
use crate::error::{Location, Result, UserError};
use crate::exit_status::ExitStatus;
use crate::render::{self, TreeLayout};

/// `runner show`: the plan drawn on stdout; nothing runs.
pub(crate) fn show(settings: &Settings, show: &ShowSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &show.provider)?;
    let selected = super::select_with_affected(settings, &loaded, &show.selection, None)?;
    let plan = super::planned(settings, &loaded, show.operation, &selected, None, &show.pools)?;
    let plan = match &show.durations {
        Some(file) => {
            let given = given_durations(file, &loaded)?;
            plan.with_expected(&|node| given.get(loaded.graph.project(node).path.as_str()).copied())
        }
        None => plan,
    };
    let text = match show.format {
        ShowFormat::Tree => {
            let layout = TreeLayout::new(output_width(), show.parallelism);
            render::tree(&loaded.provider, &loaded.graph, &plan, layout)
        }
        ShowFormat::Dot => render::dot(&loaded.provider, &loaded.graph, &plan),
        ShowFormat::Mermaid => render::mermaid(&loaded.provider, &loaded.graph, &plan),
        ShowFormat::Json => render::json(&loaded.provider, &loaded.graph, &plan, show.parallelism),
    };
    super::write_data(text.as_bytes())?;
    Ok(ExitStatus::Success)
}

/// The terminal's width when stdout is one; for pipes and files `COLUMNS` when set (`COLUMNS=60
/// runner show | less`), else a fixed width, so what a script or a log gets does not depend on
/// the window it was started from.
fn output_width() -> usize {
    let stdout = std::io::stdout();
    if let Some((_rows, columns)) = stdout.is_terminal().then(|| console::Term::stdout().size_checked()).flatten() {
        return usize::from(columns);
    }
    std::env::var("COLUMNS").ok().and_then(|columns| columns.trim().parse().ok()).unwrap_or(TreeLayout::DEFAULT_WIDTH)
}

/// The shape of a `--report json` file that `--durations` reads; other fields are ignored.
#[derive(Deserialize)]
struct DurationsFile {
    projects: Vec<ProjectDuration>,
}

#[derive(Deserialize)]
struct ProjectDuration {
    project: String,
    duration: Option<f64>,
    /// As the history counts only successful runs, a report's failed project has no duration.
    result: Option<String>,
}

/// `--durations FILE`: seconds by project path. A path the provider lacks is refused, so a
/// typo cannot quietly plan a project as unknown.
fn given_durations(file: &Path, loaded: &LoadedProvider) -> Result<HashMap<String, Duration>> {
    let text =
        std::fs::read_to_string(file).map_err(|err| UserError::Unreadable { path: file.to_path_buf(), source: err })?;
    let invalid =
        |line: usize, message: String| UserError::InvalidFile { location: Location::line(file, line), message };
    let parsed: DurationsFile =
        serde_json::from_str(&text).map_err(|err| invalid(err.line(), format!("not a `--report json` file: {err}")))?;
    let mut given = HashMap::new();
    for entry in parsed.projects {
        if !loaded.provider.projects.iter().any(|project| project.path.as_str() == entry.project) {
            let message = format!("no project `{}` in provider `{}`", entry.project, loaded.provider.name);
            return Err(invalid(line_of(&text, &entry.project), message));
        }
        if entry.result.as_deref().is_some_and(|result| result != "succeeded") {
            continue;
        }
        let Some(seconds) = entry.duration else { continue };
        let duration = Duration::try_from_secs_f64(seconds).map_err(|_| {
            invalid(
                line_of(&text, &entry.project),
                format!("`{}`: duration `{seconds}` is not a number of seconds", entry.project),
            )
        })?;
        given.insert(entry.project, duration);
    }
    Ok(given)
}

/// The line naming `project`, for the error's location (JSON values carry no spans).
fn line_of(text: &str, project: &str) -> usize {
    let quoted = format!("\"{project}\"");
    text.lines().position(|line| line.contains(&quoted)).map_or(1, |index| index + 1)
}
