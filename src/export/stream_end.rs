/// The last line of every stream `runner export pko` writes: a YAML comment (so `kubectl` reads
/// past it) counting the documents before it. A stream cut short (a full disk, a dropped
/// connection) lacks it, or holds fewer documents than it counts, and `runner export check`
/// refuses it. Counting documents rather than bytes lets a person fill the placeholders in.
pub(crate) struct StreamEnd;

const PREFIX: &str = "# end of runner export: ";

/// How a stream is not whole.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StreamCut {
    #[error("the stream does not end with `{expected}`: it was cut short, or not written by `runner export pko`")]
    NoEndLine { expected: String },
    #[error("the stream holds {} but its end line counts {counted}: part of it is missing", crate::text::counted(*.documents, "document"))]
    Missing { documents: usize, counted: usize },
    #[error("the end line `{0}` does not count the documents")]
    Uncounted(String),
}

impl StreamEnd {
    pub(crate) fn line(documents: usize) -> String {
        format!("{PREFIX}{}\n", crate::text::counted(documents, "document"))
    }

    /// `Err` with the reason when `text` is not whole: no end line, or another document count.
    pub(crate) fn check(text: &str, documents: usize) -> std::result::Result<(), StreamCut> {
        let last = text.trim_end().lines().last().unwrap_or_default();
        let Some(counted) = last.strip_prefix(PREFIX) else {
            return Err(StreamCut::NoEndLine { expected: Self::line(documents).trim_end().to_string() });
        };
        // The noun agrees with the count, so a line cut inside `documents` is no end line; the
        // older form `1 documents` still reads.
        let counted = counted.split_once(' ').and_then(|(count, noun)| {
            let count = count.parse::<usize>().ok()?;
            (noun == "documents" || (count == 1 && noun == "document")).then_some(count)
        });
        match counted {
            Some(counted) if counted == documents => Ok(()),
            Some(counted) => Err(StreamCut::Missing { documents, counted }),
            None => Err(StreamCut::Uncounted(last.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_stream_passes_and_every_cut_is_refused() {
        let documents = ["---\na: 1\n", "---\nb: |\n  two\n  lines\n", "---\nc: 3\n"];
        let whole = format!("# header\n{}{}", documents.concat(), StreamEnd::line(3));
        assert!(StreamEnd::check(&whole, 3).is_ok());
        // One document is counted in the singular; an end line of the older `1 documents` form still reads.
        assert_eq!(StreamEnd::line(1), "# end of runner export: 1 document\n");
        assert!(StreamEnd::check(&format!("---\na: 1\n{}", StreamEnd::line(1)), 1).is_ok());
        assert!(StreamEnd::check("---\na: 1\n# end of runner export: 1 documents\n", 1).is_ok());
        for cut in 0..whole.len() - 1 {
            let text = &whole[..cut];
            // Stopping at the first error, as `export check` does.
            let mut count = 0;
            for document in serde_norway::Deserializer::from_str(text) {
                if <serde_norway::Value as serde::Deserialize>::deserialize(document).is_err() {
                    break;
                }
                count += 1;
            }
            assert!(StreamEnd::check(text, count).is_err(), "cut at {cut} passed: {text:?}");
        }
        assert!(StreamEnd::check(&whole, 2)
            .unwrap_err()
            .to_string()
            .contains("holds 2 documents but its end line counts 3"));
    }
}
