//! In a real terminal, finished projects are marked in colour, and `NO_COLOR` turns it off.

use crate::support::Workspace;

const PROVIDER: &str = "[[project]]\npath = \"a\"\nphase = \"infrastructure\"\n";

/// The transcript of `runner up` in a pseudo-terminal, with the test double as `pulumi`.
fn up_in_a_terminal(no_color: bool) -> String {
    let workspace = Workspace::with_fake_pulumi(PROVIDER, &["a"], "{}");
    let mut command =
        workspace.in_a_terminal("[]", &["up", "--provider", "demo", "--stack", "dev", "--non-interactive"]);
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
