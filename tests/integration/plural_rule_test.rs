//! Counts are said with the right noun (`crate::text::counted`): never hedged as `lock(s)`, and
//! never a number placed before a fixed plural (`{} attempts` says "1 attempts"). A message that
//! names a number knows whether it is one.

use std::path::Path;

use regex::Regex;

use crate::module_layers_test::rust_files;

/// Words ending in `s` that follow a placeholder without being a counted noun: verbs and the
/// like (`{path} is`, `{object} has`). A new one is added here when a message needs it.
const NOT_PLURALS: &[&str] = &["is", "has", "does", "was", "vs", "holds", "exists", "names", "sets", "breaks"];

/// `file:line: code` for each line of non-test code that says a count with a fixed plural:
/// `word(s)` (`http(s)://`, a URL pattern, is no plural), or a placeholder followed by a plural
/// (`{} projects`, `{count} attempts`).
fn hedged_plurals(name: &str, text: &str) -> Vec<String> {
    if name.ends_with("_tests.rs") || name.ends_with("_snapshots.rs") {
        return Vec::new();
    }
    let fixed_plural = Regex::new(r#"\{[^{}"\s]*\} ([a-z]+s)\b"#).unwrap();
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    code.lines()
        .enumerate()
        .filter(|(_, line)| {
            let line = line.replace("http(s)://", "");
            let code = line.trim_start();
            if code.starts_with("//") {
                return false;
            }
            let hedged =
                code.match_indices("(s)").any(|(at, _)| code[..at].ends_with(|c: char| c.is_ascii_alphabetic()));
            let after_a_count = fixed_plural
                .captures_iter(code)
                .any(|captures| !NOT_PLURALS.contains(&captures.get(1).map_or("", |word| word.as_str())));
            hedged || after_a_count
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
fn the_rule_sees_each_shape_of_a_fixed_plural_and_skips_urls_verbs_tests_and_comments() {
    let flagged = [
        "format!(\"{} lock(s) left\", n);",
        "format!(\"in {} attempts\", n);",
        "format!(\"{count} projects\");",
        "format!(\"{} of {} projects selected\", a, b);",
        "format!(\"over {limit} bytes\");",
        "#[error(\"the stream holds {documents} documents\")]",
        "format!(\"{:>3} waves\", n);",
    ];
    for line in flagged {
        assert_eq!(hedged_plurals("x.rs", line).len(), 1, "{line}");
    }
    let passed = [
        "let url = \"http(s)://host\";",
        "// problem(s) in a comment, {} projects",
        "format!(\"{path} is missing\");",
        "format!(\"{object} has no {condition} condition\");",
        "format!(\"{}\", counted(n, \"project\"));",
        "format!(\"{} of {}\", done, counted(total, \"project\"));",
        "format!(\"{:.1}s\", seconds);",
    ];
    for line in passed {
        assert!(hedged_plurals("x.rs", line).is_empty(), "{line}");
    }
    let text = "#[cfg(test)]\nmod tests { const A: &str = \"1 lock(s), {} projects\"; }\n";
    assert!(hedged_plurals("x.rs", text).is_empty());
    assert!(hedged_plurals("x_tests.rs", "format!(\"{} projects\", n);").is_empty());
}
