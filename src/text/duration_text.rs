use std::time::Duration;

/// What a duration looks like, for every message that refuses one.
pub(crate) const DURATION_SHAPES: &str = "write e.g. `30s`, `5m` or `1h30m`";

/// `"30s"`, `"5m"`, `"1h30m"` as a duration. The one parser of durations a user writes, so every
/// refusal says the same thing: humantime's reasons ("expected number at 0") name a byte offset
/// of a text the user cannot see, and teach nothing about the shape wanted.
pub(crate) fn parse_duration(text: &str) -> Result<Duration, NotADuration> {
    humantime::parse_duration(text).map_err(|_| NotADuration(text.to_string()))
}

/// A text that is no duration; its message teaches the shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a duration; {DURATION_SHAPES}")]
pub(crate) struct NotADuration(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_shows_the_shape_and_no_parser_internals() {
        let shapes =
            ["", " ", "soon", "30", "5 parsecs", "1h30", "-5s", "5s!", "99999999999999999999999h", "s", "5 s x"];
        for text in shapes {
            let message = parse_duration(text).expect_err(text).to_string();
            assert_eq!(message, format!("`{text}` is not a duration; write e.g. `30s`, `5m` or `1h30m`"));
        }
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
    }
}
