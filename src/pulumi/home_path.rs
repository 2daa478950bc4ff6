use crate::config::EnvironmentFile;
use crate::error::{Location, Result, UserError};

/// The environment entries whose values are `KUBECONFIG`-style path lists, where a shell user
/// writes `~` and `$HOME`.
pub(super) const PATH_LIST_KEYS: [&str; 2] = ["KUBECONFIG", "PULUMI_CONFIG_PASSPHRASE_FILE"];

/// The entry with its home written out, or `None` when it names no home.
pub(super) fn expand_home(entry: &str, home: &str) -> Option<String> {
    let home = home.trim_end_matches('/');
    if entry == "~" || entry.starts_with("~/") {
        return Some(format!("{home}{}", &entry[1..]));
    }
    let mut out = String::new();
    let mut rest = entry;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let name_end = |text: &str| text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(text.len());
        if let Some(tail) = after.strip_prefix("${HOME}") {
            out.push_str(home);
            rest = tail;
        } else if after[1..].starts_with("HOME") && name_end(&after[1..]) == 4 {
            out.push_str(home);
            rest = &after[5..];
        } else {
            out.push('$');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    (out != entry).then_some(out)
}

/// Path entries that name the home (`~`, `$HOME`) refused when there is no `HOME` to expand
/// them from, naming the environment file's line.
pub(crate) fn refuse_home_without_home(file: &EnvironmentFile, home: Option<&str>) -> Result<()> {
    if home.is_some_and(|home| !home.is_empty()) {
        return Ok(());
    }
    for entry in file.entries().iter().filter(|entry| PATH_LIST_KEYS.contains(&entry.key.as_str())) {
        if entry.value.split(':').any(|part| expand_home(part, "/").is_some()) {
            return Err(UserError::InvalidFile {
                location: Location::line(file.path(), entry.line),
                message: format!("`{}` names the home folder, but `HOME` is not set", entry.key),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::RepositoryRoot;
    use crate::pulumi::ChildEnvironment;

    fn root() -> (tempfile::TempDir, RepositoryRoot) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("providers")).unwrap();
        let root = RepositoryRoot::at(dir.path()).unwrap();
        (dir, root)
    }

    #[test]
    fn home_in_path_entries_is_the_real_home() {
        let (_dir, root) = root();
        let home = tempfile::tempdir().unwrap();
        let home_text = home.path().display().to_string();
        let text = "KUBECONFIG=~/.kube/config:$HOME/a:${HOME}/b:rel/c:~\nPULUMI_CONFIG_PASSPHRASE_FILE=$HOME\n";
        let file = EnvironmentFile::parse(Path::new("environment"), text).unwrap();
        let env = ChildEnvironment::build(vec![("HOME".to_string(), home_text.clone())], &file, &root);
        let expected = [
            home.path().join(".kube/config"),
            home.path().join("a"),
            home.path().join("b"),
            root.path().join("rel/c"),
            home.path().to_path_buf(),
        ]
        .map(|path| path.display().to_string())
        .join(":");
        assert_eq!(env.get("KUBECONFIG"), Some(expected.as_str()));
        assert_eq!(env.get("PULUMI_CONFIG_PASSPHRASE_FILE"), Some(home_text.as_str()));
        assert!(refuse_home_without_home(&file, Some(&home_text)).is_ok());
    }

    #[test]
    fn only_the_home_variable_is_expanded() {
        for (entry, expanded) in [
            ("$HOMEX/a", None),
            ("$HOME_DIR", None),
            ("~user/a", None),
            ("a/~/b", None),
            ("$HOME", Some("/h")),
            ("x/${HOME}/y", Some("x//h/y")),
            ("$OTHER/$HOME", Some("$OTHER//h")),
        ] {
            assert_eq!(expand_home(entry, "/h/").as_deref(), expanded, "{entry}");
        }
    }

    #[test]
    fn home_entries_without_a_home_are_refused_naming_the_line() {
        let text = "A=1\nKUBECONFIG=/etc/k:~/.kube/config\n";
        let file = EnvironmentFile::parse(Path::new("config/pulumi/environment"), text).unwrap();
        let refused = refuse_home_without_home(&file, None).unwrap_err().to_string();
        assert!(refused.starts_with("config/pulumi/environment:2: `KUBECONFIG`"), "{refused}");
        let plain = EnvironmentFile::parse(Path::new("environment"), "KUBECONFIG=/etc/k\n").unwrap();
        assert!(refuse_home_without_home(&plain, None).is_ok());
    }
}
