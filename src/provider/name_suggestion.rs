//! What a user probably meant: a name near one that is known.

/// serde's `unknown field `depend_on`, expected one of `path`, ...` with `did you mean
/// `depends_on`?` where one known field is near.
pub(super) fn with_suggestion(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else { return message.to_string() };
    let Some((field, expected)) = rest.split_once("`, expected one of ") else { return message.to_string() };
    let known: Vec<String> = expected.split(", ").map(|name| name.trim_matches('`').to_string()).collect();
    match nearest_name(field, &known) {
        Some(near) => format!("unknown field `{field}` (did you mean `{near}`?), expected one of {expected}"),
        None => message.to_string(),
    }
}

pub fn nearest_name(name: &str, known: &[String]) -> Option<String> {
    // `certmgr` for `kubernetes/certmgr`: the last part of one project path only.
    let tail = format!("/{}", name.trim_start_matches('/'));
    let mut by_tail = known.iter().filter(|candidate| candidate.ends_with(&tail));
    if let (Some(only), None) = (by_tail.next(), by_tail.next()) {
        return Some(only.clone());
    }
    known
        .iter()
        .map(|candidate| (strsim::levenshtein(name, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= (candidate.len().max(name.len()) / 3).max(2))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_field_or_a_project_by_its_last_part_is_suggested() {
        let known: Vec<String> =
            ["infrastructure/cluster", "kubernetes/certmgr", "kubernetes/certmgr-crds"].map(String::from).to_vec();
        assert_eq!(nearest_name("certmgr", &known).as_deref(), Some("kubernetes/certmgr"));
        assert_eq!(nearest_name("kubernetes/certmg", &known).as_deref(), Some("kubernetes/certmgr"));
        assert_eq!(nearest_name("zzz", &known), None);
        let message = "unknown field `depend_on`, expected one of `path`, `depends_on`, `phase`";
        assert_eq!(
            with_suggestion(message),
            "unknown field `depend_on` (did you mean `depends_on`?), expected one of `path`, `depends_on`, `phase`"
        );
        assert_eq!(
            with_suggestion("unknown field `zzzzzz`, expected one of `path`"),
            "unknown field `zzzzzz`, expected one of `path`"
        );
        assert_eq!(with_suggestion("invalid type"), "invalid type");
    }
}
