use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use console::Style;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use super::run_summary::format_duration;
use super::Reporter;
use crate::execute::{ExecutionEvent, OperationProgress, ProjectReport, ProjectResult, RunInfo};
use crate::plan::Operation;
use crate::provider::ProjectPath;
use crate::text::{counted, fit_middle, fit_path, fit_reason, fit_words, word_wrap};

/// Columns the spinner, the gaps and the elapsed time take on a live line.
const LIVE_CHROME: usize = 2 + 1 + 1 + 6;
/// The live line: its status starts in the column where a finished line's result word does.
pub(super) const LIVE_TEMPLATE: &str = "{spinner} {prefix} {status} {elapsed:>5}";
/// A reason squeezed into fewer columns than this says nothing: the row ends at its duration.
const MIN_REASON: usize = 6;
/// A project path never takes more than this share of the line, so its status stays readable.
const MAX_PATH_SHARE: usize = 2;
/// The live area is redrawn at most this often; an update in between is drawn at the next tick.
const DRAWS_PER_SECOND: u8 = 8;
/// Every live bar ticks at this interval, so its latest text is on screen within it.
const TICK: Duration = Duration::from_millis(120);

/// A running project's line, and what the project is doing, whole: the line fits the status to
/// the terminal at every redraw, so a resized terminal gets refitted lines within a tick.
struct LiveLine {
    bar: ProgressBar,
    status: Arc<Mutex<String>>,
}

/// For a person at a terminal: a live line per running project with its resource progress,
/// and a finished line per project with result and duration. Lines use the terminal's whole
/// width; what does not fit is cut in the middle, never at an arbitrary column.
pub(crate) struct TerminalReporter {
    multi: MultiProgress,
    live: HashMap<ProjectPath, LiveLine>,
    path_width: usize,
    verbose: bool,
    color: bool,
    /// Columns of the terminal; `None` asks the terminal each time (a test fixes it).
    fixed_columns: Option<usize>,
    /// `about 3m10s left (5 of 15 done)`, below the running projects, once the history knows.
    eta: Option<ProgressBar>,
    /// The run's operation: a project's own (a prerequisite's) else this one words its counts.
    operation: Option<crate::plan::Operation>,
}

impl TerminalReporter {
    pub(crate) fn new(verbose: bool, color: bool) -> Self {
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(DRAWS_PER_SECOND));
        Self {
            multi,
            live: HashMap::new(),
            path_width: 20,
            verbose,
            color,
            fixed_columns: None,
            eta: None,
            operation: None,
        }
    }

    #[cfg(test)]
    /// A reporter drawing nowhere, `columns` wide: for tests of the lines it makes.
    pub(crate) fn hidden(columns: usize) -> Self {
        let mut reporter = Self::new(false, false);
        reporter.multi.set_draw_target(ProgressDrawTarget::hidden());
        reporter.fixed_columns = Some(columns);
        reporter
    }

    #[cfg(test)]
    /// A reporter drawing on an in-memory terminal, `columns` wide, at the rate a real one gets.
    pub(crate) fn on_screen(screen: &indicatif::InMemoryTerm, columns: usize) -> Self {
        let mut reporter = Self::new(false, false);
        reporter
            .multi
            .set_draw_target(ProgressDrawTarget::term_like_with_hz(Box::new(screen.clone()), DRAWS_PER_SECOND));
        reporter.fixed_columns = Some(columns);
        reporter
    }

    fn columns(&self) -> usize {
        columns(self.fixed_columns)
    }

    /// `color` was decided once from the terminal and `NO_COLOR` (see `OutputStyle`); forcing it
    /// either way keeps console's own detection from disagreeing with the rest of the output.
    fn style(&self) -> Style {
        Style::new().for_stderr().force_styling(self.color)
    }

    fn shown_path(&self, project: &ProjectPath) -> String {
        format!("{:width$}", fit_path(project.as_str(), self.path_width), width = self.path_width)
    }

    /// The line left on screen when a project ends: mark, project, result, duration and why.
    pub(crate) fn finished_line(&self, report: &ProjectReport) -> String {
        let style = self.style();
        let mark = match report.result {
            ProjectResult::Succeeded => style.green().apply_to("✓"),
            ProjectResult::Failed => style.red().apply_to("✗"),
            ProjectResult::Skipped => style.yellow().apply_to("-"),
            ProjectResult::Cancelled => style.yellow().apply_to("!"),
            ProjectResult::NotDeployed => style.red().apply_to("∅"),
            ProjectResult::Unchanged => style.green().apply_to("="),
        };
        let duration = if report.started.is_some() { format_duration(report.duration) } else { String::new() };
        let mut why = Vec::new();
        let operation = report.operation.or(self.operation);
        let changes = report.changes.brief_for(operation);
        if !changes.is_empty() && report.result != ProjectResult::Skipped {
            why.push(changes);
        }
        why.extend(report.reason.clone());
        // A cancelled project's reason says it all; its exit status is in the log.
        if report.result != ProjectResult::Cancelled {
            why.extend(report.failure.as_ref().map(|failure| failure.summary.clone()));
        }
        let why = why.join("; ");
        let path = self.shown_path(&report.project);
        // The result word is the row's answer: the message is cut, never the word, so every row
        // keeps its columns at every width.
        let head = format!("{path} {:12} {duration:>7}", report.result.as_str());
        let room = self.columns().saturating_sub(2 + console::measure_text_width(&head) + 2);
        let tail =
            if why.is_empty() || room < MIN_REASON { String::new() } else { format!("  {}", fit_reason(&why, room)) };
        format!("{mark} {head}{tail}")
    }

    #[cfg(test)]
    pub(crate) fn path_width_for_tests(&self) -> usize {
        self.path_width
    }

    #[cfg(test)]
    /// What a running project is doing, fitted to the room its live line has.
    pub(crate) fn live_message(&self, status: &str) -> String {
        fit_live(status, self.columns(), self.path_width)
    }

    /// `up 6 projects of `local` on stack `dev`, up to 4 at once`, wrapped at a space when the
    /// terminal is narrower.
    pub(crate) fn header(&self, info: &RunInfo) -> String {
        let mut header = format!(
            "{} {} of `{}` on stack `{}`",
            info.operation,
            counted(info.projects.len(), "project"),
            info.provider,
            info.stack
        );
        // No more at once than there are projects; one project runs alone, which needs no word.
        let at_once = info.parallelism.min(info.projects.len());
        if at_once > 1 {
            header.push_str(&format!(", up to {at_once} at once"));
        }
        self.wrapped(&header)
    }

    /// `text` broken at spaces to the terminal's width, continued lines indented.
    fn wrapped(&self, text: &str) -> String {
        word_wrap(text, "", "  ", self.columns()).join("\n")
    }

    pub(crate) fn interrupting_line(&self, kill: bool) -> String {
        let text = if kill {
            "interrupted again: killing running projects"
        } else {
            "interrupted: cancelling running projects (Ctrl-C again to kill them)"
        };
        self.style().yellow().apply_to(self.wrapped(text)).to_string()
    }

    /// The live line's look; `{status}` is `status` fitted to the terminal's width at each draw.
    fn bar_style(&self, status: Arc<Mutex<String>>) -> ProgressStyle {
        let (fixed_columns, path_width) = (self.fixed_columns, self.path_width);
        let fitted = move |_: &ProgressState, out: &mut dyn std::fmt::Write| {
            let status = status.lock().map(|status| status.clone()).unwrap_or_default();
            let _ = out.write_str(&fit_live(&status, columns(fixed_columns), path_width));
        };
        ProgressStyle::with_template(LIVE_TEMPLATE)
            .unwrap_or_else(|_| ProgressStyle::default_spinner())
            .with_key("status", fitted)
            .tick_chars("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏ ")
    }

    fn set_status(&self, project: &ProjectPath, status: &str) {
        let Some(line) = self.live.get(project) else { return };
        if let Ok(mut shown) = line.status.lock() {
            status.clone_into(&mut shown);
        }
        // The template does not show `{msg}`; setting it only redraws now instead of at the tick.
        line.bar.set_message(status.to_string());
    }

    fn clear_live_area(&mut self) {
        for (_, line) in self.live.drain() {
            line.bar.finish_and_clear();
        }
        if let Some(bar) = self.eta.take() {
            bar.finish_and_clear();
        }
        let _ = self.multi.clear();
    }
}

/// The terminal's columns, or the width a test fixed.
fn columns(fixed: Option<usize>) -> usize {
    fixed.unwrap_or_else(|| usize::from(console::Term::stderr().size().1)).max(20)
}

/// A status in the room a live line leaves it on a terminal `columns` wide: counts are cut after
/// a whole part (`1 unchanged…`), never inside a word; a long note keeps both its ends.
fn fit_live(status: &str, columns: usize, path_width: usize) -> String {
    let room = columns.saturating_sub(LIVE_CHROME + path_width);
    if status.contains(',') {
        fit_words(status, room)
    } else {
        fit_middle(status, room)
    }
}

/// `2 created, 3 unchanged, 1 in progress`: the numbers the table will show, as they grow, in
/// the words of the run's `operation`.
pub(super) fn progress_status(progress: &OperationProgress, operation: Option<Operation>) -> String {
    let operation = if progress.is_preview == Some(true) { Some(Operation::Preview) } else { operation };
    let mut parts = vec![progress.changes().brief_for(operation)];
    let running = progress.steps_seen.saturating_sub(progress.steps_done + progress.steps_failed);
    if running > 0 {
        parts.push(format!("{running} in progress"));
    }
    if progress.steps_failed > 0 {
        parts.push(format!("{} failed", progress.steps_failed));
    }
    parts.retain(|part| !part.is_empty());
    if parts.is_empty() {
        "starting".into()
    } else {
        parts.join(", ")
    }
}

impl Reporter for TerminalReporter {
    fn name(&self) -> &'static str {
        "terminal reporter"
    }

    fn on_event(&mut self, event: &ExecutionEvent) {
        match event {
            ExecutionEvent::RunStarted(info) => {
                self.operation = Some(info.operation);
                let longest = info.projects.iter().map(|p| p.as_str().len()).max().unwrap_or(20);
                self.path_width = longest.min(self.columns() / MAX_PATH_SHARE);
                let _ = self.multi.println(self.header(info));
            }
            ExecutionEvent::ProjectStarted { project, attempt, .. } => {
                if !self.live.contains_key(project) {
                    let line = LiveLine { bar: self.multi.add(ProgressBar::new_spinner()), status: Arc::default() };
                    line.bar.set_style(self.bar_style(Arc::clone(&line.status)));
                    line.bar.set_prefix(self.shown_path(project));
                    line.bar.enable_steady_tick(TICK);
                    self.live.insert(project.clone(), line);
                }
                let status = if *attempt > 1 { format!("attempt {attempt}") } else { "starting".into() };
                self.set_status(project, &status);
            }
            ExecutionEvent::ProjectProgress { project, progress } => {
                self.set_status(project, &progress_status(progress, self.operation));
            }
            ExecutionEvent::ProjectNote { project, message } => self.set_status(project, message),
            ExecutionEvent::ProjectOutput { project, line, .. } if self.verbose => {
                let _ = self.multi.println(format!("[{project}] {line}"));
            }
            ExecutionEvent::ProjectFinished(report) => {
                if let Some(line) = self.live.remove(&report.project) {
                    line.bar.finish_and_clear();
                    self.multi.remove(&line.bar);
                }
                let line = self.finished_line(report);
                let _ = self.multi.println(line);
            }
            ExecutionEvent::Interrupting { kill } => {
                let _ = self.multi.println(self.interrupting_line(*kill));
            }
            ExecutionEvent::RunEstimate { remaining, ended, total }
                if ended >= total || remaining.as_secs_f64() < 0.1 =>
            {
                if let Some(bar) = self.eta.take() {
                    bar.finish_and_clear();
                }
            }
            ExecutionEvent::RunEstimate { remaining, ended, total } => {
                let multi = self.multi.clone();
                let bar = self.eta.get_or_insert_with(|| {
                    let bar = multi.add(ProgressBar::new_spinner());
                    bar.set_style(
                        ProgressStyle::with_template("  {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner()),
                    );
                    // Like the rows: an update that came between two draws is drawn at the next tick.
                    bar.enable_steady_tick(TICK);
                    bar
                });
                bar.set_message(format!("about {} left ({ended} of {total} done)", format_duration(*remaining)));
            }
            ExecutionEvent::RunFinished { .. } => self.clear_live_area(),
            _ => {}
        }
    }
}

impl Drop for TerminalReporter {
    /// However the run ends, nothing of the live area stays on screen above what comes next.
    fn drop(&mut self) {
        self.clear_live_area();
    }
}

#[cfg(test)]
#[path = "terminal_reporter_tests.rs"]
mod tests;
