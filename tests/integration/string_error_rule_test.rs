//! No function in `src/` returns `Result<_, String>`: a string error has lost its cause (the
//! `io::Error` and its kind) and cannot be told apart by the caller. Errors are `UserError` or a
//! small `thiserror` enum of their module, causes kept as `#[source]`. Only a signature an outside
//! trait fixes may keep `String`, named below with the reason.

use std::path::Path;

use crate::module_layers_test::rust_files;

/// `(file under src/, or `*` for any, text on the line, why it keeps String)`.
const ALLOWED: &[(&str, &str, &str)] = &[(
    "*",
    "fn finish(&mut self) -> Result<(), String>",
    "`Reporter::finish` (the trait, and every reporter implementing it): what a reporter could not write, said \
     in full for the run's footer; the reporter has already turned its causes into that sentence",
)];

#[test]
fn src_returns_no_string_errors() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    let mut used = vec![false; ALLOWED.len()];
    for file in rust_files(&src) {
        let relative = file.strip_prefix(&src).unwrap().display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        for line in string_error_lines(&text) {
            let code = text.lines().nth(line - 1).unwrap_or_default().trim();
            let allowed = ALLOWED
                .iter()
                .position(|(path, fragment, _)| (*path == "*" || *path == relative) && code.contains(fragment));
            match allowed {
                Some(index) => used[index] = true,
                None => found.push(format!("{relative}:{line}: {code}")),
            }
        }
    }
    assert!(
        found.is_empty(),
        "return `UserError` or a `thiserror` enum of the module (an `io::Error` as `#[source]`), not `String`:\n{}",
        found.join("\n")
    );
    let stale: Vec<String> = ALLOWED
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|((path, fragment, _), _)| format!("{path}: {fragment}"))
        .collect();
    assert!(
        stale.is_empty(),
        "these allowed string errors are gone; remove them from `ALLOWED`:\n{}",
        stale.join("\n")
    );
}

/// The 1-based lines where a `Result<..., String>` type starts, comments ignored; the type
/// may span lines and nest (`Option<Result<Vec<String>, String>>`).
fn string_error_lines(text: &str) -> Vec<usize> {
    let code = without_comments(text);
    let bytes = code.as_bytes();
    let mut lines = Vec::new();
    for (at, _) in code.match_indices("Result<") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let start = at + "Result<".len();
        let (mut depth, mut end, mut commas) = (1usize, start, vec![start]);
        while end < bytes.len() && depth > 0 {
            match bytes[end] {
                b'<' | b'(' | b'[' => depth += 1,
                b'>' if end > 0 && bytes[end - 1] == b'-' => {}
                b'>' | b')' | b']' => depth -= 1,
                b',' if depth == 1 => commas.push(end + 1),
                _ => {}
            }
            end += 1;
        }
        commas.push(end.saturating_sub(1));
        // The error type is the last non-empty argument (a trailing comma leaves an empty one).
        let arguments = commas.windows(2).map(|pair| code[pair[0]..pair[1]].trim_end_matches(',').trim());
        let arguments: Vec<&str> = arguments.filter(|argument| !argument.is_empty()).collect();
        if arguments.len() < 2 {
            continue;
        }
        let error = arguments[arguments.len() - 1];
        if matches!(error, "String" | "std::string::String" | "alloc::string::String") {
            lines.push(code[..at].matches('\n').count() + 1);
        }
    }
    lines
}

/// Line comments blanked (newlines kept, so line numbers hold); enough for signatures.
fn without_comments(text: &str) -> String {
    text.lines().map(|line| line.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

#[test]
fn the_rule_sees_every_shape_of_a_string_error() {
    let flagged = [
        "fn a() -> Result<(), String> {",
        "fn a() -> std::result::Result<(), String> {",
        "fn a() -> Result<Vec<String>, String> {",
        "fn a() -> Option<Result<Self, String>> {",
        "fn a() -> impl Future<Output = Result<StackTarget, String>> + Send;",
        "fn a() -> Result<(String, usize), String> {",
        "fn a() -> Result<\n    HashMap<String, Vec<u8>>,\n    String,\n> {",
        "fn a() -> Result<Box<dyn Fn(u8) -> u8>, String> {",
    ];
    for shape in flagged {
        assert_eq!(string_error_lines(shape), vec![1], "{shape}");
    }
    let clean = [
        "fn a() -> Result<String> {",
        "fn a() -> Result<Vec<String>> {",
        "fn a() -> Result<String, UserError> {",
        "fn a() -> io::Result<String> {",
        "fn a() -> Result<HashMap<String, String>, Error> {",
        "fn a() -> MyResult<(), String> {",
        "fn a() -> Result<(), UserError> { // not Result<(), String>",
    ];
    for shape in clean {
        assert_eq!(string_error_lines(shape), Vec::<usize>::new(), "{shape}");
    }
    assert_eq!(string_error_lines("// fn a() -> Result<(), String>\nfn b() -> Result<u8, String>"), vec![2]);
}
