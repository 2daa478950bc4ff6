use crate::cli::{Settings, TimelineFormat, TimelineSettings};
use crate::error::{Result, UserError};
use crate::exit_status::ExitStatus;
use crate::history::{RunStore, RunTimeline};
use crate::render;

/// `runner timeline [RUN]`: where the time of a run went, as an SVG or a Mermaid gantt.
pub fn timeline(settings: &Settings, timeline: &TimelineSettings) -> Result<ExitStatus> {
    if let Some(file) = &timeline.output {
        super::InputFiles::of(&settings.root, None).refuse_overwrite("-o", file)?;
    }
    let state_dir = settings.root.state_dir();
    let runs = RunStore::new(&state_dir).runs();
    let record = match &timeline.run {
        Some(id) => runs.iter().find(|run| &run.run_id == id).ok_or_else(|| {
            UserError::Usage(format!("no run `{id}` is recorded in `.runner/history/`: `runner history` lists them"))
        })?,
        None => runs.last().ok_or_else(|| {
            UserError::Usage("no run is recorded yet in `.runner/history/`: `up`, `preview`, `refresh`, `destroy` and `drift` record theirs".into())
        })?,
    };
    let data = RunTimeline::load(&state_dir, &record.run_id).unwrap_or_else(|| RunTimeline::from_record(record));
    let text = match timeline.format {
        TimelineFormat::Svg => render::timeline_svg(&data),
        TimelineFormat::Mermaid => render::timeline_mermaid(&data),
    };
    match &timeline.output {
        Some(path) => {
            crate::config::write_atomically(path, text.as_bytes())?;
            crate::text::stderr_line!("timeline of run `{}` written to {}", record.run_id, path.display());
        }
        None => {
            super::write_data(text.as_bytes())?;
        }
    }
    Ok(ExitStatus::Success)
}
