/// `1 project`, `2 projects`, `0 projects`: the noun agrees with the count.
pub(crate) fn counted(count: usize, singular: &str) -> String {
    counted_as(count, singular, &format!("{singular}s"))
}

/// [`counted`] for nouns whose plural is not an added `s` (`1 wave`, but `2 processes`).
pub(crate) fn counted_as(count: usize, singular: &str, plural: &str) -> String {
    format!("{count} {}", if count == 1 { singular } else { plural })
}

/// `3 created, 1 updated`: each count with its word, leaving out the zeros, in the order given.
pub(crate) fn nonzero_counts(counts: &[(u64, &str)]) -> String {
    let parts: Vec<String> =
        counts.iter().filter(|(count, _)| *count > 0).map(|(count, word)| format!("{count} {word}")).collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(counted(1, "project"), "1 project");
        assert_eq!(counted(0, "project"), "0 projects");
        assert_eq!(counted(6, "wave"), "6 waves");
        assert_eq!(counted_as(2, "process", "processes"), "2 processes");
    }

    #[test]
    fn zero_counts_are_left_out() {
        assert_eq!(nonzero_counts(&[(3, "created"), (0, "updated"), (1, "deleted")]), "3 created, 1 deleted");
        assert_eq!(nonzero_counts(&[(0, "created")]), "");
    }
}
