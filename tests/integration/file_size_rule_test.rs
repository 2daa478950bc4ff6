//! No file in `src/` grows past 400 lines: a file that long holds more than one concept, and
//! merges that each add a little reach it without anyone deciding to. And no two share a name.

use std::path::Path;

use crate::module_layers_test::rust_files;

const MOST_LINES: usize = 400;

#[test]
fn no_source_file_is_over_400_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let long: Vec<String> = rust_files(&src)
        .into_iter()
        .filter_map(|file| {
            let lines = std::fs::read_to_string(&file).unwrap().lines().count();
            (lines > MOST_LINES).then(|| format!("{}: {lines} lines", file.strip_prefix(&src).unwrap().display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "split these files (one concept per file, tests in a sibling `_tests.rs`):\n{}",
        long.join("\n")
    );
}

/// A file's name says what it holds, once: two `command.rs` (or two `resource_change.rs` in
/// different layers) leave a reader guessing which one an error or a search result means.
#[test]
fn no_two_source_files_share_a_name() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut seen: std::collections::BTreeMap<String, Vec<String>> = std::collections::BTreeMap::new();
    for file in rust_files(&src) {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if name != "mod.rs" {
            seen.entry(name).or_default().push(file.strip_prefix(&src).unwrap().display().to_string());
        }
    }
    let twice: Vec<String> = seen.values().filter(|paths| paths.len() > 1).map(|paths| paths.join(" and ")).collect();
    assert!(twice.is_empty(), "rename one of each (after what it holds):\n{}", twice.join("\n"));
}
