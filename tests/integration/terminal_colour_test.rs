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

/// One rule for `error:` as for clap's own: bold red in a terminal, plain with `NO_COLOR`.
#[test]
fn the_runners_error_is_bold_red_like_claps_and_plain_without_colour() {
    let workspace = Workspace::with_fake_pulumi(PROVIDER, &["a"], "{}");
    let transcript = |no_color: bool| {
        let mut command = workspace.in_a_terminal("[]", &["up", "--provider", "nosuch", "--stack", "dev"]);
        if no_color {
            command.env("NO_COLOR", "1");
        }
        String::from_utf8_lossy(&command.output().unwrap().stdout).into_owned()
    };
    let coloured = transcript(false);
    assert!(coloured.contains("\u{1b}[1m\u{1b}[31merror:\u{1b}[0m"), "{coloured:?}");
    let plain = transcript(true);
    assert!(plain.contains("error: ") && !plain.contains("\u{1b}[31m"), "{plain:?}");
}
