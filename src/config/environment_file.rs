use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Location, Result, UserError};

/// One assignment from the environment file, with the line it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvironmentEntry {
    pub key: String,
    pub value: String,
    pub line: usize,
}

/// `config/pulumi/environment`: the variables every child process gets, over the process environment.
///
/// Accepts what MARA users already have: `KEY=VALUE` and configparser's `KEY: VALUE`, `#` and `;`
/// comments, an optional `export ` prefix, quoted values, `%` taken literally, no final newline.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvironmentFile {
    path: PathBuf,
    entries: Vec<EnvironmentEntry>,
    /// False when there was no file: the run then has only the process environment.
    found: bool,
}

impl EnvironmentFile {
    /// Reads the file; a missing file is an empty environment, as MARA creates it on first run.
    pub fn load(path: &Path) -> Result<Self> {
        match super::read_text(path)? {
            Some(text) => Self::parse(path, &text),
            None => Ok(Self { path: path.to_path_buf(), entries: Vec::new(), found: false }),
        }
    }

    pub fn parse(path: &Path, text: &str) -> Result<Self> {
        let mut entries: Vec<EnvironmentEntry> = Vec::new();
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        // Editors on Windows start files with a byte order mark; TOML and YAML accept it, so do we.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (index, raw) in text.split('\n').enumerate() {
            let line_number = index + 1;
            let line = raw.strip_suffix('\r').unwrap_or(raw).trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            let invalid =
                |message: String| UserError::InvalidFile { location: Location::line(path, line_number), message };
            if line.contains('\0') {
                return Err(invalid("the line holds a NUL byte".into()));
            }
            if line.contains('\r') {
                return Err(invalid(
                    "the line holds a carriage return (`\\r`) that does not end it: save the file with `\\n` or `\\r\\n` line endings"
                        .into(),
                ));
            }
            let line = line.strip_prefix("export ").map(str::trim_start).unwrap_or(line);
            let Some(split_at) = line.find(['=', ':']) else {
                return Err(invalid(format!("`{}` is not an assignment: write `KEY=VALUE`", shorten(line))));
            };
            let key = line[..split_at].trim();
            let value = unquote(line[split_at + 1..].trim());
            if key.is_empty() {
                let separator = &line[split_at..split_at + 1];
                return Err(invalid(format!("no variable name before `{separator}`: write `KEY=VALUE`")));
            }
            if !is_valid_key(key) {
                return Err(invalid(format!(
                    "`{}` is not a valid variable name: use letters, digits and `_`, not starting with a digit",
                    shorten(key)
                )));
            }
            if let Some(first) = seen.insert(key.to_string(), line_number) {
                return Err(invalid(format!("`{key}` is set twice (first on line {first})")));
            }
            entries.push(EnvironmentEntry { key: key.to_string(), value: value.to_string(), line: line_number });
        }
        Ok(Self { path: path.to_path_buf(), entries, found: true })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file existed when it was read.
    pub fn found(&self) -> bool {
        self.found
    }

    pub fn entries(&self) -> &[EnvironmentEntry] {
        &self.entries
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.entry(key).map(|entry| entry.value.as_str())
    }

    pub fn entry(&self, key: &str) -> Option<&EnvironmentEntry> {
        self.entries.iter().find(|entry| entry.key == key)
    }
}

fn is_valid_key(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if value.len() >= 2 && value.starts_with(quote) && value.ends_with(quote) {
            return &value[1..value.len() - 1];
        }
    }
    value
}

fn shorten(text: &str) -> String {
    const LIMIT: usize = 40;
    if text.chars().count() <= LIMIT {
        text.to_string()
    } else {
        format!("{}...", text.chars().take(LIMIT).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<EnvironmentFile> {
        EnvironmentFile::parse(Path::new("config/pulumi/environment"), text)
    }

    #[test]
    fn reads_key_value_lines() {
        let file = parse("PULUMI_STACK=dev\nAWS_PROFILE=default\n").unwrap();
        assert_eq!(file.get("PULUMI_STACK"), Some("dev"));
        assert_eq!(file.get("AWS_PROFILE"), Some("default"));
    }

    #[test]
    fn reads_configparser_syntax_and_comments() {
        let file = parse("PULUMI_STACK=foo\nA = spaced value \n# comment\n; semi\nB: colon\n").unwrap();
        assert_eq!(file.get("A"), Some("spaced value"));
        assert_eq!(file.get("B"), Some("colon"));
        assert_eq!(file.entries().len(), 3);
    }

    #[test]
    fn keeps_percent_and_equals_in_values() {
        let file = parse("A=50%\nURL=http://x/?a=b").unwrap();
        assert_eq!(file.get("A"), Some("50%"));
        assert_eq!(file.get("URL"), Some("http://x/?a=b"));
    }

    #[test]
    fn strips_export_prefix_and_quotes() {
        let file = parse("export A=\"quoted value\"\nB='single'\n").unwrap();
        assert_eq!(file.get("A"), Some("quoted value"));
        assert_eq!(file.get("B"), Some("single"));
    }

    #[test]
    fn duplicate_key_names_both_lines() {
        let err = parse("PULUMI_STACK=foo\nPULUMI_STACK=bar\n").unwrap_err().to_string();
        assert_eq!(err, "config/pulumi/environment:2: `PULUMI_STACK` is set twice (first on line 1)");
    }

    #[test]
    fn a_line_without_assignment_is_an_error() {
        let err = parse("A=1\njust words\n").unwrap_err().to_string();
        assert_eq!(err, "config/pulumi/environment:2: `just words` is not an assignment: write `KEY=VALUE`");
    }

    #[test]
    fn invalid_key_is_an_error() {
        let err = parse("1A=1\n").unwrap_err().to_string();
        assert!(err.contains(":1: `1A` is not a valid variable name"), "{err}");
    }

    #[test]
    fn crlf_line_endings_are_accepted() {
        let file = parse("A=1\r\nB=2\r\n").unwrap();
        assert_eq!(file.get("B"), Some("2"));
    }

    #[test]
    fn reads_every_mara_fixture_except_the_duplicate() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mara/environment");
        let mut read = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let result = EnvironmentFile::load(&path);
            if path.file_name().unwrap().to_string_lossy().contains("duplicate") {
                assert!(result.is_err());
            } else {
                result.unwrap();
            }
            read += 1;
        }
        assert!(read >= 8);
    }

    #[test]
    fn a_carriage_return_inside_a_line_is_an_error() {
        let err = parse("PULUMI_STACK=dev\rA=1\r").unwrap_err().to_string();
        assert!(err.starts_with("config/pulumi/environment:1: the line holds a carriage return"), "{err}");
    }

    #[test]
    fn a_missing_name_is_named_as_such() {
        let err = parse("A=1\n=value\n").unwrap_err().to_string();
        assert_eq!(err, "config/pulumi/environment:2: no variable name before `=`: write `KEY=VALUE`");
    }

    #[test]
    fn a_byte_order_mark_is_ignored() {
        let file = parse("\u{feff}PULUMI_STACK=dev\n").unwrap();
        assert_eq!(file.get("PULUMI_STACK"), Some("dev"));
    }

    #[test]
    fn missing_final_newline_is_fine() {
        let file = parse("AWS_PROFILE=x").unwrap();
        assert_eq!(file.get("AWS_PROFILE"), Some("x"));
    }
}
