use crate::cli::{Settings, TimelineFormat, TimelineSettings};
use crate::error::{Result, UserError};
use crate::exit_status::ExitStatus;
use crate::history::{RunStore, RunTimeline};
use crate::render;

/// `runner timeline [RUN]`: where the time of a run went, as an SVG or a Mermaid gantt.
pub(crate) fn timeline(settings: &Settings, timeline: &TimelineSettings) -> Result<ExitStatus> {
    if let Some(file) = &timeline.output {
        super::InputFiles::of(&settings.root, None).refuse_overwrite("-o", file)?;
    }
    // An SVG is a picture: in a terminal it is thirty lines of markup nobody reads.
    if timeline.output.is_none() && matches!(timeline.format, TimelineFormat::Svg) && console::Term::stdout().is_term()
    {
        let run = timeline.run.as_deref().map(|id| format!(" {id}")).unwrap_or_default();
        return Err(UserError::Usage(format!(
            "the timeline is an SVG picture, not text for a terminal: write it to a file with `runner timeline{run} -o timeline.svg`, or `--format mermaid` for text"
        )));
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
