//! No file in `src/` grows past 400 lines: a file that long holds more than one concept, and
//! merges that each add a little reach it without anyone deciding to.

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
