use std::path::Path;

use crate::error::Location;

/// Where each line of a text starts, so that a byte offset from a parser (a TOML span, the end of
/// valid UTF-8, a scanner's position) becomes the `line:column` a user can open. Built once per
/// file: each lookup is a binary search, so thousands of errors or spans stay linear overall.
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a [u8],
    /// Byte offset of every `\n`.
    newlines: Vec<usize>,
}

/// A 1-based line and column; the column counts characters, as editors do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextPosition {
    pub line: usize,
    pub column: usize,
}

impl<'a> LineIndex<'a> {
    /// Takes bytes, not `str`: a file that is not valid UTF-8 still has lines.
    pub fn new(text: &'a (impl AsRef<[u8]> + ?Sized)) -> Self {
        let text = text.as_ref();
        let newlines = text.iter().enumerate().filter(|(_, byte)| **byte == b'\n').map(|(at, _)| at).collect();
        Self { text, newlines }
    }

    /// The 1-based line holding `offset`; an offset past the end is on the last line.
    pub fn line(&self, offset: usize) -> usize {
        1 + self.newlines.partition_point(|&newline| newline < offset.min(self.text.len()))
    }

    pub fn position(&self, offset: usize) -> TextPosition {
        let offset = offset.min(self.text.len());
        let line = self.line(offset);
        let line_start = if line == 1 { 0 } else { self.newlines[line - 2] + 1 };
        let column = 1 + String::from_utf8_lossy(&self.text[line_start..offset]).chars().count();
        TextPosition { line, column }
    }

    /// `path:line` of `offset`, for a `UserError`.
    pub fn location(&self, path: &Path, offset: usize) -> Location {
        Location::line(path, self.line(offset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_lines_and_columns() {
        let index = LineIndex::new("ab\ncdé\n\nx");
        assert_eq!(index.position(0), TextPosition { line: 1, column: 1 });
        assert_eq!(index.position(2), TextPosition { line: 1, column: 3 }, "the newline ends its own line");
        assert_eq!(index.position(3), TextPosition { line: 2, column: 1 });
        assert_eq!(index.position(7), TextPosition { line: 2, column: 4 }, "`é` is one column, two bytes");
        assert_eq!(index.position(8), TextPosition { line: 3, column: 1 });
        assert_eq!(index.position(9), TextPosition { line: 4, column: 1 });
        assert_eq!(index.line(1000), 4, "past the end is the last line");
    }

    #[test]
    fn empty_text_and_invalid_utf8_have_lines() {
        assert_eq!(LineIndex::new("").line(0), 1);
        let bytes = b"a\n\xff\xfe\nb";
        let index = LineIndex::new(bytes);
        assert_eq!(index.line(3), 2);
        assert_eq!(index.position(5).line, 3);
    }

    #[test]
    fn a_location_names_the_file_and_line() {
        let index = LineIndex::new("one\ntwo\n");
        assert_eq!(index.location(Path::new("providers/aws.toml"), 5).to_string(), "providers/aws.toml:2");
    }
}
