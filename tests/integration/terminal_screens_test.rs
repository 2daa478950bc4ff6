//! The screens a person sees at 60, 120 and 200 columns (tmux): no row wraps, every finished
//! row keeps its result word, and `status` fits the terminal. Each final screen is a snapshot
//! per width: the projects form a chain and runs use `-j 1`, so the rows come in one order
//! whatever the history expects; times, durations, run ids and paths are redacted.

use crate::snapshot::Redactions;
use crate::support::Workspace;
use crate::tmux_session::TmuxSession;

const PROVIDER: &str = "[[project]]\npath = \"infrastructure/network\"\nphase = \"infrastructure\"\n\n\
                        [[project]]\npath = \"kubernetes/applications/sirius\"\nphase = \"kubernetes\"\ndepends_on = [\"kubernetes/certmgr\"]\n\n\
                        [[project]]\npath = \"kubernetes/certmgr\"\nphase = \"kubernetes\"\ndepends_on = [\"infrastructure/network\"]\n";
const PROJECTS: &[&str] = &["infrastructure/network", "kubernetes/applications/sirius", "kubernetes/certmgr"];
const WIDTHS: [u16; 3] = [60, 120, 200];

fn workspace(script: &str) -> Workspace {
    let workspace = Workspace::with_fake_pulumi(PROVIDER, PROJECTS, script);
    workspace.env_file("PULUMI_STACK=dev\n");
    workspace
}

/// The screen after `runner ARGS` ran in a window `columns` wide, up to its `exit=` line.
fn screen(workspace: &Workspace, columns: u16, args: &str) -> String {
    let runner = assert_cmd::cargo::cargo_bin("runner");
    let script = format!("{} {args}; echo \"exit=$?\"; sleep 60", runner.display());
    let terminal = TmuxSession::start(workspace, columns, 50, &script);
    let screen = terminal.screen_when(|shown| shown.contains("exit="));
    terminal.close();
    assert!(screen.contains("exit="), "{screen}");
    screen
}

/// The final screen, redacted, as the snapshot `name_COLUMNS`: what a person reads, whole.
#[track_caller]
fn assert_screen(name: &str, workspace: &Workspace, columns: u16, screen: &str) {
    // Where the terminal wraps a log path depends on the pid in its run id: joined again.
    let log_path = regex::Regex::new(r"full log: \.runner/logs/[^ ]*?\.log").unwrap();
    let screen = log_path.replace_all(screen, |found: &regex::Captures| found[0].replace('\n', ""));
    // A run id cut in the middle to fit a column (`(20…905Z-30400)`) still holds the pid.
    let redactions = Redactions::of(workspace).status_table().with(r"\(\d*…[\dTZ-]*\)", "([RUN_ID])");
    let shown: Vec<String> = screen.lines().map(|line| redactions.apply(line).trim_end().to_string()).collect();
    let text = shown.join("\n").trim_end().to_string();
    let mut settings = insta::Settings::clone_current();
    settings.set_description(format!("tmux window {columns} columns wide"));
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(format!("{name}_{columns}"), text));
}

/// Every line that starts with a result mark is a whole row: it names a project and a result
/// word, and the line after it is no continuation of it.
#[track_caller]
fn assert_whole_rows(screen: &str, columns: u16) {
    let lines: Vec<&str> = screen.lines().collect();
    for (index, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix(['✓', '✗', '-', '!', '∅']).and_then(|rest| rest.strip_prefix(' '))
        else {
            continue;
        };
        if !PROJECTS.iter().any(|project| rest.starts_with(project) || rest.contains('…')) {
            continue;
        }
        assert!(
            ["succeeded", "failed", "skipped", "cancelled", "not deployed"].iter().any(|word| rest.contains(word)),
            "a row without its result word at {columns} columns:\n{screen}"
        );
        assert!(
            console::measure_text_width(line) <= usize::from(columns) && index + 1 < lines.len(),
            "a row wider than the window at {columns} columns:\n{screen}"
        );
    }
}

#[test]
fn ext_up_with_a_long_failure_keeps_every_result_word_at_every_width() {
    let failure = "error: creating the certificate manager: the webhook did not answer in time, and the \
                   deployment was rolled back after the readiness probe failed three times in a row";
    let script = serde_json::json!({"projects": {"kubernetes-certmgr": {"fail": failure, "fail_on": ["up"]}}});
    for columns in WIDTHS {
        let workspace = workspace(&script.to_string());
        let shown = screen(&workspace, columns, "up --provider demo --stack dev -j 1");
        assert!(shown.contains("exit=1"), "{shown}");
        assert!(shown.contains("failed"), "{shown}");
        if columns >= 120 {
            // Paths as the footer's `logs:` shows them: relative to where the user stands.
            assert!(shown.contains("full log: .runner/logs/"), "{shown}");
        }
        assert_whole_rows(&shown, columns);
        assert_screen("up_failure", &workspace, columns, &shown);
    }
}

#[test]
fn ext_up_screen_at_every_width() {
    for columns in WIDTHS {
        let workspace = workspace("{}");
        let shown = screen(&workspace, columns, "up --provider demo --stack dev -j 1");
        assert!(shown.contains("exit=0"), "{shown}");
        assert_whole_rows(&shown, columns);
        assert_screen("up", &workspace, columns, &shown);
    }
}

#[test]
fn ext_status_fits_the_terminal() {
    let workspace = workspace("{}");
    workspace.run(&["up", "--provider", "demo", "--stack", "dev", "--non-interactive"]).expect_code(0);
    workspace.run(&["drift", "--provider", "demo", "--stack", "dev", "--non-interactive"]);
    for columns in WIDTHS {
        let shown = screen(&workspace, columns, "status --provider demo --stack dev");
        let rows: Vec<&str> = shown.lines().take_while(|line| !line.starts_with("exit=")).collect();
        assert_eq!(rows.len(), 1 + PROJECTS.len(), "a row wrapped at {columns} columns:\n{shown}");
        assert!(rows[1..].iter().all(|row| PROJECTS.iter().any(|p| row.starts_with(p))), "{shown}");
        assert_screen("status", &workspace, columns, &shown);
    }
}

#[test]
fn ext_preview_and_drift_rows_are_whole_at_every_width_and_preview_speaks_pulumis_words() {
    let workspace = workspace("{}");
    for columns in WIDTHS {
        let preview = screen(&workspace, columns, "preview --provider demo --stack dev -j 1");
        assert!(preview.contains("exit=0"), "{preview}");
        assert_whole_rows(&preview, columns);
        assert!(preview.contains("to create"), "Pulumi's preview words at {columns}:\n{preview}");
        assert!(!preview.contains(" created"), "{preview}");
        assert_screen("preview", &workspace, columns, &preview);
    }
    workspace.run(&["up", "--provider", "demo", "--stack", "dev", "--non-interactive"]).expect_code(0);
    for columns in WIDTHS {
        let drift = screen(&workspace, columns, "drift --provider demo --stack dev -j 1");
        assert!(drift.contains("exit="), "{drift}");
        assert_whole_rows(&drift, columns);
        assert!(drift.matches("succeeded").count() >= PROJECTS.len(), "{drift}");
        assert_screen("drift", &workspace, columns, &drift);
    }
}

#[test]
fn ext_ctrl_c_leaves_whole_rows_at_every_width() {
    let runner = assert_cmd::cargo::cargo_bin("runner");
    for columns in WIDTHS {
        let workspace = workspace(r#"{"default": {"sleep": 30, "cancel_sleep": 0.2}}"#);
        let script = format!("{} up --provider demo --stack dev -j 1; echo \"exit=$?\"; sleep 60", runner.display());
        let terminal = TmuxSession::start(&workspace, columns, 50, &script);
        terminal.screen_when(|shown| shown.contains("infrastructure/network"));
        std::thread::sleep(std::time::Duration::from_millis(800));
        terminal.send_keys("C-c");
        let after = terminal.screen_when(|shown| shown.contains("exit="));
        terminal.close();
        assert!(after.contains("exit=130"), "{after}");
        assert!(after.contains("cancelled"), "{after}");
        assert_whole_rows(&after, columns);
        assert_screen("ctrl_c", &workspace, columns, &after);
    }
}

/// Piped, the table names what each operation counts: `refresh` and `drift` read every resource
/// (stack references included), so their column is `in sync`, not `up`'s `unchanged`.
#[test]
fn the_piped_tables_say_what_they_count() {
    let workspace = workspace("{}");
    let run = |operation: &str| workspace.std_command(&[operation, "--provider", "demo", "--stack", "dev", "-j", "1"]);
    let redactions = || Redactions::of(&workspace).with(r"(?m)^\d{2}:\d{2}:\d{2} ", "[CLOCK] ");
    crate::snapshot::runner_snapshot!("piped_up", redactions(), run("up"));
    crate::snapshot::runner_snapshot!("piped_refresh", redactions(), run("refresh"));
}
