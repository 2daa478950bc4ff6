//! `src/` starts processes only through `cancel::ChildProcess`: its own process group, the run's
//! cancellation, a timeout and the exit status as the result hold for every child only if no
//! code starts one another way. And `pulumi` is looked up once, on the run's PATH
//! (`commands/pulumi_location.rs`), never on the runner's own.

use std::path::Path;

use crate::module_layers_test::rust_files;

const THE_ONE_PLACE: &str = "cancel/child_process.rs";
const ANOTHER_WAY: &[&str] = &["Command::new", "process::Command", "which::which("];

/// `file:line: code` for each line of non-test code that starts a process another way.
fn other_spawns(name: &str, text: &str) -> Vec<String> {
    if name.ends_with("_tests.rs") {
        return Vec::new();
    }
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    code.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or_default();
            ANOTHER_WAY.iter().any(|way| code.contains(way))
        })
        .map(|(number, line)| format!("{name}:{}: {}", number + 1, line.trim()))
        .collect()
}

#[test]
fn src_starts_processes_only_through_child_process() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for file in rust_files(&src) {
        let name = file.strip_prefix(&src).unwrap().display().to_string();
        if name != THE_ONE_PLACE {
            found.extend(other_spawns(&name, &std::fs::read_to_string(&file).unwrap()));
        }
    }
    assert!(found.is_empty(), "start processes with `crate::cancel::ChildProcess` instead:\n{}", found.join("\n"));
}

#[test]
fn the_rule_sees_each_other_way_and_skips_tests_and_comments() {
    let text = "let a = std::process::Command::new(\"pulumi\");\n\
                let b = tokio::process::Command::new(p);\n\
                use std::process::Command;\n\
                let p = which::which(\"pulumi\");\n\
                // Command::new in a comment\n\
                let q = which::which_in(\"pulumi\", path, cwd);\n\
                #[cfg(test)]\nmod tests { fn f() { std::process::Command::new(\"sh\"); } }\n";
    let found = other_spawns("x.rs", text);
    assert_eq!(found.iter().map(|line| &line[..6]).collect::<Vec<_>>(), ["x.rs:1", "x.rs:2", "x.rs:3", "x.rs:4"]);
    assert!(other_spawns("x_tests.rs", text).is_empty());
}
