mod change_report;
mod eta_tracker;
mod event_dispatcher;
mod json_report;
mod junit_report;
mod log_files;
mod merged_report;
mod plain_reporter;
#[cfg(test)]
mod report_snapshots;
mod reporter;
mod run_footer;
mod run_summary;
mod terminal_reporter;

pub(crate) use change_report::{drift_found, write_markdown_report, ChangeReport};
pub(crate) use eta_tracker::EtaTracker;
pub(crate) use event_dispatcher::{dispatch_events, panic_message};
pub(crate) use json_report::write_json_report;
pub(crate) use junit_report::write_junit_report;
pub(crate) use log_files::LogFiles;
pub(crate) use merged_report::MergedReport;
pub(crate) use plain_reporter::PlainReporter;
pub(crate) use reporter::Reporter;
pub(crate) use run_footer::{ci_job_footer, run_footer};
pub(crate) use run_summary::RunSummary;
pub(crate) use terminal_reporter::TerminalReporter;

#[cfg(test)]
mod wording_tests;
