use std::io::IsTerminal;

use super::LoadedProvider;
use crate::cli::{Settings, ShowFormat, ShowSettings};
use crate::error::Result;
use crate::exit_status::ExitStatus;
use crate::render::{self, TreeLayout};

/// `runner show`: the plan drawn on stdout; nothing runs.
pub fn show(settings: &Settings, show: &ShowSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &show.provider)?;
    let selected = super::select_with_affected(settings, &loaded, &show.selection, None)?;
    let plan = super::planned(settings, &loaded, show.operation, &selected, None, &show.pools)?;
    let text = match show.format {
        ShowFormat::Tree => {
            let layout = TreeLayout::new(output_width(), show.parallelism);
            render::tree(&loaded.provider, &loaded.graph, &plan, layout)
        }
        ShowFormat::Dot => render::dot(&loaded.provider, &loaded.graph, &plan),
        ShowFormat::Mermaid => render::mermaid(&loaded.provider, &loaded.graph, &plan),
        ShowFormat::Json => render::json(&loaded.provider, &loaded.graph, &plan),
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
