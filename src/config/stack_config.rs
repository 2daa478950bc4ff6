use std::path::{Path, PathBuf};

use serde_norway::{Mapping, Value};

use super::yaml_positions::YamlPositions;
use crate::error::{Location, Result, UserError};

/// `config/pulumi/Pulumi.<stack>.yaml`, shared by every project of the stack, as in MARA.
///
/// Values stay as YAML: namespaced keys, `secure:` values and nested objects pass through untouched.
#[derive(Debug, Clone, Default)]
pub struct StackConfig {
    path: PathBuf,
    exists: bool,
    text: String,
    config: Mapping,
    positions: YamlPositions,
}

/// A value that YAML read differently from what the user probably meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackConfigWarning {
    pub location: Location,
    pub message: String,
}

impl StackConfig {
    pub fn load(path: &Path) -> Result<Self> {
        match super::read_text(path)? {
            Some(text) => Self::parse(path, text),
            None => Ok(Self { path: path.to_path_buf(), ..Self::default() }),
        }
    }

    pub fn parse(path: &Path, text: String) -> Result<Self> {
        let invalid = |line: Option<usize>, message: String| UserError::InvalidFile {
            location: Location { path: path.to_path_buf(), line },
            message,
        };
        if let Some(offset) = flow_nesting_too_deep(&text) {
            return Err(invalid(
                Some(super::LineIndex::new(&text).line(offset)),
                format!(
                    "not valid YAML: `[` and `{{` nested deeper than {}",
                    crate::text::counted(MAX_FLOW_DEPTH, "level")
                ),
            ));
        }
        let positions = YamlPositions::read(&text);
        let document: Value = if text.trim().is_empty() {
            Value::Null
        } else {
            serde_norway::from_str(&text).map_err(|err| {
                let message = strip_location(&err.to_string());
                let line = match err.location() {
                    // serde_norway places a repeated key at its mapping's start; the parser knows
                    // where it is written the second time.
                    Some(location) => {
                        duplicate_key(&message).and_then(|key| positions.duplicate_of(key)).or(Some(location.line()))
                    }
                    None if message.contains("more than one document") => positions.second_document(),
                    None => None,
                };
                invalid(line, format!("not valid YAML: {message}"))
            })?
        };
        let config = match document {
            Value::Null => Mapping::new(),
            Value::Mapping(mut top) => match top.remove("config") {
                None | Some(Value::Null) => Mapping::new(),
                Some(Value::Mapping(config)) => config,
                Some(_) => {
                    let line = positions.top_key("config");
                    return Err(invalid(line, "`config` must be a mapping of `namespace:key: value`".into()));
                }
            },
            _ => return Err(invalid(Some(1), "the file must be a mapping with a `config` key".into())),
        };
        for key in config.keys() {
            if !key.is_string() {
                let shown = serde_norway::to_string(key).unwrap_or_default();
                let shown = shown.trim();
                let line = match key {
                    // A number or a boolean is a scalar as written: `42`, `true`.
                    Value::Number(_) | Value::Bool(_) | Value::Null => positions.config_key(shown),
                    _ => positions.first_composite_config_key(),
                }
                .or_else(|| positions.top_key("config"));
                return Err(invalid(line, format!("configuration key `{shown}` must be a string")));
            }
        }
        Ok(Self { path: path.to_path_buf(), exists: true, text, config, positions })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file as read, for writers that keep its comments.
    pub fn text(&self) -> Option<&str> {
        self.exists.then_some(self.text.as_str())
    }

    /// False when the file does not exist yet: the first run of a stack.
    pub fn exists(&self) -> bool {
        self.exists
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.config.get(key)
    }

    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some_and(|value| !value.is_null())
    }

    /// A scalar value as the string Pulumi would pass to programs.
    pub fn get_string(&self, key: &str) -> Option<String> {
        match self.get(key)? {
            Value::String(text) => Some(text.clone()),
            Value::Number(number) => Some(number.to_string()),
            Value::Bool(flag) => Some(flag.to_string()),
            _ => None,
        }
    }

    /// True when the value is `secure: ...`: encrypted by Pulumi, never shown.
    pub fn is_secure(&self, key: &str) -> bool {
        matches!(self.get(key), Some(Value::Mapping(map)) if map.contains_key("secure"))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.config.keys().filter_map(Value::as_str)
    }

    pub fn location_of(&self, key: &str) -> Location {
        Location { path: self.path.clone(), line: self.positions.config_key(key) }
    }

    /// Version-like values YAML turned into floats: `1.20` becomes `1.2`, and Pulumi then passes `1.2`.
    pub fn float_warnings(&self) -> Vec<StackConfigWarning> {
        let mut warnings = Vec::new();
        for (key, value, line) in self.positions.plain_values() {
            let (key, value) = (key.as_str(), value.as_str());
            if !looks_like_float(value) {
                continue;
            }
            let parsed: f64 = match value.parse() {
                Ok(parsed) => parsed,
                Err(_) => continue,
            };
            let changed = parsed.to_string() != value;
            let versionish = key.to_ascii_lowercase().contains("version");
            if changed || versionish {
                warnings.push(StackConfigWarning {
                    location: Location::line(&self.path, *line),
                    message: format!(
                        "`{key}: {value}` is read as the number `{parsed}`; quote it (`\"{value}\"`) to keep it as written"
                    ),
                });
            }
        }
        warnings
    }
}

fn looks_like_float(value: &str) -> bool {
    let mut parts = value.splitn(2, '.');
    let whole = parts.next().unwrap_or_default();
    let Some(fraction) = parts.next() else { return false };
    !whole.is_empty()
        && !fraction.is_empty()
        && whole.chars().all(|c| c.is_ascii_digit())
        && fraction.chars().all(|c| c.is_ascii_digit())
}

/// serde_norway stops at 128 levels, but only after libyaml has scanned the whole file, in time
/// quadratic in the `[`/`{` depth: 100,000 `[` took half a minute. Deeper input is refused first.
const MAX_FLOW_DEPTH: usize = 128;

/// The byte offset where `[`/`{` nesting first goes deeper than `MAX_FLOW_DEPTH`, skipping quoted
/// scalars and comments. Approximate (a plain scalar may hold a bracket), which matters only for
/// input nested that deep, and YAML refuses such input anyway.
fn flow_nesting_too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut comment = false;
    let mut previous = '\n';
    let mut chars = text.char_indices().peekable();
    while let Some((offset, c)) = chars.next() {
        if c == '\n' {
            comment = false;
        }
        match quote {
            _ if comment => {}
            Some('"') if c == '\\' => {
                chars.next();
            }
            Some('\'') if c == '\'' && chars.peek().map(|(_, next)| *next) == Some('\'') => {
                chars.next();
            }
            Some(open) if c == open => quote = None,
            Some(_) => {}
            None => match c {
                '#' if previous.is_whitespace() => comment = true,
                '"' | '\'' if matches!(previous, '\n' | ' ' | '\t' | '[' | '{' | ',' | ':' | '-' | '?') => {
                    quote = Some(c)
                }
                '[' | '{' => {
                    depth += 1;
                    if depth > MAX_FLOW_DEPTH {
                        return Some(offset);
                    }
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
        previous = c;
    }
    None
}

/// The key of serde_norway's "duplicate entry with key "..."" message.
fn duplicate_key(message: &str) -> Option<&str> {
    const MARKER: &str = "duplicate entry with key \"";
    let rest = &message[message.find(MARKER)? + MARKER.len()..];
    Some(&rest[..rest.find('"')?])
}

fn strip_location(message: &str) -> String {
    match message.find(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mara").join(name)
    }

    #[test]
    fn loads_the_mara_example() {
        let config = StackConfig::load(&fixture("Pulumi.stackname.yaml.example")).unwrap();
        assert_eq!(config.get_string("aws:region").as_deref(), Some("us-east-1"));
        assert!(matches!(config.get("vpc:azs"), Some(Value::Sequence(_))));
        assert!(matches!(config.get("kic:nginx_plus"), Some(Value::Mapping(_))));
    }

    #[test]
    fn loads_the_derived_examples() {
        for name in ["Pulumi.aws-example.yaml", "Pulumi.do-example.yaml", "Pulumi.lke-example.yaml"] {
            let config = StackConfig::load(&fixture(&format!("stack_config/{name}"))).unwrap();
            assert!(config.contains("kubernetes:infra_type"), "{name}");
        }
    }

    #[test]
    fn secure_values_are_kept_and_recognised() {
        let config =
            StackConfig::parse(Path::new("Pulumi.dev.yaml"), "config:\n  app:token:\n    secure: AAABBB\n".into())
                .unwrap();
        assert!(config.is_secure("app:token"));
        assert_eq!(config.get_string("app:token"), None);
    }

    #[test]
    fn warns_about_version_floats() {
        let config = StackConfig::parse(
            Path::new("Pulumi.dev.yaml"),
            "config:\n  eks:k8s_version: 1.20\n  app:ratio: 0.5\n  linode:k8s_version: \"1.23\"\n".into(),
        )
        .unwrap();
        let warnings = config.float_warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(warnings[0].location.to_string(), "Pulumi.dev.yaml:2");
        assert!(warnings[0].message.contains("`1.2`"), "{}", warnings[0].message);
    }

    /// Lines come from the parser: a comment, a nested key or a value that reads like a key
    /// never stands for the key itself.
    #[test]
    fn a_key_is_placed_where_config_has_it() {
        let text = "# app:token: the old one\nconfig:\n  app:settings:\n    app:token: nested\n  \"app:token\": x\n  app:note: \"app:token: 1.5\"\n";
        let config = StackConfig::parse(Path::new("Pulumi.dev.yaml"), text.into()).unwrap();
        assert_eq!(config.location_of("app:token").to_string(), "Pulumi.dev.yaml:5");
        assert_eq!(config.location_of("app:missing").line, None);
        assert!(config.float_warnings().is_empty(), "{:?}", config.float_warnings());
    }

    #[test]
    fn invalid_yaml_names_the_line() {
        let err = StackConfig::parse(Path::new("Pulumi.dev.yaml"), "config:\n  a: [\n".into()).unwrap_err().to_string();
        assert!(err.starts_with("Pulumi.dev.yaml:"), "{err}");
    }

    #[test]
    fn config_must_be_a_mapping() {
        let err = StackConfig::parse(Path::new("Pulumi.dev.yaml"), "config: 3\n".into()).unwrap_err();
        assert_eq!(err.to_string(), "Pulumi.dev.yaml:1: `config` must be a mapping of `namespace:key: value`");
    }

    #[test]
    fn a_key_that_is_not_a_string_names_its_line() {
        let err = StackConfig::parse(Path::new("Pulumi.dev.yaml"), "config:\n  a:b: 1\n  42: x\n".into()).unwrap_err();
        assert_eq!(err.to_string(), "Pulumi.dev.yaml:3: configuration key `42` must be a string");
    }

    #[test]
    fn a_duplicate_key_names_its_second_line() {
        let err = StackConfig::parse(Path::new("Pulumi.dev.yaml"), "config:\n  a:b: 1\n  c:d: 2\n  a:b: 3\n".into())
            .unwrap_err();
        assert!(err.to_string().starts_with("Pulumi.dev.yaml:4: not valid YAML: config: duplicate entry"), "{err}");
    }

    #[test]
    fn a_second_document_names_its_line() {
        let err =
            StackConfig::parse(Path::new("Pulumi.dev.yaml"), "---\nconfig:\n  a:b: 1\n---\nx: 1\n".into()).unwrap_err();
        assert!(err.to_string().starts_with("Pulumi.dev.yaml:4: not valid YAML"), "{err}");
    }

    #[test]
    fn deep_flow_nesting_is_refused_before_parsing() {
        let text = format!("config:\n  a:b: {}\n", "[".repeat(100_000));
        let started = std::time::Instant::now();
        let err = StackConfig::parse(Path::new("Pulumi.dev.yaml"), text).unwrap_err().to_string();
        assert!(err.starts_with("Pulumi.dev.yaml:2: not valid YAML: `[` and `{` nested deeper than 128"), "{err}");
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn brackets_in_quotes_and_comments_are_not_nesting() {
        let deep = "[".repeat(200);
        let text = format!("config:\n  a:b: \"{deep}\"\n  c:d: 'it''s {deep}'\n  # {deep}\n  e:f: x # {deep}\n");
        let config = StackConfig::parse(Path::new("Pulumi.dev.yaml"), text).unwrap();
        assert_eq!(config.get_string("a:b"), Some(deep));
    }

    #[test]
    fn empty_file_is_empty_config() {
        let config = StackConfig::parse(Path::new("Pulumi.dev.yaml"), "".into()).unwrap();
        assert_eq!(config.keys().count(), 0);
    }
}
