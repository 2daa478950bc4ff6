use std::fmt::Write;
use std::path::Path;

use super::RunSummary;
use crate::config::write_atomically;
use crate::error::{Result, UserError};
use crate::execute::ProjectResult;

/// `--report junit=FILE`: one test case per project, so CI systems show the run like a test suite.
pub fn write_junit_report(summary: &RunSummary, path: &Path) -> Result<()> {
    let info = summary.info.as_ref().ok_or_else(|| UserError::Internal("the run never started".into()))?;
    let reports = summary.ordered();
    let failures = summary.count(ProjectResult::Failed);
    let skipped = summary.count(ProjectResult::Skipped) + summary.count(ProjectResult::Cancelled);
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let name = format!("runner {} {} {}", info.operation, info.provider, info.stack);
    let _ = writeln!(
        xml,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\" time=\"{:.3}\">",
        escape(&name),
        reports.len(),
        summary.wall_time().as_secs_f64()
    );
    let _ = writeln!(
        xml,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\" time=\"{:.3}\">",
        escape(&name),
        reports.len(),
        summary.wall_time().as_secs_f64()
    );
    for report in reports {
        let _ = write!(
            xml,
            "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
            escape(&format!("{}.{}", info.provider, info.stack)),
            escape(report.project.as_str()),
            report.duration.as_secs_f64()
        );
        match report.result {
            ProjectResult::Succeeded => xml.push_str("/>\n"),
            ProjectResult::Failed => {
                let failure = report.failure.clone().unwrap_or_default();
                let mut body = failure.diagnostics.join("\n");
                if body.is_empty() {
                    body = failure.log_tail.join("\n");
                }
                let _ = write!(
                    xml,
                    ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n",
                    escape(&failure.summary),
                    escape(&body)
                );
            }
            ProjectResult::Skipped | ProjectResult::Cancelled => {
                let reason = format!("{}: {}", report.result.as_str(), report.reason.clone().unwrap_or_default());
                let _ = write!(xml, ">\n      <skipped message=\"{}\"/>\n    </testcase>\n", escape(&reason));
            }
        }
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    write_atomically(path, xml.as_bytes())
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' && c != '\r' => {}
            c => out.push(c),
        }
    }
    out
}
