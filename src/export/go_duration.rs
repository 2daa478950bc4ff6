use std::time::Duration;

/// A duration as Go's `time.ParseDuration` reads it (the operator parses
/// `succeededWithinDuration` with it): `1h30m`, `5m`, `90s`, `250ms`. Go knows no days.
pub(super) fn format_go_duration(duration: Duration) -> String {
    let mut millis = duration.as_millis();
    if millis == 0 {
        return "0s".into();
    }
    let mut text = String::new();
    for (unit, size) in [("h", 3_600_000u128), ("m", 60_000), ("s", 1_000), ("ms", 1)] {
        let count = millis / size;
        if count > 0 {
            text.push_str(&format!("{count}{unit}"));
            millis %= size;
        }
    }
    text
}

/// True when Go's `time.ParseDuration` accepts `text`: an optional sign, then one or more
/// decimal numbers each with a unit (`ns`, `us`, `µs`, `ms`, `s`, `m`, `h`), or a bare `0`.
pub(super) fn is_go_duration(text: &str) -> bool {
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    if body == "0" {
        return true;
    }
    if body.is_empty() {
        return false;
    }
    let mut rest = body;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let number = &rest[..digits];
        let valid_number = !number.is_empty()
            && number != "."
            && number.matches('.').count() <= 1
            && number.chars().any(|c| c.is_ascii_digit());
        if !valid_number {
            return false;
        }
        rest = &rest[digits..];
        let Some(unit) = ["ns", "us", "µs", "μs", "ms", "s", "m", "h"]
            .iter()
            .filter(|unit| rest.starts_with(**unit))
            .max_by_key(|unit| unit.len())
        else {
            return false;
        };
        rest = &rest[unit.len()..];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_what_go_parses() {
        for (duration, text) in [
            (Duration::from_secs(300), "5m"),
            (Duration::from_secs(5400), "1h30m"),
            (Duration::from_secs(86_400), "24h"),
            (Duration::from_millis(1_500), "1s500ms"),
            (Duration::ZERO, "0s"),
        ] {
            assert_eq!(format_go_duration(duration), text);
            assert!(is_go_duration(text), "{text}");
        }
    }

    #[test]
    fn rejects_what_go_rejects() {
        for text in ["", "300", "5", "1d", "5 m", "m", "1.2.3s", "five minutes", "1h30", "-"] {
            assert!(!is_go_duration(text), "{text}");
        }
        for text in ["0", "1.5h", "-5m", "10us", "2h45m30s", ".5s"] {
            assert!(is_go_duration(text), "{text}");
        }
    }
}
