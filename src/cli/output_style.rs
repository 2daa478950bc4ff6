use std::io::IsTerminal;

/// How to print for whoever is reading: a person at a terminal, or a log file in CI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputStyle {
    /// stderr is a terminal: live progress lines are possible.
    pub interactive_terminal: bool,
    /// Colour is allowed: a terminal and no `NO_COLOR`.
    pub color: bool,
    /// stdout is a terminal too: what is printed there is read by a person, not a pipe.
    pub stdout_terminal: bool,
}

impl OutputStyle {
    pub fn detect() -> Self {
        let terminal = std::io::stderr().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        let dumb = std::env::var("TERM").is_ok_and(|term| term == "dumb");
        Self {
            interactive_terminal: terminal && !dumb,
            color: terminal && !no_color && !dumb,
            stdout_terminal: std::io::stdout().is_terminal(),
        }
    }
}
