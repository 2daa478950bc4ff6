use super::*;

fn change(kind: ChangeKind, name: &str) -> ResourceChange {
    ResourceChange {
        kind,
        name: name.into(),
        resource_type: "aws:s3/bucket:Bucket".into(),
        urn: format!("urn:pulumi:dev::p::aws:s3/bucket:Bucket::{name}"),
        properties: Vec::new(),
    }
}

fn report() -> ChangeReport {
    ChangeReport {
        operation: Operation::Preview,
        provider: "aws".into(),
        stack: "dev".into(),
        projects: vec![
            ProjectChanges {
                project: "infra/vpc".into(),
                result: ProjectResult::Succeeded,
                resources: vec![change(ChangeKind::Delete, "old"), change(ChangeKind::Create, "new")],
                unnamed_changes: 0,
                error: None,
                note: None,
            },
            ProjectChanges {
                project: "infra/eks".into(),
                result: ProjectResult::Succeeded,
                resources: Vec::new(),
                unnamed_changes: 0,
                error: None,
                note: None,
            },
            ProjectChanges {
                project: "apps/web".into(),
                result: ProjectResult::Failed,
                resources: Vec::new(),
                unnamed_changes: 0,
                error: Some("error: boom ```".into()),
                note: None,
            },
        ],
    }
}

#[test]
fn markdown_puts_failures_and_deletes_first_and_collapses_unchanged_projects() {
    let text = report().markdown();
    let failed = text.find("❌ `apps/web` failed").unwrap();
    let delete = text.find("**DELETE** ⚠️ `old`").unwrap();
    let create = text.find("create `new`").unwrap();
    assert!(failed < delete && delete < create, "{text}");
    assert!(text.contains("No changes (1): `infra/eks`"), "{text}");
    assert!(text.contains("````\nerror: boom ```\n````"), "{text}");
}

#[test]
fn markdown_says_which_preview_read_mock_outputs_and_which_project_was_unchanged() {
    let mut report = report();
    report.projects[0].note = Some("with mock outputs of infra/net (never deployed)".into());
    report.projects[1].result = ProjectResult::Unchanged;
    report.projects[1].note = Some("outputs of infra/vpc are the same".into());
    let text = report.markdown();
    assert!(text.contains("> succeeded: with mock outputs of infra/net (never deployed)\n"), "{text}");
    assert!(text.contains("`infra/eks` (unchanged outputs of infra/vpc are the same)"), "{text}");
}

#[test]
fn terminal_names_what_changes() {
    let text = report().terminal();
    assert!(text.starts_with("what changes:\n  infra/vpc (1 to delete, 1 to create)\n"), "{text}");
    assert!(text.contains("-  delete   aws:s3/bucket:Bucket  old"), "{text}");
}

#[test]
fn an_empty_selection_says_so() {
    let report = ChangeReport { projects: Vec::new(), ..report() };
    assert!(report.markdown().ends_with("No project was selected: nothing to preview.\n"));
    assert_eq!(report.terminal(), "no changes in 0 projects\n");
}

#[test]
fn drift_is_worded_as_drift() {
    let report = ChangeReport { operation: Operation::Drift, ..report() };
    assert!(report.terminal().starts_with("what drifted:\n"), "{}", report.terminal());
    assert!(
        report.markdown().contains("1 of 3 projects drifted in 2 resources; 1 did not succeed."),
        "{}",
        report.markdown()
    );
    assert!(report.markdown().contains("No drift (1): `infra/eks`"), "{}", report.markdown());
}

#[test]
fn a_run_without_changes_says_so_once() {
    let mut report = report();
    report.projects.retain(|project| project.project == "infra/eks");
    let text = report.markdown();
    assert!(text.contains("No changes in 1 project."), "{text}");
    assert!(!text.contains("0 of "), "{text}");
}

#[test]
fn inline_code_survives_backticks_and_pipes() {
    assert_eq!(code("a`b"), "``a`b``");
    assert_eq!(code("`x"), "`` `x ``");
    assert_eq!(code("a|b"), "`a\\|b`");
}
