//! Counts are said with the right noun (`crate::text::counted`), never hedged as `lock(s)`: a
//! message that names a number knows whether it is one.

use std::path::Path;

use crate::module_layers_test::rust_files;

/// `file:line: code` for each line of non-test code with a `word(s)` in it (`http(s)://`, a URL
/// pattern, is no plural).
fn hedged_plurals(name: &str, text: &str) -> Vec<String> {
    if name.ends_with("_tests.rs") || name.ends_with("_snapshots.rs") {
        return Vec::new();
    }
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    code.lines()
        .enumerate()
        .filter(|(_, line)| {
            let line = line.replace("http(s)://", "");
            let code = line.split("//").next().unwrap_or_default();
            code.match_indices("(s)").any(|(at, _)| code[..at].ends_with(|c: char| c.is_ascii_alphabetic()))
        })
        .map(|(number, line)| format!("{name}:{}: {}", number + 1, line.trim()))
        .collect()
}

#[test]
fn src_says_counts_with_the_right_noun() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for file in rust_files(&src) {
        let name = file.strip_prefix(&src).unwrap().display().to_string();
        found.extend(hedged_plurals(&name, &std::fs::read_to_string(&file).unwrap()));
    }
    assert!(found.is_empty(), "say the count with `crate::text::counted` instead:\n{}", found.join("\n"));
}

#[test]
fn the_rule_sees_a_hedged_plural_and_skips_urls_tests_and_comments() {
    let text = "format!(\"{} lock(s) left\", n);\n\
                let url = \"http(s)://host\";\n\
                // problem(s) in a comment\n\
                #[cfg(test)]\nmod tests { const A: &str = \"1 lock(s)\"; }\n";
    let found = hedged_plurals("x.rs", text);
    assert_eq!(found.iter().map(|line| &line[..6]).collect::<Vec<_>>(), ["x.rs:1"]);
    assert!(hedged_plurals("x_tests.rs", text).is_empty());
}
