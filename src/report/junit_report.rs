use std::path::Path;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestRerun, TestSuite};

use super::RunSummary;
use crate::config::write_atomically;
use crate::error::{Result, UserError};
use crate::execute::{ProjectReport, ProjectResult};

/// `--report junit=FILE`: one test case per project, so CI systems show the run like a test suite.
pub(crate) fn write_junit_report(summary: &RunSummary, path: &Path) -> Result<()> {
    write_atomically(path, junit_xml(summary)?.as_bytes())
}

/// The report as JUnit XML, in the dialect nextest writes: a failed project is a `failure`, a
/// skipped or cancelled one `skipped`, and attempts that were retried are `flakyFailure` (the
/// project succeeded in the end) or `rerunFailure` (it did not) with the reason of each.
pub(super) fn junit_xml(summary: &RunSummary) -> Result<String> {
    let info = summary.info.as_ref().ok_or_else(|| UserError::Internal("the run never started".into()))?;
    let name = format!("runner {} {} {}", info.operation, info.provider, info.stack);
    let mut suite = TestSuite::new(name.as_str());
    suite.set_time(summary.wall_time());
    for report in summary.ordered() {
        let mut case = TestCase::new(report.project.as_str(), status_of(report));
        case.set_classname(format!("{}.{}", info.provider, info.stack));
        case.set_time(report.duration);
        if report.attempts > 1 {
            case.add_property(Property::new("attempts", report.attempts.to_string()));
        }
        suite.add_test_case(case);
    }
    let mut junit = Report::new(name.as_str());
    junit.set_time(summary.wall_time());
    junit.add_test_suite(suite);
    junit.to_string().map_err(|err| UserError::Internal(format!("cannot write the JUnit report: {err}")))
}

fn status_of(report: &ProjectReport) -> TestCaseStatus {
    match report.result {
        ProjectResult::Succeeded => TestCaseStatus::Success { flaky_runs: reruns(report) },
        ProjectResult::Failed => {
            let failure = report.failure.clone().unwrap_or_default();
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            // The one field a reader sees first; what goes into it is decided where the failure
            // is summarised, not here.
            status.set_message(failure.summary.as_str());
            let mut body = failure.diagnostics.join("\n");
            if body.is_empty() {
                body = failure.log_tail.join("\n");
            }
            if !body.is_empty() {
                // The XML string type drops tabs with the other control characters; Pulumi indents
                // its error lists with them.
                status.set_description(body.replace('\t', "    "));
            }
            status.add_reruns(reruns(report));
            status
        }
        // A check of a stack that is not there must not pass.
        ProjectResult::NotDeployed => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status.set_message(format!("not deployed: {}", report.reason.as_deref().unwrap_or_default()));
            status
        }
        ProjectResult::Skipped | ProjectResult::Cancelled | ProjectResult::Unchanged => {
            let mut status = TestCaseStatus::skipped();
            status.set_message(format!("{}: {}", report.result.as_str(), report.reason.as_deref().unwrap_or_default()));
            status
        }
    }
}

/// Why each attempt before the last one failed, as the reruns CI systems show on flaky tests.
fn reruns(report: &ProjectReport) -> Vec<TestRerun> {
    report
        .retried
        .iter()
        .map(|reason| {
            let mut rerun = TestRerun::new(NonSuccessKind::Failure);
            rerun.set_message(reason.as_str());
            rerun
        })
        .collect()
}
