use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use super::Reporter;
use crate::execute::{ExecutionEvent, OutputStream};
use crate::provider::ProjectPath;

/// Writes each project's Pulumi output to `.runner/logs/<run-id>/<project>.log` as it arrives.
pub(crate) struct LogFiles {
    dir: PathBuf,
    open: HashMap<ProjectPath, BufWriter<File>>,
}

impl LogFiles {
    pub(crate) fn new(dir: PathBuf) -> Self {
        Self { dir, open: HashMap::new() }
    }

    pub(crate) fn path_for(&self, project: &ProjectPath) -> PathBuf {
        self.dir.join(format!("{}.log", project.as_str()))
    }

    fn writer(&mut self, project: &ProjectPath) -> Option<&mut BufWriter<File>> {
        if !self.open.contains_key(project) {
            let path = self.path_for(project);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).ok()?;
            }
            // 0600 like every other record under `.runner/`: output may name internal hosts.
            let file =
                std::os::unix::fs::OpenOptionsExt::mode(std::fs::OpenOptions::new().create(true).append(true), 0o600)
                    .open(&path)
                    .ok()?;
            self.open.insert(project.clone(), BufWriter::new(file));
        }
        self.open.get_mut(project)
    }
}

impl Reporter for LogFiles {
    fn name(&self) -> &'static str {
        "log writer"
    }

    fn on_event(&mut self, event: &ExecutionEvent) {
        match event {
            ExecutionEvent::ProjectOutput { project, stream, line } => {
                if let Some(writer) = self.writer(project) {
                    let prefix = if *stream == OutputStream::Stderr { "stderr: " } else { "" };
                    let _ = writeln!(writer, "{prefix}{line}");
                }
            }
            ExecutionEvent::ProjectNote { project, message } => {
                if let Some(writer) = self.writer(project) {
                    let _ = writeln!(writer, "runner: {message}");
                }
            }
            ExecutionEvent::ProjectFinished(report) => {
                if let Some(mut writer) = self.open.remove(&report.project) {
                    let _ = writeln!(writer, "runner: {}", report.result.as_str());
                    let _ = writer.flush();
                }
            }
            ExecutionEvent::RunFinished { .. } => {
                for writer in self.open.values_mut() {
                    let _ = writer.flush();
                }
            }
            _ => {}
        }
    }
}
