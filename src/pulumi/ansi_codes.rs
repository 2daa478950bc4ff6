//! Terminal escape sequences in child output: stripped before anything is stored or printed.

/// Removes ANSI escape sequences: CSI (`ESC [ ... final`, colours and cursor moves), OSC
/// (`ESC ] ... BEL` or `ESC \`, titles and links) and two-byte escapes.
pub(crate) fn strip_ansi_codes(text: &str) -> String {
    if !text.contains('\u{1b}') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                // Parameters and intermediates, then one final byte in `@`..=`~`.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_and_links_are_removed() {
        assert_eq!(strip_ansi_codes("\u{1b}[31;1merror:\u{1b}[0m boom"), "error: boom");
        assert_eq!(strip_ansi_codes("\u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{1b}\\ end"), "link end");
        assert_eq!(strip_ansi_codes("plain"), "plain");
    }
}
