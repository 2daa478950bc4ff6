//! The shipped MARA provider definitions, compiled into the binary so that `runner` works inside
//! an unchanged MARA checkout, which has no `providers/` folder.

/// `(name, text)` of every built-in provider: the repository's own files, verbatim.
pub(super) const BUILTIN_PROVIDERS: &[(&str, &str)] = &[
    ("aws", include_str!("../../providers/aws.toml")),
    ("digitalocean", include_str!("../../providers/digitalocean.toml")),
    ("linode", include_str!("../../providers/linode.toml")),
];

/// `(name, text)` of every built-in shared set (`extends = "..."`).
pub(super) const BUILTIN_SETS: &[(&str, &str)] =
    &[("kubernetes", include_str!("../../providers/common/kubernetes.toml"))];

pub(super) fn builtin_provider(name: &str) -> Option<&'static str> {
    BUILTIN_PROVIDERS.iter().find(|(known, _)| *known == name).map(|(_, text)| *text)
}

pub(super) fn builtin_set(name: &str) -> Option<&'static str> {
    BUILTIN_SETS.iter().find(|(known, _)| *known == name).map(|(_, text)| *text)
}

/// How a built-in definition is named in messages, where a file would give its path.
pub(super) fn builtin_label(relative: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(format!("(built-in) providers/{relative}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_provider_names_mara_s_secrets_project() {
        for (name, text) in BUILTIN_PROVIDERS {
            assert!(text.contains("secrets_project = \"kubernetes/secrets\""), "{name}");
            assert!(text.contains("extends = \"kubernetes\""), "{name}");
        }
        assert!(builtin_set("kubernetes").is_some());
        assert!(builtin_provider("local").is_none(), "`local` needs its own projects, not MARA's");
    }
}
