//! The allowed layering of `src/`'s top-level modules, and the check that keeps it: a module may
//! name (`use crate::x` or an inline `crate::x::...` path, tests included) only modules in a
//! lower layer. `RUNNER_LAYERS_SRC=/some/other/src` checks another tree (an old commit's, say).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Lowest first. This list is the one place the layering is written down; DEVELOPERS.md explains it.
const LAYERS: &[&str] = &[
    "text",
    "exit_status",
    "error",
    "cancel",
    "http",
    "config",
    "provider",
    "graph",
    "plan",
    "secrets",
    "hooks",
    "execute",
    "report",
    "history",
    "render",
    "backend",
    "pulumi",
    "export",
    "prompt",
    "preflight",
    "cli",
    "commands",
];

fn source_dir() -> PathBuf {
    std::env::var_os("RUNNER_LAYERS_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

/// Every top-level module (a folder or a file next to `lib.rs`) and the modules it names.
fn module_imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut modules = BTreeMap::new();
    for entry in std::fs::read_dir(src).expect("src/ is readable") {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        if stem == "lib" || stem == "main" || (path.is_file() && path.extension().is_none_or(|ext| ext != "rs")) {
            continue;
        }
        // `error_tests.rs` is the `#[path]` test module of `error.rs`: part of `error`.
        let name = match stem.strip_suffix("_tests") {
            Some(owner) if path.is_file() => owner.to_string(),
            _ => stem,
        };
        let mut named = modules.remove(&name).unwrap_or_else(BTreeSet::new);
        for file in rust_files(&path) {
            let text = std::fs::read_to_string(&file).unwrap();
            named.extend(crate_paths(&text).into_iter().filter(|target| *target != name));
        }
        modules.insert(name, named);
    }
    modules
}

pub(crate) fn rust_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).unwrap() {
        let child = entry.unwrap().path();
        if child.is_dir() {
            files.extend(rust_files(&child));
        } else if child.extension().is_some_and(|ext| ext == "rs") {
            files.push(child);
        }
    }
    files
}

/// The top-level modules a file names through `crate::`: whole-file, so a `use crate::{...}`
/// group that rustfmt spreads over lines, nested groups and paths split across lines all count;
/// comments and string literals are blanked out first, so a path in text names nothing.
fn crate_paths(text: &str) -> BTreeSet<String> {
    let code = code_only(text);
    let mut named = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate") {
        let preceded_by_ident =
            rest[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
        rest = &rest[at + "crate".len()..];
        let after = rest.trim_start();
        let Some(path) = after.strip_prefix("::") else { continue };
        if preceded_by_ident {
            continue;
        }
        let path = path.trim_start();
        if let Some(group) = path.strip_prefix('{') {
            for item in top_level_items(group) {
                named.insert(identifier(item.trim()));
            }
        } else {
            named.insert(identifier(path));
        }
    }
    named.retain(|name| !name.is_empty());
    named
}

/// The comma-separated items of a `{...}` group (its opening brace already taken), up to the
/// brace that closes it; nested groups stay inside their item.
fn top_level_items(group: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (index, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..index]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items
}

/// `text` with comments (line, block, nested block) and string and character literals (raw
/// strings included) replaced by spaces, lifetimes kept.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !ident_before(&chars, i) {
            let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            i += 2 + hashes;
            while i < chars.len() {
                if chars[i] == '"' && chars[i + 1..].iter().take(hashes).filter(|c| **c == '#').count() == hashes {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            out.push(' ');
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else if c == '\'' && is_char_literal(&chars, i) {
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_before(chars: &[char], at: usize) -> bool {
    at > 0 && (chars[at - 1].is_alphanumeric() || chars[at - 1] == '_')
}

/// `'x'` or `'\n'`, not a lifetime `'a`.
fn is_char_literal(chars: &[char], at: usize) -> bool {
    matches!((chars.get(at + 1), chars.get(at + 2)), (Some('\\'), _) | (Some(_), Some('\'')))
}

fn identifier(text: &str) -> String {
    text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// Every cycle between top-level modules, each as `a -> b -> a`.
fn cycles(imports: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut found = BTreeSet::new();
    for start in imports.keys() {
        // Depth-first from `start`, reporting each path that returns to it (shortest found first).
        let mut stack = vec![vec![start.clone()]];
        let mut seen = BTreeSet::new();
        while let Some(path) = stack.pop() {
            let last = path.last().unwrap();
            for next in imports.get(last).into_iter().flatten() {
                if next == start {
                    let mut cycle = path.clone();
                    // Name each cycle once, starting from its smallest module.
                    let smallest = cycle.iter().enumerate().min_by_key(|(_, name)| *name).unwrap().0;
                    cycle.rotate_left(smallest);
                    cycle.push(cycle[0].clone());
                    found.insert(cycle.join(" -> "));
                } else if seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push(longer);
                }
            }
        }
    }
    found.into_iter().collect()
}

#[test]
fn top_level_modules_form_no_cycle() {
    let cycles = cycles(&module_imports(&source_dir()));
    assert!(cycles.is_empty(), "import cycles between top-level modules:\n{}", cycles.join("\n"));
}

#[test]
fn every_module_imports_only_lower_layers() {
    let imports = module_imports(&source_dir());
    let layer = |name: &str| LAYERS.iter().position(|layer| *layer == name);
    let mut violations = Vec::new();
    for (module, named) in &imports {
        let Some(own) = layer(module) else {
            violations.push(format!("`{module}` is not in LAYERS: give it a place"));
            continue;
        };
        for target in named {
            match layer(target) {
                Some(theirs) if theirs < own => {}
                Some(_) => violations.push(format!("`{module}` imports `{target}`, which is not below it")),
                None => violations.push(format!("`{module}` imports `{target}`, which is not in LAYERS")),
            }
        }
    }
    assert!(violations.is_empty(), "layering violations:\n{}", violations.join("\n"));
}

#[test]
fn the_check_reads_multi_line_and_nested_groups_and_skips_text() {
    let named = crate_paths(
        "use crate::{\n    cli::{Settings, StackSettings},\n    error::{Result, UserError},\n    execute::{\n        a::{b, c},\n        d,\n    },\n};\nlet path = crate\n    ::history::x();\nlet s = \"crate::fake\";\nlet r = r#\"crate::raw\"#;\n/* crate::block /* nested crate::inner */ */\nfn f<'a>(x: &'a str) -> char { 'c' }\nlet y = crate::plan::z;",
    );
    assert_eq!(named.into_iter().collect::<Vec<_>>(), ["cli", "error", "execute", "history", "plan"]);
}

#[test]
fn the_check_sees_grouped_and_inline_paths() {
    let named = crate_paths(
        "use crate::{execute::Event, plan};\nlet x = crate::report::write();\n// crate::commented\n$crate::macro_path",
    );
    assert_eq!(named.into_iter().collect::<Vec<_>>(), ["execute", "plan", "report"]);
    let imports: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into();
    assert_eq!(cycles(&imports), ["a -> b -> c -> a"]);
}
