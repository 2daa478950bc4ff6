use std::fmt::Write;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use serde::Deserialize;

use crate::execute::ProjectResult;
use crate::plan::Operation;

/// The JSON reports of several runs (a CI pipeline's jobs, one project each) as one summary.
#[derive(Debug, Clone, Default)]
pub(crate) struct MergedReport {
    pub provider: String,
    pub stack: String,
    /// `None` until a report is added.
    pub operation: Option<Operation>,
    pub projects: Vec<MergedProject>,
}

/// A project's result in the summary: what its report says, or that no job reported it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MergedResult {
    Reported(ProjectResult),
    NotRun,
}

impl MergedResult {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            MergedResult::Reported(result) => result.as_str(),
            MergedResult::NotRun => "not run",
        }
    }
}

impl<'de> Deserialize<'de> for MergedResult {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ProjectResult::deserialize(deserializer).map(MergedResult::Reported)
    }
}

const SUCCEEDED: MergedResult = MergedResult::Reported(ProjectResult::Succeeded);
const FAILED: MergedResult = MergedResult::Reported(ProjectResult::Failed);

/// The part of a project's entry in a JSON report (`--report json=FILE`) the summary shows.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct MergedProject {
    pub project: String,
    pub result: MergedResult,
    #[serde(default)]
    pub started: Option<f64>,
    #[serde(default)]
    pub duration: f64,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub failure: Option<MergedFailure>,
    /// What changes, or for `drift` what drifted: filled in once the run's changes are read.
    #[serde(default)]
    pub resources: Vec<MergedResource>,
}

/// One resource of a project's entry: enough to name it in the summary.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct MergedResource {
    pub kind: String,
    #[serde(rename = "type")]
    pub resource_type: String,
    pub name: String,
}

impl MergedResource {
    fn line(&self) -> String {
        format!("{} {} {}", self.kind, self.resource_type, self.name)
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct MergedFailure {
    pub summary: String,
    #[serde(default)]
    pub diagnostics: Vec<String>,
    /// The provider's advice for this failure, when it had some.
    #[serde(default)]
    pub hint: Option<String>,
}

/// Why reports could not be merged; the parser's or writer's error kept as `source()`.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MergeError {
    #[error("`{name}` is not a runner JSON report")]
    NotAReport { name: String, source: serde_json::Error },
    #[error("cannot write the JUnit report")]
    Junit(#[source] quick_junit::SerializeError),
}

#[derive(Deserialize)]
struct ReportFile {
    provider: String,
    stack: String,
    operation: Operation,
    projects: Vec<MergedProject>,
}

impl MergedReport {
    /// Adds one report's text; `name` says which file in the error.
    pub(crate) fn add(&mut self, name: &str, text: &str) -> Result<(), MergeError> {
        let file: ReportFile =
            serde_json::from_str(text).map_err(|source| MergeError::NotAReport { name: name.to_string(), source })?;
        if self.projects.is_empty() && self.provider.is_empty() {
            self.provider = file.provider;
            self.stack = file.stack;
            self.operation = Some(file.operation);
        }
        for project in file.projects {
            // A job runs one project; a prerequisite it ran as well appears in two reports.
            match self.projects.iter_mut().find(|known| known.project == project.project) {
                Some(known) if project.started.is_some() => *known = project,
                Some(_) => {}
                None => self.projects.push(project),
            }
        }
        Ok(())
    }

    /// Projects that should have a report: one without did not run (an upstream job failed,
    /// or it was not selected), which the summary says instead of leaving it out.
    pub(crate) fn expect(&mut self, projects: &[String]) {
        for project in projects {
            if !self.projects.iter().any(|known| &known.project == project) {
                self.projects.push(MergedProject {
                    project: project.clone(),
                    result: MergedResult::NotRun,
                    started: None,
                    duration: 0.0,
                    reason: Some("its job left no report: an upstream job failed, or it was not selected".into()),
                    failure: None,
                    resources: Vec::new(),
                });
            }
        }
    }

    /// In the order the projects started; those that never started last.
    fn ordered(&self) -> Vec<&MergedProject> {
        let mut projects: Vec<&MergedProject> = self.projects.iter().collect();
        projects.sort_by(|a, b| {
            let key = |p: &MergedProject| p.started.unwrap_or(f64::MAX);
            key(a).total_cmp(&key(b)).then_with(|| a.project.cmp(&b.project))
        });
        projects
    }

    fn title(&self) -> String {
        if self.provider.is_empty() {
            "runner: no project reported".to_string()
        } else {
            format!("runner {} {} {}", self.operation.map_or("", Operation::as_str), self.provider, self.stack)
        }
    }

    pub(crate) fn failed(&self) -> usize {
        self.projects.iter().filter(|p| p.result == FAILED).count()
    }

    /// The projects a `drift` check found drifted: checked, and something differs from the state.
    /// Each job of a drift pipeline lets its own drift pass, so that its dependents are checked
    /// too; the summary is where the pipeline learns of it.
    pub(crate) fn drifted(&self) -> Vec<&MergedProject> {
        if self.operation != Some(Operation::Drift) {
            return Vec::new();
        }
        self.ordered().into_iter().filter(|p| p.result == SUCCEEDED && !p.resources.is_empty()).collect()
    }

    fn result_cell(&self, project: &MergedProject) -> String {
        if self.operation == Some(Operation::Drift) && project.result == SUCCEEDED {
            return match project.resources.len() {
                0 => "no drift".into(),
                count => format!("drifted ({count})"),
            };
        }
        cell(project.result.as_str())
    }

    /// For `$GITHUB_STEP_SUMMARY`: a table of every project, then each failure with Pulumi's error.
    pub(crate) fn markdown(&self) -> String {
        let mut text = format!("## {}\n\n", self.title());
        let succeeded = self.projects.iter().filter(|p| p.result == SUCCEEDED).count();
        let not_run = self.projects.iter().filter(|p| p.result == MergedResult::NotRun).count();
        let _ = write!(
            text,
            "{} of {} reported projects succeeded, {} failed",
            succeeded,
            self.projects.len() - not_run,
            self.failed()
        );
        if self.operation == Some(Operation::Drift) {
            let _ = write!(text, "; {} drifted", self.drifted().len());
        }
        if not_run > 0 {
            let _ = write!(text, "; {not_run} did not run");
        }
        text.push_str(".\n\n");
        if self.projects.is_empty() {
            text.push_str("No job left a report: every project job was skipped or cancelled before it ran.\n");
            return text;
        }
        text.push_str("| Project | Result | Duration |\n|---|---|---|\n");
        for project in self.ordered() {
            let _ =
                writeln!(text, "| `{}` | {} | {:.1} s |", project.project, self.result_cell(project), project.duration);
        }
        for project in self.drifted() {
            let _ = writeln!(text, "\n### `{}` drifted\n", project.project);
            for resource in &project.resources {
                let _ = writeln!(
                    text,
                    "- {} `{}` (`{}`)",
                    resource.kind,
                    cell(&resource.name),
                    cell(&resource.resource_type)
                );
            }
        }
        for project in self.ordered().into_iter().filter(|p| p.result == FAILED) {
            let _ = writeln!(text, "\n### `{}` failed\n", project.project);
            let failure = project.failure.clone().unwrap_or(MergedFailure {
                summary: project.reason.clone().unwrap_or_else(|| "no error recorded".into()),
                diagnostics: Vec::new(),
                hint: None,
            });
            if let Some(hint) = &failure.hint {
                let _ = writeln!(text, "Hint: {hint}\n");
            }
            text.push_str("```\n");
            let body = if failure.diagnostics.is_empty() { vec![failure.summary] } else { failure.diagnostics };
            for line in body {
                let _ = writeln!(text, "{}", line.replace("```", "'''"));
            }
            text.push_str("```\n");
        }
        text
    }

    /// For GitLab's test report: one test case per project.
    pub(crate) fn junit(&self) -> Result<String, MergeError> {
        let name = self.title();
        let mut suite = TestSuite::new(name.as_str());
        for project in self.ordered() {
            let drifted = self.operation == Some(Operation::Drift) && !project.resources.is_empty();
            let status = match project.result {
                SUCCEEDED if drifted => {
                    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    status
                        .set_message(format!("{} drifted", crate::text::counted(project.resources.len(), "resource")));
                    let lines: Vec<String> = project.resources.iter().map(MergedResource::line).collect();
                    status.set_description(lines.join("\n"));
                    status
                }
                SUCCEEDED => TestCaseStatus::success(),
                MergedResult::Reported(ProjectResult::Failed | ProjectResult::NotDeployed) => {
                    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    let failure = project.failure.clone();
                    let summary = failure
                        .as_ref()
                        .map(|f| f.summary.clone())
                        .or_else(|| project.reason.clone())
                        .unwrap_or_else(|| project.result.as_str().to_string());
                    status.set_message(summary.as_str());
                    if let Some(failure) = failure.filter(|f| !f.diagnostics.is_empty()) {
                        status.set_description(failure.diagnostics.join("\n").replace('\t', "    "));
                    }
                    status
                }
                MergedResult::Reported(
                    ProjectResult::Skipped | ProjectResult::Cancelled | ProjectResult::Unchanged,
                )
                | MergedResult::NotRun => {
                    let mut status = TestCaseStatus::skipped();
                    let message = project.reason.clone().unwrap_or_else(|| project.result.as_str().to_string());
                    status.set_message(message.as_str());
                    status
                }
            };
            let mut case = TestCase::new(project.project.as_str(), status);
            case.set_classname(format!("{}.{}", self.provider, self.stack));
            case.set_time(std::time::Duration::from_secs_f64(project.duration.max(0.0)));
            suite.add_test_case(case);
        }
        let mut junit = Report::new(name.as_str());
        junit.add_test_suite(suite);
        junit.to_string().map_err(MergeError::Junit)
    }
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    const NETWORK: &str = r#"{"provider":"local","stack":"dev","operation":"up","projects":[
        {"project":"infrastructure/network","result":"succeeded","started":10.0,"duration":2.5}]}"#;
    const CLUSTER: &str = r#"{"provider":"local","stack":"dev","operation":"up","projects":[
        {"project":"infrastructure/cluster","result":"failed","started":13.0,"duration":1.0,
         "failure":{"summary":"error: boom","diagnostics":["error: boom | twice"],
                    "hint":"start the local control plane: `bash scripts/local-cluster.sh start`"}}]}"#;

    fn merged() -> MergedReport {
        let mut merged = MergedReport::default();
        merged.add("cluster.json", CLUSTER).unwrap();
        merged.add("network.json", NETWORK).unwrap();
        merged.expect(&["infrastructure/network".into(), "kubernetes/certmgr".into()]);
        merged
    }

    #[test]
    fn markdown_names_every_project_in_start_order_and_the_failure_with_its_error() {
        insta::assert_snapshot!(merged().markdown());
    }

    #[test]
    fn junit_has_one_case_per_project_and_the_failure_message() {
        let xml = merged().junit().unwrap();
        assert!(
            xml.contains("tests=\"3\"") && xml.contains("failures=\"1\"") && xml.contains("skipped=\"1\""),
            "{xml}"
        );
        assert!(xml.contains("message=\"error: boom\""), "{xml}");
    }

    const DRIFTED: &str = r#"{"provider":"local","stack":"dev","operation":"drift","projects":[
        {"project":"infrastructure/network","result":"succeeded","started":1.0,"duration":0.5,
         "resources":[{"kind":"update","type":"tokenauth:index:File","name":"marker","urn":"u","properties":["content"]}]}]}"#;
    const IN_SYNC: &str = r#"{"provider":"local","stack":"dev","operation":"drift","projects":[
        {"project":"infrastructure/cluster","result":"succeeded","started":2.0,"duration":0.5,"resources":[]}]}"#;

    #[test]
    fn drift_is_named_per_project_and_counted_only_on_drift_reports() {
        let mut merged = MergedReport::default();
        merged.add("network.json", DRIFTED).unwrap();
        merged.add("cluster.json", IN_SYNC).unwrap();
        insta::assert_snapshot!(merged.markdown());
        let names: Vec<&str> = merged.drifted().iter().map(|p| p.project.as_str()).collect();
        assert_eq!(names, ["infrastructure/network"]);
        let xml = merged.junit().unwrap();
        assert!(xml.contains("failures=\"1\"") && xml.contains("message=\"1 resource drifted\""), "{xml}");
        // The same resources on an `up` report are changes made, not drift.
        let mut up = MergedReport::default();
        up.add("network.json", &DRIFTED.replace("\"drift\"", "\"up\"")).unwrap();
        assert!(up.drifted().is_empty());
        assert!(up.junit().unwrap().contains("failures=\"0\""));
    }

    #[test]
    fn a_file_that_is_no_report_is_named() {
        let error = MergedReport::default().add("x.json", "{}").unwrap_err();
        assert!(error.to_string().contains("`x.json`"), "{error}");
    }

    /// Every result a run writes is read back as itself; a result no runner writes makes the
    /// file no runner report, instead of a row the summary cannot place.
    #[test]
    fn every_result_a_run_writes_is_read_back_and_an_unknown_one_is_refused() {
        use crate::execute::ProjectResult;
        for result in ProjectResult::ALL {
            let written = serde_json::to_string(&result).unwrap();
            let text = format!(
                r#"{{"provider":"local","stack":"dev","operation":"up","projects":[{{"project":"p","result":{written}}}]}}"#
            );
            let mut merged = MergedReport::default();
            merged.add("r.json", &text).unwrap();
            assert_eq!(merged.projects[0].result, MergedResult::Reported(result));
            assert_eq!(merged.projects[0].result.as_str(), result.as_str());
        }
        let unknown =
            r#"{"provider":"local","stack":"dev","operation":"up","projects":[{"project":"p","result":"exploded"}]}"#;
        assert!(matches!(MergedReport::default().add("r.json", unknown), Err(MergeError::NotAReport { .. })));
        let operation = r#"{"provider":"local","stack":"dev","operation":"launch","projects":[]}"#;
        assert!(matches!(MergedReport::default().add("r.json", operation), Err(MergeError::NotAReport { .. })));
    }
}
