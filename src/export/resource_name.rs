/// The operator's CEL rule on `Stack`: `size(self.metadata.name) <= 42`.
pub(super) const MAX_STACK_NAME_LEN: usize = 42;

/// Hex digits of the hash that keeps shortened names apart.
const HASH_LEN: usize = 8;

/// The Kubernetes name of one exported `Stack`, and the longer name it was shortened from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResourceName {
    pub name: String,
    /// `Some(full)` when `full` exceeded 42 characters and was shortened.
    pub shortened_from: Option<String>,
}

impl ResourceName {
    /// `<stack>-<project path>` as a DNS label (lowercase, `/` and other characters as `-`);
    /// when longer than 42 characters, its first 33 then `-` and 8 hex digits of a hash of the
    /// whole: the same input always gives the same name, and different inputs stay apart.
    pub(crate) fn for_project(stack: &str, project_path: &str) -> Self {
        let full = slug(&format!("{stack}-{project_path}"));
        if full.len() <= MAX_STACK_NAME_LEN {
            return Self { name: full, shortened_from: None };
        }
        let keep = MAX_STACK_NAME_LEN - HASH_LEN - 1;
        let head = full[..keep].trim_end_matches('-');
        let name = format!("{head}-{:08x}", fnv1a_32(full.as_bytes()));
        Self { name, shortened_from: Some(full) }
    }
}

/// Lowercase letters, digits and single `-`, starting and ending with a letter or digit.
fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let trimmed = out.trim_end_matches('-');
    if trimmed.is_empty() {
        "stack".into()
    } else {
        trimmed.to_string()
    }
}

/// FNV-1a: tiny, stable across releases and platforms, and enough to keep names apart.
fn fnv1a_32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |hash, byte| (hash ^ u32::from(*byte)).wrapping_mul(0x0100_0193))
}

/// An RFC 1123 label: what a namespace must be, and what exported names are.
pub(super) fn is_dns_label(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 63
        && text.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !text.starts_with('-')
        && !text.ends_with('-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_kept() {
        let name = ResourceName::for_project("dev", "infrastructure/aws/eks");
        assert_eq!(name.name, "dev-infrastructure-aws-eks");
        assert_eq!(name.shortened_from, None);
    }

    #[test]
    fn long_names_are_shortened_deterministically_and_stay_apart() {
        let first = ResourceName::for_project("production", "kubernetes/applications/sirius-frontend");
        let again = ResourceName::for_project("production", "kubernetes/applications/sirius-frontend");
        let other = ResourceName::for_project("production", "kubernetes/applications/sirius-frontent");
        assert_eq!(first, again);
        assert_ne!(first.name, other.name);
        assert!(first.name.len() <= MAX_STACK_NAME_LEN, "{}", first.name);
        assert!(is_dns_label(&first.name), "{}", first.name);
        assert_eq!(first.shortened_from.as_deref(), Some("production-kubernetes-applications-sirius-frontend"));
        assert!(first.name.starts_with("production-kubernetes-application-"), "{}", first.name);
    }

    #[test]
    fn odd_characters_become_dashes() {
        assert_eq!(ResourceName::for_project("Dev_1", "a/B.c//d_").name, "dev-1-a-b-c-d");
    }
}
