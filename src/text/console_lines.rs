//! `println!` and `eprintln!` panic when a write fails: a closed pipe (`runner show | head -1`)
//! or a terminal that hung up while a run went on would turn a finished run into a crash. These
//! write the same text and drop what cannot be written; the run's logs and record keep it all.

/// `println!` that never panics.
macro_rules! stdout_line {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
pub(crate) use stdout_line;

/// `print!` that never panics.
macro_rules! stdout_text {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($arg)*);
    }};
}
pub(crate) use stdout_text;

/// `eprintln!` that never panics; a leading `error:` or `warning:` gets the one colour rule.
macro_rules! stderr_line {
    () => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr());
    }};
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "{}", $crate::text::labelled(&format!($($arg)*)));
    }};
}
pub(crate) use stderr_line;

/// `eprint!` that never panics.
macro_rules! stderr_text {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}
pub(crate) use stderr_text;

/// cargo's and uv's rule: a bold red `error:` and a yellow `warning:` on a terminal, plain when
/// `NO_COLOR` is set, `TERM=dumb`, or stderr is no terminal. Decided once per process.
pub(crate) fn labelled(line: &str) -> std::borrow::Cow<'_, str> {
    static COLOUR: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let colour = *COLOUR.get_or_init(|| {
        use std::io::IsTerminal;
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        let dumb = std::env::var("TERM").is_ok_and(|term| term == "dumb");
        std::io::stderr().is_terminal() && !no_color && !dumb
    });
    label_with(line, colour)
}

fn label_with(line: &str, colour: bool) -> std::borrow::Cow<'_, str> {
    if !colour {
        return line.into();
    }
    for (label, style) in [("error:", "\u{1b}[1m\u{1b}[31m"), ("warning:", "\u{1b}[33m")] {
        if let Some(rest) = line.strip_prefix(label) {
            return format!("{style}{label}\u{1b}[0m{rest}").into();
        }
    }
    line.into()
}

#[cfg(test)]
mod tests {
    #[test]
    fn error_is_bold_red_and_warning_yellow_only_with_colour() {
        assert_eq!(super::label_with("error: x", true), "\u{1b}[1m\u{1b}[31merror:\u{1b}[0m x");
        assert_eq!(super::label_with("warning: x", true), "\u{1b}[33mwarning:\u{1b}[0m x");
        assert_eq!(super::label_with("error: x", false), "error: x");
        assert_eq!(super::label_with("note: x", true), "note: x");
    }

    #[test]
    fn the_macros_take_what_the_std_ones_take() {
        let name = "runner";
        crate::text::stderr_line!();
        crate::text::stderr_line!("plain");
        crate::text::stderr_line!("{name} {}", 1);
        crate::text::stderr_text!("{name}\n");
        crate::text::stdout_text!("");
    }
}
