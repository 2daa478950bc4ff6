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

pub use change_report::{drift_found, write_markdown_report, ChangeReport};
pub use eta_tracker::EtaTracker;
pub use event_dispatcher::{dispatch_events, panic_message};
pub use json_report::write_json_report;
pub use junit_report::write_junit_report;
pub use log_files::LogFiles;
pub use merged_report::MergedReport;
pub use plain_reporter::PlainReporter;
pub use reporter::Reporter;
pub use run_footer::{ci_job_footer, run_footer};
pub use run_summary::RunSummary;
pub use terminal_reporter::TerminalReporter;

#[cfg(test)]
mod wording_tests;
