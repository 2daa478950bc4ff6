//! Where the parts of a stack file are, as a YAML parser reads them (saphyr-parser's events and
//! their spans): the line of each top-level key, of each key of `config` (every time it is
//! written), of the first key a mapping repeats, of a second document, and the plain scalars
//! under `config`. Error messages and warnings take their lines from here, never from a search
//! of the text, which a nested key, a comment or a quoted key would fool.

use std::collections::{BTreeMap, HashSet};

use saphyr_parser::{Event, Parser, ScalarStyle};

/// A key of the `config` mapping: its text when it is a scalar, `None` for a key that is a
/// mapping or a sequence.
pub(crate) type ConfigKey = Option<String>;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct YamlPositions {
    /// The first document's top-level keys (scalars): the line of their first appearance.
    top_keys: BTreeMap<String, usize>,
    /// The keys of the top-level `config` mapping, in the order written, with their lines.
    config_keys: Vec<(ConfigKey, usize)>,
    /// Plain (unquoted) scalars anywhere under `config` whose parent is a mapping: the key they
    /// are the value of, the text as written, and its line.
    plain_values: Vec<(String, String, usize)>,
    /// The first key written twice in one mapping (in reading order): the key and the line of
    /// its second appearance.
    first_duplicate: Option<(String, usize)>,
    /// Where a second document starts.
    second_document: Option<usize>,
}

/// A mapping or sequence being read.
struct Frame {
    mapping: bool,
    /// For a mapping: the next node is a key.
    expecting_key: bool,
    /// For a mapping: its scalar key whose value is being read.
    key: Option<String>,
    /// Scalar keys seen so far in this mapping.
    seen: HashSet<String>,
    /// The top-level mapping of the first document.
    top: bool,
    /// The `config` mapping, or inside it.
    under_config: bool,
    /// The `config` mapping itself.
    config: bool,
}

impl YamlPositions {
    /// The positions in `text`; what the parser could read before an error (the caller reports
    /// the error itself, from serde's own parse).
    pub(crate) fn read(text: &str) -> Self {
        let mut positions = Self::default();
        let mut stack: Vec<Frame> = Vec::new();
        let mut documents = 0;
        let mut parser = Parser::new_from_str(text);
        while let Some(Ok((event, span))) = parser.next_event() {
            let line = span.start.line();
            match event {
                Event::DocumentStart(_) => {
                    documents += 1;
                    if documents == 2 && positions.second_document.is_none() {
                        positions.second_document = Some(line);
                    }
                }
                Event::Scalar(value, style, _, _) => {
                    positions.node_starts(&mut stack, Some(value.as_ref()), line);
                    if let Some(parent) = stack.last() {
                        if parent.mapping && !parent.expecting_key && parent.under_config && style == ScalarStyle::Plain
                        {
                            let key = parent.key.clone().unwrap_or_default();
                            positions.plain_values.push((key, value.to_string(), line));
                        }
                    }
                    Self::node_ends(&mut stack);
                }
                Event::Alias(_) => {
                    positions.node_starts(&mut stack, None, line);
                    Self::node_ends(&mut stack);
                }
                Event::MappingStart(..) | Event::SequenceStart(..) => {
                    let mapping = matches!(event, Event::MappingStart(..));
                    positions.node_starts(&mut stack, None, line);
                    let parent = stack.last();
                    let as_value = parent.is_some_and(|parent| parent.mapping && !parent.expecting_key);
                    let config = as_value
                        && parent.is_some_and(|parent| parent.top && parent.key.as_deref() == Some("config"))
                        && mapping;
                    let under_config = config || parent.is_some_and(|parent| parent.under_config);
                    stack.push(Frame {
                        mapping,
                        expecting_key: true,
                        key: None,
                        seen: HashSet::new(),
                        top: stack.is_empty() && documents == 1 && mapping,
                        under_config,
                        config,
                    });
                }
                Event::MappingEnd | Event::SequenceEnd => {
                    stack.pop();
                    Self::node_ends(&mut stack);
                }
                _ => {}
            }
        }
        positions
    }

    /// A node begins at `line`: when it is a key, note it (`scalar`: its text).
    fn node_starts(&mut self, stack: &mut [Frame], scalar: Option<&str>, line: usize) {
        let Some(parent) = stack.last_mut() else { return };
        if !(parent.mapping && parent.expecting_key) {
            return;
        }
        parent.key = scalar.map(str::to_string);
        if let Some(key) = scalar {
            if !parent.seen.insert(key.to_string()) && self.first_duplicate.is_none() {
                self.first_duplicate = Some((key.to_string(), line));
            }
            if parent.top {
                self.top_keys.entry(key.to_string()).or_insert(line);
            }
        }
        if parent.config {
            self.config_keys.push((scalar.map(str::to_string), line));
        }
    }

    /// A node ended: its parent mapping now expects a value after a key, a key after a value.
    fn node_ends(stack: &mut [Frame]) {
        if let Some(parent) = stack.last_mut() {
            if parent.mapping {
                parent.expecting_key = !parent.expecting_key;
            }
        }
    }

    /// The line of top-level key `key`.
    pub(crate) fn top_key(&self, key: &str) -> Option<usize> {
        self.top_keys.get(key).copied()
    }

    /// The first line where `config` has the key `key`.
    pub(crate) fn config_key(&self, key: &str) -> Option<usize> {
        self.config_keys.iter().find(|(written, _)| written.as_deref() == Some(key)).map(|(_, line)| *line)
    }

    /// The first key of `config` that is not a scalar: its line.
    pub(crate) fn first_composite_config_key(&self) -> Option<usize> {
        self.config_keys.iter().find(|(written, _)| written.is_none()).map(|(_, line)| *line)
    }

    /// Where `key` is written the second time in one mapping, if it is the first such key.
    pub(crate) fn duplicate_of(&self, key: &str) -> Option<usize> {
        self.first_duplicate.as_ref().filter(|(written, _)| written == key).map(|(_, line)| *line)
    }

    pub(crate) fn second_document(&self) -> Option<usize> {
        self.second_document
    }

    /// Plain scalars under `config`: (the key they are the value of, the text, the line).
    pub(crate) fn plain_values(&self) -> &[(String, String, usize)] {
        &self.plain_values
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_found_where_the_parser_reads_them_not_where_the_text_looks_alike() {
        let text = "# config: in a comment\n\
                    other:\n  config: nested, not the top one\n  \"a:b\": nested too\n\
                    config:\n  \"a:b\": 1\n  c:d:\n    a:b: nested value\n  ? [composite]\n  : x\n";
        let positions = YamlPositions::read(text);
        assert_eq!(positions.top_key("other"), Some(2));
        assert_eq!(positions.top_key("config"), Some(5));
        assert_eq!(positions.config_key("a:b"), Some(6), "the quoted key of `config`, not the nested ones");
        assert_eq!(positions.config_key("c:d"), Some(7));
        assert_eq!(positions.config_key("x"), None);
        assert_eq!(positions.first_composite_config_key(), Some(9));
        assert_eq!(positions.duplicate_of("a:b"), None, "one per mapping is no duplicate");
    }

    #[test]
    fn the_first_repeated_key_and_a_second_document_are_placed() {
        let positions = YamlPositions::read("config:\n  a:b: 1\n  c:d: {x: 1, x: 2}\n  a:b: 3\n");
        assert_eq!(positions.duplicate_of("x"), Some(3), "inside a flow mapping, in reading order");
        assert_eq!(positions.duplicate_of("a:b"), None, "only the first repeat is kept");
        let positions = YamlPositions::read("---\nconfig:\n  a:b: 1\n---\nx: 1\n");
        assert_eq!(positions.second_document(), Some(4));
        assert_eq!(YamlPositions::read("config: {}\n").second_document(), None);
    }

    #[test]
    fn plain_values_under_config_keep_their_key_text_and_line() {
        let text = "version: 1.20\nconfig:\n  eks:k8s_version: 1.20\n  app:name: \"1.30\"\n  app:nested:\n    version: 2.10\n    list: [1.5]\n  app:block: |\n    1.40\n";
        let values = YamlPositions::read(text).plain_values().to_vec();
        assert_eq!(
            values,
            [("eks:k8s_version".to_string(), "1.20".to_string(), 3), ("version".into(), "2.10".into(), 6)],
            "quoted, block, sequence items and what is outside `config` are not plain values of a key"
        );
    }

    #[test]
    fn text_the_parser_refuses_gives_what_it_read_before() {
        let positions = YamlPositions::read("config:\n  a:b: 1\n  c:d: [\n");
        assert_eq!(positions.config_key("a:b"), Some(2));
        assert_eq!(YamlPositions::read(""), YamlPositions::default());
    }
}
