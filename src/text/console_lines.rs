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

/// `eprintln!` that never panics.
macro_rules! stderr_line {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
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

#[cfg(test)]
mod tests {
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
