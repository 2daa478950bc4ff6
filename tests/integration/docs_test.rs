//! The manual (README.md, docs/, DEVELOPERS.md, BENCHMARKS.md) keeps its promises: every
//! relative link resolves, the book's summary lists every page, and every command line it shows
//! is one the binary accepts.

use std::path::{Path, PathBuf};

use crate::support::repository;

fn manual() -> Vec<PathBuf> {
    let root = repository();
    let mut files = vec![root.join("README.md"), root.join("DEVELOPERS.md"), root.join("BENCHMARKS.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs/src"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    pages.sort();
    files.extend(pages);
    files
}

fn shown(path: &Path) -> String {
    path.strip_prefix(repository()).unwrap_or(path).display().to_string()
}

/// `[text](target)` outside code: the targets.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            found.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    found
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    for file in manual() {
        let text = std::fs::read_to_string(&file).unwrap();
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") || target.starts_with('#') {
                continue;
            }
            let path = target.split('#').next().unwrap();
            if !file.parent().unwrap().join(path).exists() {
                broken.push(format!("{}: ({target})", shown(&file)));
            }
        }
    }
    assert!(broken.is_empty(), "links to nothing:\n{}", broken.join("\n"));
}

#[test]
fn the_summary_lists_every_page_of_the_book() {
    let summary = std::fs::read_to_string(repository().join("docs/src/SUMMARY.md")).unwrap();
    let listed = links(&summary);
    for page in manual().into_iter().filter(|file| file.starts_with(repository().join("docs/src"))) {
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        if name != "SUMMARY.md" {
            assert!(listed.contains(&name), "docs/src/SUMMARY.md does not list {name}");
        }
    }
    let readme = std::fs::read_to_string(repository().join("README.md")).unwrap();
    assert!(readme.lines().count() <= 300, "README.md is {} lines: move the rest to docs/", readme.lines().count());
}

/// Command lines of `runner` the manual shows: in code blocks (`$ ` prompts taken off, `\`
/// continuations joined) and in inline code that is a whole command (it names its provider), not
/// a synopsis (`[--format F]`, `up|preview`, `...`) or a command's name (`runner drift`).
fn command_lines(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut fenced = false;
    let mut continued: Option<String> = None;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            let command = match continued.take() {
                Some(start) => format!("{start} {}", line.trim()),
                None => line.trim_start().trim_start_matches("$ ").to_string(),
            };
            if let Some(start) = command.strip_suffix('\\') {
                continued = Some(start.trim_end().to_string());
            } else if command.starts_with("runner ") {
                found.push(command);
            }
            continue;
        }
        for (index, span) in line.split('`').enumerate() {
            let synopsis = ["[", "|", "...", "…", "<"].iter().any(|mark| span.contains(mark));
            if index % 2 == 1 && span.starts_with("runner ") && span.contains("--provider ") && !synopsis {
                found.push(span.to_string());
            }
        }
    }
    found
}

/// Shell words up to the first operator or comment, quotes removed.
fn words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in command.chars() {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (None, '|' | ';' | '>' | '<' | '&') => break,
            (None, '#') if !started => break,
            (None, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

#[test]
fn every_command_line_shown_is_one_the_binary_accepts() {
    let mut refused = Vec::new();
    let mut checked = 0;
    for file in manual() {
        let text = std::fs::read_to_string(&file).unwrap();
        for command in command_lines(&text) {
            checked += 1;
            if let Err(err) = runner::accepts_command_line(words(&command)) {
                let err = err.to_string();
                let first = err.lines().next().unwrap_or_default().to_string();
                refused.push(format!("{}: `{command}`: {first}", shown(&file)));
            }
        }
    }
    assert!(checked >= 25, "only {checked} command lines found: the reader of the manual is broken");
    assert!(refused.is_empty(), "command lines the binary refuses:\n{}", refused.join("\n"));
}

#[test]
fn the_readers_see_what_they_should() {
    let text = "see [a](a.md) and `[b](b.md)`\n```sh\n$ runner up --provider local # deploy\n[c](c.md)\nrunner show \\\n  --provider local\n```\nthen `runner show --provider P [--format F]`, `runner drift` or `runner status --provider local`\n";
    assert_eq!(links(text), vec!["a.md"]);
    assert_eq!(
        command_lines(text),
        vec!["runner up --provider local # deploy", "runner show --provider local", "runner status --provider local"]
    );
    assert_eq!(words("runner up --provider local # deploy"), vec!["runner", "up", "--provider", "local"]);
    assert_eq!(
        words("runner config set --secret 'a b' KEY < file"),
        vec!["runner", "config", "set", "--secret", "a b", "KEY"]
    );
    assert_eq!(words("runner outputs --json | jq ."), vec!["runner", "outputs", "--json"]);
}
