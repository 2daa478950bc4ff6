use std::collections::HashMap;
use std::time::Duration;

use console::Style;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::run_summary::format_duration;
use super::Reporter;
use crate::execute::{ExecutionEvent, ProjectReport, ProjectResult};
use crate::provider::ProjectPath;

/// For a person at a terminal: a live line per running project with its resource progress,
/// and a finished line per project with result and duration.
pub struct TerminalReporter {
    multi: MultiProgress,
    bars: HashMap<ProjectPath, ProgressBar>,
    width: usize,
    verbose: bool,
    color: bool,
}

impl TerminalReporter {
    pub fn new(verbose: bool, color: bool) -> Self {
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(8));
        Self { multi, bars: HashMap::new(), width: 20, verbose, color }
    }

    /// `color` was decided once from the terminal and `NO_COLOR` (see `OutputStyle`); forcing it
    /// either way keeps console's own detection from disagreeing with the rest of the output.
    fn style(&self) -> Style {
        Style::new().for_stderr().force_styling(self.color)
    }

    /// The line left on screen when a project ends: mark, project, result, duration and why.
    pub fn finished_line(&self, report: &ProjectReport) -> String {
        let style = self.style();
        let mark = match report.result {
            ProjectResult::Succeeded => style.green().apply_to("✓"),
            ProjectResult::Failed => style.red().apply_to("✗"),
            ProjectResult::Skipped => style.yellow().apply_to("-"),
            ProjectResult::Cancelled => style.yellow().apply_to("!"),
        };
        let mut line = format!(
            "{mark} {:width$}  {:9} {:>7}",
            report.project.as_str(),
            report.result.as_str(),
            if report.started.is_some() { format_duration(report.duration) } else { String::new() },
            width = self.width
        );
        if report.changes.total_changed() > 0 {
            line.push_str(&format!("  {} changed", report.changes.total_changed()));
        }
        if let Some(reason) = &report.reason {
            line.push_str(&format!("  {reason}"));
        }
        if let Some(failure) = &report.failure {
            line.push_str(&format!("  {}", failure.summary));
        }
        line
    }

    pub fn interrupting_line(&self, kill: bool) -> String {
        let text = if kill {
            "interrupted again: killing running projects"
        } else {
            "interrupted: cancelling running projects (Ctrl-C again to kill them)"
        };
        self.style().yellow().apply_to(text).to_string()
    }

    fn bar_style(&self) -> ProgressStyle {
        let template = format!("{{spinner}} {{prefix:{}}}  {{msg:20}} {{elapsed:>5}}", self.width);
        ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| ProgressStyle::default_spinner())
            .tick_chars("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏ ")
    }
}

impl Reporter for TerminalReporter {
    fn on_event(&mut self, event: &ExecutionEvent) {
        match event {
            ExecutionEvent::RunStarted(info) => {
                self.width = info.projects.iter().map(|p| p.as_str().len()).max().unwrap_or(20);
                let _ = self.multi.println(format!(
                    "{} {} projects of `{}` on stack `{}`, up to {} at once",
                    info.operation,
                    info.projects.len(),
                    info.provider,
                    info.stack,
                    info.parallelism
                ));
            }
            ExecutionEvent::ProjectStarted { project, attempt, .. } => {
                let style = self.bar_style();
                let multi = self.multi.clone();
                let bar = self.bars.entry(project.clone()).or_insert_with(|| multi.add(ProgressBar::new_spinner()));
                bar.set_style(style);
                bar.set_prefix(project.to_string());
                bar.set_message(if *attempt > 1 { format!("attempt {attempt}") } else { "starting".into() });
                bar.enable_steady_tick(Duration::from_millis(120));
            }
            ExecutionEvent::ProjectProgress { project, progress } => {
                if let Some(bar) = self.bars.get(project) {
                    bar.set_message(format!("{}/{} resources", progress.steps_done, progress.steps_seen));
                }
            }
            ExecutionEvent::ProjectNote { project, message } => {
                if let Some(bar) = self.bars.get(project) {
                    bar.set_message(message.chars().take(40).collect::<String>());
                }
            }
            ExecutionEvent::ProjectOutput { project, line, .. } if self.verbose => {
                let _ = self.multi.println(format!("[{project}] {line}"));
            }
            ExecutionEvent::ProjectFinished(report) => {
                if let Some(bar) = self.bars.remove(&report.project) {
                    bar.finish_and_clear();
                    self.multi.remove(&bar);
                }
                let line = self.finished_line(report);
                let _ = self.multi.println(line);
            }
            ExecutionEvent::Interrupting { kill } => {
                let _ = self.multi.println(self.interrupting_line(*kill));
            }
            ExecutionEvent::RunFinished { .. } => {
                for (_, bar) in self.bars.drain() {
                    bar.finish_and_clear();
                }
                let _ = self.multi.clear();
            }
            _ => {}
        }
    }
}
