//! `src/` writes to the console only through `stdout_line!`/`stderr_line!` and their `_text`
//! forms: the std macros panic when a pipe closes or a terminal hangs up.

use std::path::Path;

use crate::module_layers_test::rust_files;

const PANICKING: &[&str] = &["println!(", "eprintln!(", "print!(", "eprint!("];

#[test]
fn src_uses_no_console_macro_that_panics() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for file in rust_files(&src) {
        let text = std::fs::read_to_string(&file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            let uses = PANICKING.iter().any(|name| {
                code.match_indices(name).any(|(at, _)| {
                    let before = code[..at].chars().next_back();
                    !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == 'e')
                })
            });
            if uses {
                found.push(format!("{}:{}: {}", file.strip_prefix(&src).unwrap().display(), number + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "use `crate::text::stdout_line!`/`crate::text::stderr_line!` instead:\n{}",
        found.join("\n")
    );
}
