//! A failed project is explained by the program's own error, everywhere, without colour codes.

use serde_json::Value;

use crate::support::Workspace;

#[test]
fn ext_the_programs_own_error_is_the_summary_the_diagnostics_and_the_junit_message() {
    let workspace = Workspace::with_real_pulumi();
    workspace.provider("bad", "[[project]]\npath = \"bad\"\nphase = \"infrastructure\"\n").file(
        "projects/bad/Pulumi.yaml",
        // The YAML language host reports this only on its stderr, in colour, whatever `--color` says.
        "name: bad\nruntime: yaml\nresources:\n  x:\n    type: pulumi:index:Stash\n    properties:\n      input: ${undefined.thing}\n",
    );
    let output = workspace.run(&[
        "up",
        "--provider",
        "bad",
        "--stack",
        "dev",
        "--non-interactive",
        "--verbose",
        "--report=json=reports/run.json",
        "--report=junit=reports/run.xml",
    ]);
    output.expect_code(1).expect_stderr_contains(
        "error: `bad` failed: Error: resource, variable, or config value \"undefined\" not found",
    );
    let report: Value = serde_json::from_slice(&std::fs::read(workspace.path("reports/run.json")).unwrap()).unwrap();
    let diagnostics = &report["projects"][0]["failure"]["diagnostics"];
    assert!(diagnostics[0].as_str().unwrap().contains("on Pulumi.yaml line 7"), "{report:#}");
    let junit = std::fs::read_to_string(workspace.path("reports/run.xml")).unwrap();
    assert!(
        junit.contains("message=\"Error: resource, variable, or config value &quot;undefined&quot; not found\""),
        "{junit}"
    );

    let mut coloured = Vec::new();
    if output.stdout().contains('\u{1b}') || output.stderr().contains('\u{1b}') {
        coloured.push("terminal output".to_string());
    }
    for file in workspace.listing().into_iter().filter(|f| f.starts_with(".runner/") || f.starts_with("reports/")) {
        if std::fs::read(workspace.path(&file)).unwrap().contains(&0x1b) {
            coloured.push(file);
        }
    }
    assert!(coloured.is_empty(), "ANSI escape codes in: {coloured:?}");
}
