/// Breaks `text` at spaces into lines of at most `width` characters: the first after `first`,
/// the rest after `rest` (the tree's own lines, so they continue on every wrapped line).
/// A word longer than a line (a project path) stays whole: a path cut in two could not be
/// copied into `--only`.
pub(crate) fn word_wrap(text: &str, first: &str, rest: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split(' ').filter(|word| !word.is_empty()) {
        if !empty && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(line);
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    lines.push(line);
    lines
}

#[cfg(test)]
mod tests {
    use super::word_wrap;

    #[test]
    fn lines_break_at_spaces_with_their_prefixes() {
        assert_eq!(word_wrap("after a, b, c", "│ ", "│   ", 10), ["│ after a,", "│   b, c"]);
    }

    #[test]
    fn a_word_longer_than_the_line_stays_whole() {
        assert_eq!(word_wrap("after kubernetes/applications", "", "  ", 10), ["after", "  kubernetes/applications"]);
    }

    #[test]
    fn width_counts_characters_not_bytes() {
        assert_eq!(word_wrap("ab cd", "│││", "│││", 8), ["│││ab cd"]);
    }
}
