//! Clap rewraps free text at the terminal's width and drops the indentation of the lines it
//! breaks, which tears an example command in two. So every `after_help` is written to fit the
//! narrowest terminal we support (80 columns, less clap's margin), and every line of it must come out of `--help` unbroken.

use clap::CommandFactory;

use super::Arguments;

/// Each command of the tree, its subcommands' included, with its path for the message.
fn every_command() -> Vec<(String, clap::Command)> {
    fn walk(prefix: &str, command: &clap::Command, into: &mut Vec<(String, clap::Command)>) {
        let name = format!("{prefix} {}", command.get_name()).trim().to_string();
        into.push((name.clone(), command.clone()));
        for sub in command.get_subcommands() {
            walk(&name, sub, into);
        }
    }
    let mut all = Vec::new();
    walk("", &Arguments::command(), &mut all);
    all
}

#[test]
fn every_line_after_the_options_survives_80_and_100_columns() {
    let mut checked = 0;
    for (name, command) in every_command() {
        let Some(after) = command.get_after_help().map(|text| text.to_string()) else { continue };
        for width in [80, 100] {
            let help = command.clone().term_width(width).render_help().to_string();
            let lines: Vec<&str> = help.lines().map(str::trim_end).collect();
            for line in after.lines().map(str::trim_end).filter(|line| !line.is_empty()) {
                assert!(
                    line.chars().count() <= 78 && lines.contains(&line),
                    "`{name} --help` at {width} columns breaks the line {line:?}:\n{help}"
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 4, "the sweep found the commands with examples ({checked})");
}
