//! In a real terminal, finished projects are marked in colour, and `NO_COLOR` turns it off.

use std::process::Command;

use crate::support::{fake_pulumi_dir, path_with, repository, Workspace};

const PROVIDER: &str = "[[project]]\npath = \"a\"\nphase = \"infrastructure\"\n";

/// The transcript of `runner up` in a pseudo-terminal, with the test double as `pulumi`.
fn up_in_a_terminal(no_color: bool) -> String {
    let workspace = Workspace::with_fake_pulumi(PROVIDER, &["a"], "{}");
    workspace.file("pty-script.json", "[]");
    let mut command = Command::new("python3");
    command
        .arg(repository().join("tests/support/drive-pty.py"))
        .arg(workspace.path("pty-script.json"))
        .arg("--")
        .arg(assert_cmd::cargo::cargo_bin("runner"))
        .args(["up", "--provider", "demo", "--stack", "dev", "--non-interactive"])
        .current_dir(workspace.root())
        .env("PATH", path_with(&fake_pulumi_dir()))
        .env("FAKE_PULUMI_SCRIPT", workspace.path("fake-script.json"))
        .env("FAKE_PULUMI_STATE", workspace.path("fake-state"))
        .env("PULUMI_CONFIG_PASSPHRASE", "fake-passphrase")
        .env("HOME", workspace.path("home"))
        .env("TERM", "xterm")
        .env_remove("CI")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("PULUMI_BACKEND_URL");
    if no_color {
        command.env("NO_COLOR", "1");
    }
    let output = command.output().unwrap();
    let transcript = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(0), "{transcript}");
    transcript
}

#[test]
fn a_terminal_gets_a_green_mark_and_no_color_gets_none() {
    let coloured = up_in_a_terminal(false);
    assert!(coloured.contains("\u{1b}[32m✓\u{1b}[0m a"), "{coloured:?}");
    let plain = up_in_a_terminal(true);
    assert!(plain.contains("✓ a"), "{plain:?}");
    assert!(!plain.contains("\u{1b}[32m"), "NO_COLOR must turn colours off: {plain:?}");
}
