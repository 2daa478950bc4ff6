/// `1 project`, `2 projects`, `0 projects`: the noun agrees with the count.
pub fn counted(count: usize, singular: &str) -> String {
    counted_as(count, singular, &format!("{singular}s"))
}

/// [`counted`] for nouns whose plural is not an added `s` (`1 wave`, but `2 processes`).
pub fn counted_as(count: usize, singular: &str, plural: &str) -> String {
    format!("{count} {}", if count == 1 { singular } else { plural })
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
}
