use std::path::Path;

use serde_norway::{Mapping, Value};

use super::StackConfig;
use crate::error::{Location, Result, UserError};

/// A stack file's text with values added under `config:`, every line the user wrote kept as
/// written (indentation, comments, key order, quoting, line ends, document markers).
///
/// The edit is a line edit, so it can be wrong for shapes it does not know; whatever it produced
/// is therefore parsed again and accepted only when every value the file held before is still
/// there, unchanged, and each new key holds its new value. Anything else is refused, naming the
/// file and line, before a byte is written.
pub struct StackConfigEdit<'a> {
    path: &'a Path,
    text: &'a str,
    lines: Vec<&'a str>,
    newline: &'static str,
}

/// Where the `config:` key is and what follows its colon.
struct ConfigLine<'a> {
    index: usize,
    /// The line up to and including the colon.
    head: &'a str,
    /// The value written on the line, without its comment.
    value: &'a str,
    /// ` # ...` after the value, or empty.
    comment: &'a str,
}

impl<'a> StackConfigEdit<'a> {
    pub fn new(path: &'a Path, text: &'a str) -> Self {
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        Self { path, text, lines: text.split_inclusive('\n').collect(), newline }
    }

    /// The new text, or an error naming the file and line when it cannot be written safely.
    pub fn add(&self, values: &[(String, String)]) -> Result<String> {
        // The same checks a run makes on the file, with the same messages.
        StackConfig::parse(self.path, self.text.to_string())?;
        let before: Value = if self.text.trim().is_empty() {
            Value::Null
        } else {
            serde_norway::from_str(self.text).unwrap_or(Value::Null)
        };
        let top = match &before {
            Value::Mapping(top) => top.clone(),
            _ => Mapping::new(),
        };
        let config = match top.get("config") {
            Some(Value::Mapping(config)) => Some(config.clone()),
            Some(_) => Some(Mapping::new()),
            None => None,
        };
        let edited = self.edit(config.as_ref(), values)?;
        let mut expected = top;
        let mut expected_config = config.unwrap_or_default();
        for (key, value) in values {
            expected_config.insert(key.as_str().into(), value.as_str().into());
        }
        expected.insert("config".into(), Value::Mapping(expected_config));
        self.verify(&expected, &edited)?;
        Ok(edited)
    }

    /// The file with `line` (one top-level `key: value`, such as Pulumi's `encryptionsalt:`)
    /// added before its first key, after any leading comments and `---`; refused like [`Self::add`].
    pub fn add_top_level_line(&self, line: &str) -> Result<String> {
        StackConfig::parse(self.path, self.text.to_string())?;
        let Ok(Value::Mapping(added)) = serde_norway::from_str::<Value>(line) else {
            return Err(self.refuse(0, "the line to add is not one `key: value`"));
        };
        let mut expected = match serde_norway::from_str::<Value>(self.text) {
            Ok(Value::Mapping(top)) => top,
            _ => Mapping::new(),
        };
        for (key, value) in added {
            if expected.insert(key, value).is_some() {
                return Err(self.refuse(0, "the key is already there"));
            }
        }
        let content = self.content_lines()?;
        let at = content.first().copied().unwrap_or(self.lines.len());
        let mut edited: String = self.lines[..at].concat();
        if !edited.is_empty() && !edited.ends_with('\n') {
            edited.push_str(self.newline);
        }
        edited.push_str(line.trim_end_matches(['\n', '\r']));
        edited.push_str(self.newline);
        edited.push_str(&self.lines[at..].concat());
        self.verify(&expected, &edited)?;
        Ok(edited)
    }

    fn edit(&self, config: Option<&Mapping>, values: &[(String, String)]) -> Result<String> {
        let content = self.content_lines()?;
        let top_indent = content.first().map(|&index| indent(self.lines[index])).unwrap_or(0);
        if let Some(&first) = content.first() {
            let trimmed = self.lines[first].trim_start();
            if trimmed.starts_with('{') || trimmed.starts_with('[') {
                return Err(self.refuse(first, "the file is one flow mapping (`{...}`): add the key by hand"));
            }
        }
        let config_lines: Vec<usize> = content
            .iter()
            .copied()
            .filter(|&index| indent(self.lines[index]) == top_indent && self.config_line(index).is_some())
            .collect();
        let Some(config) = config else {
            if let Some(&index) = config_lines.first() {
                return Err(self.refuse(index, "a `config:` line that YAML does not read as the `config` key"));
            }
            return Ok(self.append_config_block(top_indent, values));
        };
        let [index] = config_lines[..] else {
            let line = config_lines.get(1).or(content.first()).copied().unwrap_or(0);
            return Err(self.refuse(line, "cannot tell which line holds the `config` key"));
        };
        let line = self.config_line(index).expect("filtered above");
        if line.value.starts_with('{') {
            return self.add_to_flow_mapping(&line, values);
        }
        if !matches!(line.value, "" | "~" | "null" | "Null" | "NULL") || (!line.value.is_empty() && !config.is_empty())
        {
            return Err(
                self.refuse(index, "`config:` is written in a form the runner cannot extend: add the key by hand")
            );
        }
        self.add_to_block(&line, top_indent, config, values)
    }

    /// Indices of lines holding YAML content: not blank, not comments, not document markers.
    fn content_lines(&self) -> Result<Vec<usize>> {
        let mut content = Vec::new();
        for (index, line) in self.lines.iter().enumerate() {
            let trimmed = line.trim();
            let trimmed = trimmed.strip_prefix('\u{feff}').unwrap_or(trimmed);
            if trimmed.is_empty() || trimmed.starts_with('#') || (trimmed.starts_with('%') && content.is_empty()) {
                continue;
            }
            if let Some(rest) = trimmed.strip_prefix("---").or_else(|| trimmed.strip_prefix("...")) {
                if indent(line) == 0 && (rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
                    let rest = rest.trim();
                    if !rest.is_empty() && !rest.starts_with('#') {
                        return Err(self.refuse(index, "content on the `---` line: add the key by hand"));
                    }
                    continue;
                }
            }
            if line.starts_with('\t') {
                return Err(self.refuse(index, "a tab indents this line"));
            }
            content.push(index);
        }
        Ok(content)
    }

    fn config_line(&self, index: usize) -> Option<ConfigLine<'a>> {
        let line = self.lines[index].trim_end_matches(['\n', '\r']);
        let start = indent(line);
        let after = ["config", "\"config\"", "'config'"].iter().find_map(|key| line[start..].strip_prefix(key))?;
        let spaces = after.len() - after.trim_start_matches(' ').len();
        let rest = after[spaces..].strip_prefix(':')?;
        if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
            return None;
        }
        let head = &line[..line.len() - rest.len()];
        let (value, comment) = match rest.find(" #").or_else(|| rest.find("\t#")) {
            Some(at) => (rest[..at].trim(), &rest[at..]),
            None => (rest.trim(), ""),
        };
        Some(ConfigLine { index, head, value, comment })
    }

    fn append_config_block(&self, top_indent: usize, values: &[(String, String)]) -> String {
        // Before a closing `...`, which ends the document.
        let at = self.lines.iter().rposition(|line| line.trim_end() == "...").unwrap_or(self.lines.len());
        let mut out: String = self.lines[..at].concat();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(self.newline);
        }
        out.push_str(&" ".repeat(top_indent));
        out.push_str("config:");
        out.push_str(self.newline);
        let child = top_indent + self.indent_unit(top_indent);
        for (key, value) in values {
            out.push_str(&block_entry(child, key, value, self.newline));
        }
        out.push_str(&self.lines[at..].concat());
        out
    }

    fn add_to_block(
        &self,
        line: &ConfigLine<'_>,
        top_indent: usize,
        config: &Mapping,
        values: &[(String, String)],
    ) -> Result<String> {
        let block_end = (line.index + 1..self.lines.len())
            .find(|&index| {
                let text = self.lines[index];
                let trimmed = text.trim();
                !trimmed.is_empty() && !trimmed.starts_with('#') && indent(text) <= top_indent
            })
            .unwrap_or(self.lines.len());
        let last = (line.index + 1..block_end)
            .rev()
            .find(|&index| !self.lines[index].trim().is_empty() && indent(self.lines[index]) > top_indent)
            .unwrap_or(line.index);
        let first_entry = (line.index + 1..block_end).find(|&index| {
            let trimmed = self.lines[index].trim();
            !trimmed.is_empty() && !trimmed.starts_with('#')
        });
        let child = match first_entry {
            Some(index) => indent(self.lines[index]),
            None => top_indent + self.indent_unit(top_indent),
        };
        let mut lines: Vec<String> = self.lines.iter().map(|line| line.to_string()).collect();
        if !line.value.is_empty() {
            // `config: ~` becomes `config:`, its comment kept.
            let ending = &self.lines[line.index][self.lines[line.index].trim_end_matches(['\n', '\r']).len()..];
            lines[line.index] = format!("{}{}{ending}", line.head, line.comment);
        }
        let mut added = String::new();
        for (key, value) in values {
            match config.get(key.as_str()) {
                Some(Value::Null) => {
                    let index = (line.index + 1..block_end)
                        .find(|&index| {
                            indent(self.lines[index]) == child && null_entry(self.lines[index], key).is_some()
                        })
                        .ok_or_else(|| self.refuse(line.index, &format!("cannot find the line of `{key}`")))?;
                    let (head, ending) = null_entry(self.lines[index], key).expect("found above");
                    lines[index] = format!("{head} {}{ending}", inline_scalar(value));
                }
                _ => added.push_str(&block_entry(child, key, value, self.newline)),
            }
        }
        if !lines[last].ends_with('\n') {
            lines[last].push_str(self.newline);
        }
        lines[last].push_str(&added);
        Ok(lines.concat())
    }

    fn add_to_flow_mapping(&self, line: &ConfigLine<'_>, values: &[(String, String)]) -> Result<String> {
        let Some(close) = closing_brace(line.value) else {
            return Err(
                self.refuse(line.index, "`config:` holds a flow mapping over several lines: add the key by hand")
            );
        };
        if !line.value[close + 1..].trim().is_empty() {
            return Err(self.refuse(line.index, "`config:` is written in a form the runner cannot extend"));
        }
        let inner = &line.value[1..close];
        let entries: Vec<String> =
            values.iter().map(|(key, value)| format!("{}: {}", json_string(key), json_string(value))).collect();
        let kept = inner.trim_end();
        let separator = if kept.trim().is_empty() || kept.ends_with(',') { "" } else { ", " };
        let space = if kept.trim().is_empty() || !kept.ends_with(',') { "" } else { " " };
        let rewritten = format!("{{{kept}{separator}{space}{}{}}}", entries.join(", "), &inner[kept.len()..]);
        let original = self.lines[line.index];
        let at = original.find(line.value).expect("the value is part of its line");
        let mut out: String = self.lines[..line.index].concat();
        out.push_str(&original[..at]);
        out.push_str(&rewritten);
        out.push_str(&original[at + line.value.len()..]);
        out.push_str(&self.lines[line.index + 1..].concat());
        Ok(out)
    }

    /// The file's own indentation step: the smallest indent deeper than the top level.
    fn indent_unit(&self, top_indent: usize) -> usize {
        self.lines
            .iter()
            .filter(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
            .map(|line| indent(line))
            .filter(|&width| width > top_indent)
            .min()
            .map_or(2, |width| width - top_indent)
    }

    /// The invariant of every edit, in one place: the edited text is a valid stack file that
    /// holds exactly `expected` (everything the file held, and the new values), else the edit is
    /// refused and nothing is written.
    fn verify(&self, expected: &Mapping, edited: &str) -> Result<()> {
        let at = self.lines.iter().position(|line| line.trim_start().starts_with("config")).unwrap_or(0);
        let changed = |what: String| self.refuse(at, &format!("the edit would {what}: make it by hand"));
        if StackConfig::parse(self.path, edited.to_string()).is_err() {
            return Err(changed("leave the file invalid".into()));
        }
        let Ok(Value::Mapping(after)) = serde_norway::from_str::<Value>(edited) else {
            return Err(changed("leave the file without a mapping".into()));
        };
        let name = |key: &Value| key.as_str().unwrap_or("a key").to_string();
        for (key, value) in expected {
            match (value, after.get(key)) {
                (Value::Mapping(inner), Some(Value::Mapping(now))) => {
                    if let Some((key, _)) = inner.iter().find(|(key, value)| now.get(*key) != Some(*value)) {
                        return Err(changed(format!("change `{}`", name(key))));
                    }
                    if now.len() != inner.len() {
                        return Err(changed(format!("add other keys under `{}`", name(key))));
                    }
                }
                (value, now) if now != Some(value) => return Err(changed(format!("change `{}`", name(key)))),
                _ => {}
            }
        }
        if after.len() != expected.len() {
            return Err(changed("add other keys".into()));
        }
        Ok(())
    }

    fn refuse(&self, index: usize, message: &str) -> UserError {
        let line = if self.lines.is_empty() { None } else { Some(index + 1) };
        UserError::InvalidFile {
            location: Location { path: self.path.to_path_buf(), line },
            message: format!("cannot edit this stack file safely: {message}"),
        }
    }
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// `key:` (or `key: ~`, `key: null`) as written, split into the text up to the colon and the line end.
fn null_entry<'l>(line: &'l str, key: &str) -> Option<(&'l str, &'l str)> {
    let body = line.trim_end_matches(['\n', '\r']);
    let ending = &line[body.len()..];
    let start = indent(body);
    let quoted = [key.to_string(), format!("\"{key}\""), format!("'{key}'")];
    let rest = quoted.iter().find_map(|written| body[start..].strip_prefix(written.as_str()))?;
    let rest = rest.trim_start_matches(' ').strip_prefix(':')?;
    let value = rest.split(" #").next().unwrap_or_default().trim();
    if !matches!(value, "" | "~" | "null" | "Null" | "NULL") || rest.contains(" #") {
        return None;
    }
    Some((&body[..body.len() - rest.len()], ending))
}

/// One `key: value` line at `indent`, in the quoting YAML needs.
fn block_entry(indent: usize, key: &str, value: &str, newline: &str) -> String {
    format!("{}{}: {}{newline}", " ".repeat(indent), inline_scalar(key), inline_scalar(value))
}

/// A string as one line of YAML: serde_norway's choice of quoting, or a JSON string (which YAML
/// reads as a double-quoted scalar) when that would span lines.
fn inline_scalar(text: &str) -> String {
    match serde_norway::to_string(&Value::String(text.to_string())) {
        Ok(rendered) if rendered.ends_with('\n') && !rendered.trim_end_matches('\n').contains('\n') => {
            rendered.trim_end_matches('\n').to_string()
        }
        _ => json_string(text),
    }
}

fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string always serializes")
}

/// The offset of the `}` closing the `{` that starts `text`, skipping quoted scalars.
fn closing_brace(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut chars = text.char_indices();
    while let Some((offset, c)) = chars.next() {
        match (quote, c) {
            (Some('"'), '\\') => {
                chars.next();
            }
            (Some(open), _) if c == open => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '{' | '[') => depth += 1,
            (None, '}' | ']') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(offset);
                }
            }
            _ => {}
        }
    }
    None
}
