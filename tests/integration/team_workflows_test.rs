//! Affected projects, the preview report, drift and outputs, against the real `pulumi` with the
//! test provider's `tokenauth:index:File` (a resource whose real state is a file on disk).

use std::path::Path;
use std::process::Command;

use crate::snapshot::{runner_snapshot, Redactions};
use crate::support::{real_pulumi_dir, tokenauth_plugin_dir, Workspace};

const PROVIDER: &str = r#"
description = "files"
[[project]]
path = "store"
phase = "infrastructure"
[[project]]
path = "app"
phase = "infrastructure"
depends_on = ["store"]
show_outputs = ["url"]
[[project]]
path = "other"
phase = "infrastructure"
"#;

fn file_resource(name: &str, path: &Path, content: &str) -> String {
    format!(
        "  {name}:\n    type: tokenauth:index:File\n    properties:\n      path: {}\n      content: {content}\n",
        path.display()
    )
}

fn store_program(workspace: &Workspace, resources: &[(&str, &str, &str)]) {
    let mut text = String::from("name: store\nruntime: yaml\nresources:\n");
    for (name, file, content) in resources {
        text.push_str(&file_resource(name, &workspace.path(&format!("files/{file}")), content));
    }
    text.push_str("outputs:\n  token:\n    fn::secret: s3cr3t-value\n  plain: visible\n");
    workspace.file("projects/store/Pulumi.yaml", text);
}

fn real_files_workspace() -> Workspace {
    let mut workspace = Workspace::new();
    std::fs::create_dir_all(workspace.path("files")).unwrap();
    workspace.provider("files", PROVIDER);
    workspace.file(
        "projects/app/Pulumi.yaml",
        "name: app\nruntime: yaml\noutputs:\n  url: http://app.test/\n  hidden: not shown\n",
    );
    workspace.file("projects/other/Pulumi.yaml", "name: other\nruntime: yaml\noutputs:\n  n: 1\n");
    store_program(
        &workspace,
        &[("keep", "keep", "same"), ("edited", "edited", "v1"), ("moved", "moved-a", "m"), ("removed", "removed", "r")],
    );
    let backend = workspace.path(".state");
    workspace.env_file(&format!(
        "PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=team-flows-passphrase\nPULUMI_BACKEND_URL=file://{}\n",
        backend.display()
    ));
    workspace.stack_file("dev", "config: {}\n");
    let home = workspace.path("home");
    workspace
        .set_env(
            "PATH",
            format!(
                "{}:{}:{}",
                tokenauth_plugin_dir().display(),
                real_pulumi_dir().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .set_env("HOME", home.display().to_string());
    workspace
}

fn git(workspace: &Workspace, args: &[&str]) {
    let output = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(workspace.root())
        .env("HOME", workspace.path("home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

fn html_of(markdown: &str) -> String {
    let parser = pulldown_cmark::Parser::new_ext(markdown, pulldown_cmark::Options::ENABLE_TABLES);
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, parser);
    html
}

/// A piped run's whole output. Its lines' clock times, the commit `--affected` compares with and
/// the padding of the table's right-aligned durations differ from run to run.
fn piped_run(workspace: &Workspace) -> Redactions {
    Redactions::of(workspace)
        .with(r"^\d{2}:\d{2}:\d{2} ", "[CLOCK] ")
        .with(r"\(merge base [0-9a-f]+\)", "(merge base [COMMIT])")
        .with(r" {2,}\[DURATION\]", "      [DURATION]")
}

#[track_caller]
fn position(text: &str, needle: &str) -> usize {
    text.find(needle).unwrap_or_else(|| panic!("{needle:?} missing from:\n{text}"))
}

#[test]
fn ext_preview_report_drift_outputs_and_affected_against_the_real_pulumi() {
    let workspace = real_files_workspace();
    std::fs::write(workspace.path(".gitignore"), ".runner/\n.state/\nhome/\nfiles/\nreport*.md\nsummary.md\n").unwrap();
    git(&workspace, &["init", "-q", "-b", "main"]);
    git(&workspace, &["add", "-A"]);
    git(&workspace, &["commit", "-q", "-m", "first"]);

    let redactions = Redactions::of(&workspace);
    // Before anything is deployed, `outputs` says so, and fails: a script reading the outputs of
    // the wrong stack must not go on with nothing.
    runner_snapshot!("outputs_before_up", redactions, workspace.std_command(&["outputs", "--provider", "files"]));

    // `up`, then the outputs a provider marks worth showing. `store` and `other` run at once:
    // the order of their lines is the scheduler's, so these are checked line by line.
    let up = workspace.run(&["up", "--provider", "files", "--non-interactive"]);
    up.expect_code(0);
    assert!(up.stdout().contains("outputs:\n  app  url = http://app.test/\n"), "{}", up.stdout());
    assert!(!up.stdout().contains("not shown"), "{}", up.stdout());
    assert_eq!(std::fs::read_to_string(workspace.path("files/edited")).unwrap(), "v1");
    // The first run wrote the encryption salt into the shared stack file: commit it, as a user would.
    git(&workspace, &["add", "-A"]);
    git(&workspace, &["commit", "-q", "-m", "salt"]);

    // `outputs`: every project, secrets masked unless asked for.
    let outputs = workspace.run(&["outputs", "--provider", "files", "--json"]);
    outputs.expect_code(0);
    let json: serde_json::Value = serde_json::from_str(&outputs.stdout()).unwrap();
    assert_eq!(json["store"]["token"], "[secret]", "{json}");
    assert_eq!(json["store"]["plain"], "visible");
    assert_eq!(json["app"]["url"], "http://app.test/");
    assert_eq!(json["other"]["n"], 1);
    assert!(!outputs.stdout().contains("s3cr3t-value"));
    let shown = ["outputs", "--provider", "files", "--only", "store", "--show-secrets"];
    let shown = runner_snapshot!("outputs_with_secrets", redactions, workspace.std_command(&shown));
    let shown_stdout = String::from_utf8_lossy(&shown.stdout);
    assert!(!shown_stdout.contains("app"), "{shown_stdout}");

    // A change that creates, updates, replaces and deletes; only `store` and its dependent run.
    store_program(
        &workspace,
        &[("keep", "keep", "same"), ("edited", "edited", "v2"), ("moved", "moved-b", "m"), ("added", "added", "a")],
    );
    let summary_file = workspace.path("summary.md");
    std::fs::write(&summary_file, "earlier step\n").unwrap();
    let preview =
        ["preview", "--provider", "files", "--non-interactive", "--affected", "HEAD", "--report", "markdown=report.md"];
    // Why each project is affected, and the terminal summary of what changes, deletes first.
    let preview = runner_snapshot!(
        "preview_affected",
        piped_run(&workspace),
        workspace.std_command(&preview).env("GITHUB_STEP_SUMMARY", &summary_file)
    );
    let stdout = String::from_utf8_lossy(&preview.stdout);
    assert!(!stdout.contains("other"), "{stdout}");

    // The markdown report, rendered as GitHub would.
    let markdown = std::fs::read_to_string(workspace.path("report.md")).unwrap();
    let html = html_of(&markdown);
    assert!(html.contains("<table>") && html.contains(r#"<th style="text-align: right">delete</th>"#), "{html}");
    assert_eq!(html.matches(r#"<td style="text-align: right">1</td>"#).count(), 4, "{html}");
    assert!(html.contains("<p>1 of 2 projects change 4 resources.</p>"), "{html}");
    let deleted =
        position(&html, "<strong>DELETE</strong> ⚠️ <code>removed</code> (<code>tokenauth:index:File</code>)");
    let replaced = position(&html, "<strong>REPLACE</strong> ⚠️ <code>moved</code>");
    let updated = position(&html, "update <code>edited</code>");
    let created = position(&html, "create <code>added</code>");
    assert!(deleted < replaced && replaced < updated && updated < created, "{html}");
    assert!(html.contains("No changes (1): <code>app</code>"), "{html}");
    // Appended to the step summary, after what was there.
    let step = std::fs::read_to_string(&summary_file).unwrap();
    assert!(step.starts_with("earlier step\n") && step.ends_with(&markdown), "{step}");

    // A CI gate: any change is exit code 3.
    let gate = ["preview", "--provider", "files", "--non-interactive", "--only", "store", "--expect-no-changes"];
    runner_snapshot!("expect_no_changes", piped_run(&workspace), workspace.std_command(&gate));

    // Apply it, then make drift outside Pulumi: one file edited, one removed.
    workspace.run(&["up", "--provider", "files", "--non-interactive"]).expect_code(0);
    // `drift` runs `store` and `other` at once, as `up` does: checked line by line.
    let clean = workspace.run(&["drift", "--provider", "files", "--non-interactive"]);
    clean.expect_code(0);
    assert!(clean.stdout().contains("no drift in 3 projects"), "{}", clean.stdout());
    std::fs::write(workspace.path("files/edited"), "changed by hand").unwrap();
    std::fs::remove_file(workspace.path("files/added")).unwrap();
    let drift = workspace.run(&[
        "drift",
        "--provider",
        "files",
        "--non-interactive",
        "--report",
        "markdown=report-drift.md",
        "--report",
        "json=report-drift.json",
    ]);
    drift.expect_code(3).expect_stderr_contains("drift found in 1 of 3 projects: store");
    assert!(drift.stdout().contains("what drifted:\n  store (1 to delete, 1 to update)\n"), "{}", drift.stdout());
    let drift_html = html_of(&std::fs::read_to_string(workspace.path("report-drift.md")).unwrap());
    assert!(drift_html.contains("<strong>DELETE</strong> ⚠️ <code>added</code>"), "{drift_html}");
    assert!(drift_html.contains("update <code>edited</code>"), "{drift_html}");
    assert!(drift_html.contains("No drift (2)"), "{drift_html}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(workspace.path("report-drift.json")).unwrap()).unwrap();
    assert_eq!(json["operation"], "drift");
    assert_eq!(json["changes_found"], true);
    let store = json["projects"].as_array().unwrap().iter().find(|p| p["project"] == "store").unwrap();
    let resources: Vec<String> = store["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{} {}", r["kind"].as_str().unwrap(), r["name"].as_str().unwrap()))
        .collect();
    assert_eq!(resources, ["delete added", "update edited"]);
    // Drift changes nothing: the file is still as edited.
    assert_eq!(std::fs::read_to_string(workspace.path("files/edited")).unwrap(), "changed by hand");

    // History and status remember it.
    runner_snapshot!("history", Redactions::of(&workspace).history_table(), workspace.std_command(&["history"]));
    let status = ["status", "--provider", "files"];
    runner_snapshot!("status_drifted", Redactions::of(&workspace).status_table(), workspace.std_command(&status));

    // `refresh` accepts the real state; drift is gone.
    workspace.run(&["refresh", "--provider", "files", "--non-interactive"]).expect_code(0);
    workspace.run(&["drift", "--provider", "files", "--non-interactive"]).expect_code(0);
    runner_snapshot!("status_refreshed", Redactions::of(&workspace).status_table(), workspace.std_command(&status));
}

/// The CI examples of the manual are copied as they are: they must at least be valid YAML.
#[test]
fn the_manuals_ci_examples_are_valid_yaml() {
    let page = std::fs::read_to_string(crate::support::repository().join("docs/src/ci.md")).unwrap();
    let section = &page[page.find("## In CI").expect("an `In CI` section")..];
    let blocks: Vec<&str> =
        section.split("```yaml\n").skip(1).map(|block| block.split("```").next().unwrap()).collect();
    assert!(blocks.len() >= 3, "{blocks:?}");
    for block in blocks {
        let parsed: serde_norway::Value = serde_norway::from_str(block).unwrap_or_else(|err| panic!("{err}\n{block}"));
        assert!(parsed.is_mapping(), "{block}");
    }
    assert!(section.contains("runner preview") && section.contains("--affected") && section.contains("runner drift"));
}

/// A failed project is in the markdown report with Pulumi's own error.
#[test]
fn ext_the_markdown_report_shows_a_failure_with_the_real_error() {
    let workspace = real_files_workspace();
    workspace
        .file("projects/other/Pulumi.yaml", "name: other\nruntime: yaml\noutputs:\n  n: ${undefinedThing.value}\n");
    let preview =
        workspace.run(&["preview", "--provider", "files", "--non-interactive", "--report", "markdown=report.md"]);
    preview.expect_code(1);
    let markdown = std::fs::read_to_string(workspace.path("report.md")).unwrap();
    let html = html_of(&markdown);
    assert!(html.contains("❌ <code>other</code> failed"), "{html}");
    assert!(html.contains("undefinedThing"), "{html}");
    // The two projects that ran name their changes: everything is created.
    assert!(html.contains("create <code>edited</code>"), "{html}");
}
