use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

#[derive(Debug, Args)]
pub(crate) struct ReportArguments {
    #[command(subcommand)]
    pub action: ReportAction,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ReportAction {
    /// Merge JSON reports (`--report json=FILE`, e.g. one per CI job) into one summary on stdout.
    ///
    /// Exits 3 when the reports are of `drift` and a project drifted, as `runner drift` does:
    /// an exported drift pipeline lets each job pass on drift and fails in its summary job.
    Merge(ReportMergeArguments),
}

#[derive(Debug, Args)]
pub(crate) struct ReportMergeArguments {
    /// `markdown` (a table and each failure with Pulumi's error) or `junit` (one case per project).
    #[arg(long, value_enum, default_value_t = MergeFormat::Markdown)]
    pub format: MergeFormat,

    /// A project that should have a report (repeatable): one without is listed as never run.
    #[arg(long, value_name = "PROJECT")]
    pub expect: Vec<String>,

    /// JSON reports, or folders whose `*.json` files are; a missing folder holds none.
    #[arg(required = true, value_name = "FILE|DIR")]
    pub inputs: Vec<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum MergeFormat {
    Markdown,
    Junit,
}
