use serde::Serialize;

/// A project's identity: its folder under the projects root, with `/` separators.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct ProjectPath(String);

impl ProjectPath {
    /// Normalises separators and trailing slashes so `a/b/` and `a//b` name the same project.
    pub fn new(raw: &str) -> Self {
        let joined =
            raw.split(['/', '\\']).filter(|part| !part.is_empty() && *part != ".").collect::<Vec<_>>().join("/");
        Self(joined)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when the path is absolute or climbs above the projects root with `..`.
    pub fn escapes_root(raw: &str) -> bool {
        if raw.starts_with('/') || raw.starts_with('\\') || raw.chars().nth(1) == Some(':') {
            return true;
        }
        let mut depth: i64 = 0;
        for part in raw.split(['/', '\\']) {
            match part {
                "" | "." => {}
                ".." => depth -= 1,
                _ => depth += 1,
            }
            if depth < 0 {
                return true;
            }
        }
        raw.split(['/', '\\']).any(|part| part == "..")
    }

    /// The last segment, used where space is short.
    pub fn short_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }
}

impl std::fmt::Display for ProjectPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_separators() {
        assert_eq!(ProjectPath::new("a//b/").as_str(), "a/b");
        assert_eq!(ProjectPath::new("./a/b").as_str(), "a/b");
    }

    #[test]
    fn detects_escaping_paths() {
        assert!(ProjectPath::escapes_root("../outside"));
        assert!(ProjectPath::escapes_root("/etc"));
        assert!(ProjectPath::escapes_root("a/../../b"));
        assert!(ProjectPath::escapes_root("a/../b"));
        assert!(!ProjectPath::escapes_root("a/b"));
    }
}
