use std::path::PathBuf;

use super::arguments::{TimelineArguments, TimelineFormat};

/// `runner timeline [RUN] [--format svg|mermaid] [-o FILE]`.
#[derive(Debug, Clone)]
pub(crate) struct TimelineSettings {
    pub run: Option<String>,
    pub format: TimelineFormat,
    pub output: Option<PathBuf>,
}

impl From<TimelineArguments> for TimelineSettings {
    fn from(arguments: TimelineArguments) -> Self {
        Self { run: arguments.run, format: arguments.format, output: arguments.output }
    }
}
