use console::measure_text_width;

const ELLIPSIS: char = '…';

/// `text` in at most `width` columns, cut in the middle so both ends stay readable: a stack's
/// organization and name, a path's first folder and project.
pub(crate) fn fit_middle(text: &str, width: usize) -> String {
    if measure_text_width(text) <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let chars: Vec<char> = console::strip_ansi_codes(text).chars().collect();
    let keep = width - 1;
    let tail = keep / 2;
    let head = keep - tail;
    let mut out: String = take_columns(chars.iter().copied(), head);
    out.push(ELLIPSIS);
    let end: String = take_columns(chars.iter().rev().copied(), tail).chars().rev().collect();
    out.push_str(&end);
    out
}

/// A reason or an error in at most `width` columns: cut at its end, after the last whole part
/// or word that fits (`dependency kubernetes/certmgr…`), never in the middle, where the cut
/// removes what the words are about (a stack's name, a project, a run id).
pub(crate) fn fit_reason(text: &str, width: usize) -> String {
    fit_words(text, width)
}

/// `text` in at most `width` columns, cut after its last whole part (`3 created, 1 updated…`)
/// or word that fits, never inside a word while a whole one fits.
pub(crate) fn fit_words(text: &str, width: usize) -> String {
    if measure_text_width(text) <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let plain = console::strip_ansi_codes(text);
    let start = take_columns(plain.chars(), width - 1);
    let rest = &plain[start.len()..];
    // Whole parts (`3 created, 1 updated`) read better than a part cut after a word.
    let part_end = format!("{start}{}", rest.chars().next().unwrap_or(' '));
    let words = match (part_end.rfind([',', ';', ':']), start.rfind(' ')) {
        (Some(separator), _) if separator > 0 => &start[..separator.min(start.len())],
        _ if rest.starts_with(' ') => start.as_str(),
        (_, Some(space)) => &start[..space],
        _ => start.as_str(),
    };
    let words = words.trim_end_matches([' ', ',', ';', ':']);
    let kept = if words.is_empty() { start.as_str() } else { words };
    format!("{kept}{ELLIPSIS}")
}

/// A project path in at most `width` columns: cut at a folder boundary when one fits, keeping
/// the last component whole (`kubernetes/…/demo`), else in the middle.
pub(crate) fn fit_path(path: &str, width: usize) -> String {
    if measure_text_width(path) <= width {
        return path.to_string();
    }
    if let (Some((first, _)), Some((_, last))) = (path.split_once('/'), path.rsplit_once('/')) {
        let shortened = format!("{first}/{ELLIPSIS}/{last}");
        if measure_text_width(&shortened) <= width {
            return shortened;
        }
    }
    fit_middle(path, width)
}

/// The first characters of `chars` that fit in `columns`.
fn take_columns(chars: impl Iterator<Item = char>, columns: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in chars {
        let w = measure_text_width(c.encode_utf8(&mut [0; 4]));
        if used + w > columns {
            break;
        }
        used += w;
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_left_alone() {
        assert_eq!(fit_middle("creating stack", 40), "creating stack");
        assert_eq!(fit_path("a/b", 3), "a/b");
    }

    #[test]
    fn long_text_keeps_both_ends() {
        let fitted = fit_middle("creating stack `organization/local-registry/dev`", 30);
        assert_eq!(measure_text_width(&fitted), 30);
        assert!(fitted.starts_with("creating stack"), "{fitted}");
        assert!(fitted.ends_with("registry/dev`"), "{fitted}");
        assert!(fitted.contains('…'));
    }

    #[test]
    fn paths_are_cut_at_folders_first() {
        assert_eq!(fit_path("kubernetes/applications/demo", 20), "kubernetes/…/demo");
        let tiny = fit_path("kubernetes/applications/demo", 8);
        assert_eq!(measure_text_width(&tiny), 8);
    }

    #[test]
    fn a_short_room_keeps_the_reasons_first_words() {
        assert_eq!(fit_reason("not started: the run was interrupted", 20), "not started…");
        assert_eq!(fit_reason("3 created, 1 updated, 20 unchanged", 14), "3 created…");
        assert_eq!(fit_reason("3 created, 1 updated, 20 unchanged", 21), "3 created, 1 updated…");
        assert_eq!(fit_reason("waiting for the cluster to answer", 20), "waiting for the…");
        assert_eq!(fit_reason("not started: the run was interrupted", 13), "not started…");
        assert_eq!(fit_reason("2 unchanged", 11), "2 unchanged");
        assert_eq!(fit_reason("unreachable", 6), "unrea…");
        let long = "error: creating EC2 VPC: VpcLimitExceeded: the maximum number of VPCs has been reached";
        assert_eq!(
            fit_reason(long, 45),
            "error: creating EC2 VPC: VpcLimitExceeded…",
            "cut at its end, never in the middle"
        );
        let stack = "stack `organization/local-network/dev` does not exist: never deployed, or removed";
        assert_eq!(
            fit_reason(stack, 60),
            "stack `organization/local-network/dev` does not exist…",
            "the stack name stays whole"
        );
    }

    #[test]
    fn never_panics_on_any_width_or_text() {
        for width in 0..12 {
            for text in ["", "é", "日本語のテキスト", "a/b/c/d", "\u{1b}[32mgreen\u{1b}[0m text"] {
                let fitted = fit_middle(text, width);
                assert!(measure_text_width(&fitted) <= width, "{text:?} at {width}: {fitted:?}");
                assert!(measure_text_width(&fit_path(text, width)) <= width);
                assert!(measure_text_width(&fit_reason(text, width)) <= width, "{text:?} at {width}");
            }
        }
    }
}
