use std::io::IsTerminal;

/// `--progress`: how a run shows its progress.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ProgressMode {
    // No doc comments: clap would print each as help and turn `--help` into its long form.
    #[default]
    Auto,
    Live,
    Plain,
}

/// How to print for whoever is reading: a person at a terminal, or a log file in CI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OutputStyle {
    /// stderr is a terminal and the progress mode draws live lines there; decided once, for
    /// every reporter. CI engines that give a step a terminal (`act`, Buildkite, Jenkins with a
    /// pty) set `CI`, and get plain lines under `auto`, as `pulumi` does.
    pub interactive_terminal: bool,
    /// Colour is allowed: a terminal and no `NO_COLOR`.
    pub color: bool,
    /// stdout is a terminal too: what is printed there is read by a person, not a pipe.
    pub stdout_terminal: bool,
    /// `CI` is set: a job whose `.runner/` the next job will not have, so `--resume` means
    /// nothing there.
    pub ci_job: bool,
}

impl OutputStyle {
    pub(crate) fn detect(progress: ProgressMode) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        let dumb = std::env::var("TERM").is_ok_and(|term| term == "dumb");
        let in_ci = std::env::var("CI").is_ok_and(|value| !value.is_empty() && value != "false" && value != "0");
        let live = match progress {
            ProgressMode::Auto => !in_ci,
            ProgressMode::Live => true,
            ProgressMode::Plain => false,
        };
        Self {
            interactive_terminal: terminal && !dumb && live,
            color: terminal && !no_color && !dumb,
            stdout_terminal: std::io::stdout().is_terminal(),
            ci_job: in_ci,
        }
    }
}
