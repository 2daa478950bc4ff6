//! The stack-file writer over many shapes of file: each one either keeps every line the user
//! wrote and every value, or is refused naming the file and line with the file untouched.

use std::path::{Path, PathBuf};

use serde_norway::Value;

use super::{add_stack_config_values, StackConfigEdit};

fn values(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(key, value)| (key.to_string(), value.to_string())).collect()
}

/// A refusal's message, the file's path written `FILE`.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Refusal(String);

/// Writes `text`, adds `new`, and checks what the invariant promises independently of the writer.
fn add(text: &str, new: &[(String, String)]) -> Result<String, Refusal> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Pulumi.dev.yaml");
    std::fs::write(&path, text).unwrap();
    match add_stack_config_values(&path, Some(text), new) {
        Ok(()) => {
            let after = std::fs::read_to_string(&path).unwrap();
            assert_kept(text, &after, new);
            Ok(after)
        }
        Err(err) => {
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "a refusal leaves the file untouched");
            let message = err.to_string();
            assert!(message.contains(&path.display().to_string()), "the error names the file: {message}");
            Err(Refusal(message.replace(&path.display().to_string(), "FILE")))
        }
    }
}

fn parsed(text: &str) -> serde_norway::Mapping {
    match serde_norway::from_str::<Value>(text) {
        Ok(Value::Mapping(top)) => top,
        Ok(Value::Null) => serde_norway::Mapping::new(),
        other => panic!("not a mapping: {other:?}\n{text}"),
    }
}

fn assert_kept(before: &str, after: &str, new: &[(String, String)]) {
    let old = parsed(before);
    let now = parsed(after);
    for (key, value) in &old {
        if key.as_str() == Some("config") {
            continue;
        }
        assert_eq!(now.get(key), Some(value), "top-level `{key:?}` kept\n{before}\n---\n{after}");
    }
    let empty = Value::Mapping(Default::default());
    let old_config = old.get("config").filter(|value| !value.is_null()).unwrap_or(&empty);
    let now_config = now.get("config").filter(|value| !value.is_null()).unwrap_or(&empty);
    for (key, value) in old_config.as_mapping().unwrap() {
        if !value.is_null() {
            assert_eq!(now_config.get(key), Some(value), "`{key:?}` kept\n{before}\n---\n{after}");
        }
    }
    for (key, value) in new {
        assert_eq!(now_config.get(key.as_str()), Some(&Value::String(value.clone())), "{before}\n---\n{after}");
    }
    // Every line the user wrote is still there, in order, except a `config:` line whose value
    // (`{}`, `~`) had to change.
    let mut rest = after.split_inclusive('\n');
    for line in before.split_inclusive('\n') {
        let line = line.trim_end_matches(['\r', '\n']);
        let key = line.trim_start().trim_start_matches(['"', '\'']);
        if key.starts_with("config") || new.iter().any(|(new, _)| key.starts_with(new.as_str())) {
            continue;
        }
        assert!(
            rest.any(|kept| kept.trim_end_matches(['\r', '\n']) == line),
            "line `{line}` kept\n{before}\n---\n{after}"
        );
    }
    if before.contains("\r\n") {
        assert!(!after.replace("\r\n", "").contains('\n'), "CRLF line ends kept: {after:?}");
    }
}

#[test]
fn a_file_indented_with_four_spaces_stays_valid_and_indented_alike() {
    let after = add("config:\n    aws:region: us-west-2\n", &values(&[("eks:k8s_version", "1.20")])).unwrap();
    assert_eq!(after, "config:\n    aws:region: us-west-2\n    eks:k8s_version: '1.20'\n");
}

#[test]
fn a_comment_on_the_config_line_is_kept() {
    let after = add("config: # set by hand\n  a:b: c\n", &values(&[("a:d", "e")])).unwrap();
    assert_eq!(after, "config: # set by hand\n  a:b: c\n  a:d: e\n");
    let after = add("config: # nothing yet\nencryptionsalt: x\n", &values(&[("a:d", "e")])).unwrap();
    assert_eq!(after, "config: # nothing yet\n  a:d: e\nencryptionsalt: x\n");
}

#[test]
fn crlf_quoted_keys_and_document_marker_are_kept() {
    let text = "---\r\n\"config\":\r\n  \"aws:region\": us-west-2 # here\r\n";
    let after = add(text, &values(&[("aws:profile", "dev")])).unwrap();
    assert_eq!(after, "---\r\n\"config\":\r\n  \"aws:region\": us-west-2 # here\r\n  aws:profile: dev\r\n");
}

#[test]
fn a_flow_mapping_gains_the_key_in_place() {
    let after = add("encryptionsalt: x\nconfig: {} # empty\n", &values(&[("a:b", "c")])).unwrap();
    assert_eq!(after, "encryptionsalt: x\nconfig: {\"a:b\": \"c\"} # empty\n");
    let after = add("config: { a:x: 1 }\n", &values(&[("a:b", "c d")])).unwrap();
    assert_eq!(after, "config: { a:x: 1, \"a:b\": \"c d\" }\n");
}

#[test]
fn an_empty_file_or_one_without_config_gets_a_config_block() {
    assert_eq!(add("", &values(&[("a:b", "c")])).unwrap(), "config:\n  a:b: c\n");
    assert_eq!(add("# only a comment", &values(&[("a:b", "c")])).unwrap(), "# only a comment\nconfig:\n  a:b: c\n");
    assert_eq!(
        add("encryptionsalt: x\nother:\n    nested: 1\n", &values(&[("a:b", "c")])).unwrap(),
        "encryptionsalt: x\nother:\n    nested: 1\nconfig:\n    a:b: c\n"
    );
}

#[test]
fn a_key_left_empty_is_filled_on_its_line() {
    let after = add("config:\n  a:b: # fill me\n  a:c: d\n", &values(&[("a:b", "x")]));
    assert!(after.is_err(), "a comment after an empty value cannot be kept with the value: {after:?}");
    let after = add("config:\n  a:b:\n  a:c: d\n", &values(&[("a:b", "x")])).unwrap();
    assert_eq!(after, "config:\n  a:b: x\n  a:c: d\n");
}

#[test]
fn shapes_it_cannot_extend_are_refused_naming_the_line() {
    for (text, line) in [
        ("a: 1\nconfig: {\n  a:b: c\n}\n", 2),
        ("a: 1\nconfig: &shared\n  a:b: c\n", 2),
        ("{config: {a:b: c}}\n", 1),
        ("--- config:\n", 1),
        ("config: !!map\n  a:b: c\n", 1),
        // The line end the new key needs would become part of the text.
        ("config:\n  a:b: |\n    one\n    two", 1),
    ] {
        let refused = add(text, &values(&[("x:y", "z")])).unwrap_err();
        assert!(refused.0.contains(&format!("FILE:{line}")), "{text:?}: {refused}");
    }
}

const TRICKY: &[&str] = &[
    "plain",
    "1.20",
    "true",
    "null",
    "~",
    "",
    " leading",
    "trailing ",
    "a: b",
    "a #b",
    "#x",
    "'q'",
    "\"dq\"",
    "back\\slash",
    "multi\nline",
    "-----BEGIN KEY-----\nabc\n-----END KEY-----\n",
    "- item",
    "{a}",
    "[b]",
    "*alias",
    "&anchor",
    "!tag",
    "%pct",
    "@at",
    "`tick",
    "ünïcödé ✓",
    "tab\there",
    "---",
    "...",
    "0x1F",
    "yes",
    ",",
    "?",
    "|",
    ">",
];

/// Every combination of indentation, line end, document marker, form of `config`, comment,
/// surrounding keys and final newline, each adding tricky keys and values.
#[test]
fn sweep_over_stack_file_shapes_keeps_every_value_and_line() {
    let mut cases = 0;
    for unit in [1, 2, 3, 4, 8] {
        for crlf in [false, true] {
            for marker in ["", "---\n", "--- # doc\n", "%YAML 1.1\n---\n"] {
                for form in 0..8 {
                    for comment in [false, true] {
                        for around in 0..4 {
                            for final_newline in [true, false] {
                                let text = shape(unit, marker, form, comment, around, final_newline);
                                let text = if crlf { text.replace('\n', "\r\n") } else { text };
                                let value = TRICKY[cases % TRICKY.len()];
                                let key = ["ns:key", "ns:with space", "ns:\"q\"", "ns:ünï", "a:b:c"][cases % 5];
                                let new =
                                    values(&[(key, value), ("ns:second", TRICKY[(cases * 7 + 3) % TRICKY.len()])]);
                                // In memory: the file writer's flush to disk would make this slow.
                                let edit = StackConfigEdit::new(Path::new("Pulumi.dev.yaml"), &text);
                                match edit.add(&new) {
                                    Ok(after) => assert_kept(&text, &after, &new),
                                    Err(refused) => panic!("refused {text:?} adding {new:?}: {refused}"),
                                }
                                let salted = edit.add_top_level_line("encryptionsalt: v1:c2FsdA==");
                                match (text.contains("encryptionsalt:"), salted) {
                                    (true, salted) => assert!(salted.is_err(), "a second salt in {text:?}"),
                                    (false, Ok(after)) => assert_kept(&text, &after, &[]),
                                    (false, Err(refused)) => panic!("refused the salt in {text:?}: {refused}"),
                                }
                                cases += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    assert_eq!(cases, 5 * 2 * 4 * 8 * 2 * 4 * 2);
}

fn shape(unit: usize, marker: &str, form: usize, comment: bool, around: usize, final_newline: bool) -> String {
    let pad = " ".repeat(unit);
    let note = if comment { " # the stack's settings" } else { "" };
    let before = if around & 1 == 1 {
        format!("# header\nencryptionsalt: v1:abc\nother:\n{pad}nested: 1\n")
    } else {
        String::new()
    };
    let after = if around & 2 == 2 { format!("# trailer\nbackend:\n{pad}url: file://x\n") } else { String::new() };
    let config = match form {
        0 => format!("config:{note}\n{pad}aws:region: us-west-2\n{pad}# between\n{pad}\"quoted:key\": 'v'\n{pad}text:block: |\n{pad}{pad}line one\n{pad}{pad}line two\n{pad}db:password:\n{pad}{pad}secure: v1:xyz\n"),
        1 => format!("config:{note}\n"),
        2 => format!("config: {{}}{note}\n"),
        3 => format!("config: {{a:x: 1, \"b:y\": two}}{note}\n"),
        4 => format!("config: ~{note}\n"),
        5 => String::new(),
        6 => format!("\"config\":{note}\n{pad}'single:quoted': 1\n"),
        _ => format!("'config' :{note}\n{pad}k:v: \"1.20\"\n"),
    };
    let mut text = format!("{marker}{before}{config}{after}");
    if !final_newline {
        text = text.trim_end_matches('\n').to_string();
    }
    text
}

fn hostile_stack_files() -> Vec<PathBuf> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile");
    let mut files = Vec::new();
    for case in std::fs::read_dir(&corpus).unwrap() {
        let folder = case.unwrap().path().join("config/pulumi");
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if name.starts_with("Pulumi.") && name.ends_with(".yaml") && path.is_file() {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The hostile corpus's stack files through the writer: each is extended keeping every line and
/// value, or refused naming the file with the file untouched; never a broken file.
#[test]
fn hostile_corpus_stack_files_round_trip_through_the_writer() {
    let files = hostile_stack_files();
    assert!(files.len() >= 40, "the corpus has its stack files: {}", files.len());
    let (mut kept, mut refused) = (0, 0);
    for file in files {
        let Ok(text) = String::from_utf8(std::fs::read(&file).unwrap()) else { continue };
        let case = file.ancestors().nth(3).unwrap().file_name().unwrap().to_string_lossy().to_string();
        match add(&text, &values(&[("runner:added", "a value: with \"quotes\"\nand a second line")])) {
            Ok(_) => kept += 1,
            // Only the corpus's broken stack files are refused; every valid one is extended.
            Err(message) => {
                assert!(case.starts_with("stack-"), "{case}: {message}");
                refused += 1;
            }
        }
    }
    assert!(kept >= 60 && refused >= 10, "kept {kept}, refused {refused}");
}
