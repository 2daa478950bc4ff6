//! The user's kubeconfig is theirs: what a merge would silently lose is backed up or named.

use std::collections::HashSet;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde_norway::Value;

use super::KubeconfigError;

/// What installing a kubeconfig did besides merging.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KubeconfigInstall {
    /// The `current-context` after the merge.
    pub context: String,
    /// Replaced entries and `exec` users, one sentence each.
    pub warnings: Vec<String>,
    /// The copy made before the first change of this run.
    pub backup: Option<PathBuf>,
    /// What the merge put in: what a `destroy` of the project takes out again.
    pub entries: super::KubeconfigEntries,
}

/// What the user is told after an install: the backup first, then each warning.
pub(crate) fn kubeconfig_notes(installed: &KubeconfigInstall) -> Vec<String> {
    let backup = installed.backup.iter().map(|path| format!("kubeconfig backed up to `{}`", path.display()));
    backup.chain(installed.warnings.iter().map(|warning| format!("warning: {warning}"))).collect()
}

const SECTIONS: [(&str, &str); 3] = [("clusters", "cluster"), ("users", "user"), ("contexts", "context")];

fn entries<'a>(doc: Option<&'a Value>, key: &str) -> &'a [Value] {
    doc.and_then(|doc| doc.get(key)).and_then(Value::as_sequence).map(Vec::as_slice).unwrap_or_default()
}

fn name(entry: &Value) -> Option<&str> {
    entry.get("name").and_then(Value::as_str)
}

/// The document to merge (with `current-context` kept unless `switch_context`) and the
/// warnings the merge deserves.
pub(crate) fn review_kubeconfig(existing: Option<&Value>, new: &Value, switch_context: bool) -> (Value, Vec<String>) {
    let mut warnings = Vec::new();
    for (key, kind) in SECTIONS {
        for entry in entries(Some(new), key) {
            let Some(entry_name) = name(entry) else { continue };
            let replaced = entries(existing, key).iter().find(|old| name(old) == Some(entry_name));
            if replaced.is_some_and(|old| old != entry) {
                warnings.push(format!(
                    "kubeconfig: replaced {kind} `{entry_name}`, whose content differed (the previous file is in the backup)"
                ));
            }
        }
    }
    for user in entries(Some(new), "users") {
        if let Some(exec) = user.get("user").and_then(|user| user.get("exec")) {
            let command = exec.get("command").and_then(Value::as_str).unwrap_or("?");
            warnings.push(format!(
                "kubeconfig: user `{}` runs the program `{command}` (an `exec` plugin from a stack output) whenever kubectl uses it",
                name(user).unwrap_or("?")
            ));
        }
    }
    let mut new = new.clone();
    let current = existing.and_then(|doc| doc.get("current-context")).and_then(Value::as_str).filter(|c| !c.is_empty());
    if let (false, Some(current), Some(map)) = (switch_context, current, new.as_mapping_mut()) {
        let still_there = entries(existing, "contexts").iter().any(|entry| name(entry) == Some(current))
            || entries(Some(&Value::Mapping(map.clone())), "contexts").iter().any(|entry| name(entry) == Some(current));
        if still_there {
            map.insert("current-context".into(), current.into());
        }
    }
    (new, warnings)
}

/// Copies `target` to `<target>.runner-backup-<UTC time>` (mode 0600) the first time this
/// process is about to change it; `None` when there is nothing to back up or it was done.
pub(crate) fn back_up_once(target: &Path) -> Result<Option<PathBuf>, KubeconfigError> {
    static DONE: OnceLock<Mutex<HashSet<PathBuf>>> = OnceLock::new();
    if !target.exists() {
        return Ok(None);
    }
    let mut done = DONE.get_or_init(Default::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if !done.insert(target.to_path_buf()) {
        return Ok(None);
    }
    let stamp = time::OffsetDateTime::now_utc()
        .format(&time::macros::format_description!("[year][month][day]T[hour][minute][second]Z"))
        .unwrap_or_else(|_| "backup".into());
    let file_name = target.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let backup = target.with_file_name(format!("{file_name}.runner-backup-{stamp}-{}", std::process::id()));
    let copy = || -> std::io::Result<()> {
        let bytes = std::fs::read(target)?;
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&backup)?;
        std::io::Write::write_all(&mut file, &bytes)?;
        file.sync_all()
    };
    copy().map_err(|err| KubeconfigError::Io("back up", target.to_path_buf(), err))?;
    Ok(Some(backup))
}

/// Before the merged kubeconfig replaces the user's file: refuses (naming the line) when the
/// file holds what a rewrite drops (comments), and checks that the new text keeps every top-level
/// key of the old one, in its order, and every value except the merged sections and the context.
pub(crate) fn refuse_lossy_rewrite(
    target: &Path,
    old_text: &str,
    old: Option<&Value>,
    new_text: &str,
) -> Result<(), KubeconfigError> {
    let lose =
        |line: usize, what: &str| KubeconfigError::WouldLose { path: target.to_path_buf(), line, what: what.into() };
    if let Some(line) = first_comment_line(old_text) {
        return Err(lose(line, "a comment"));
    }
    let Some(Value::Mapping(old)) = old else { return Ok(()) };
    let Ok(Value::Mapping(new)) = serde_norway::from_str::<Value>(new_text) else {
        return Err(lose(1, "the merged file would not read back"));
    };
    let merged_keys = ["clusters", "users", "contexts", "current-context"];
    let kept: Vec<&Value> = new.keys().filter(|key| old.contains_key(*key)).collect();
    if kept != old.keys().collect::<Vec<_>>() {
        return Err(lose(1, "the order of its keys"));
    }
    for (key, value) in old {
        if !key.as_str().is_some_and(|key| merged_keys.contains(&key)) && new.get(key) != Some(value) {
            return Err(lose(1, &format!("the value of `{}`", key.as_str().unwrap_or("?"))));
        }
    }
    Ok(())
}

/// The first line (1-based) holding a YAML comment, skipping block scalars and quoted text.
fn first_comment_line(text: &str) -> Option<usize> {
    let mut block_indent: Option<usize> = None;
    for (index, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start().len();
        if let Some(parent) = block_indent {
            if line.trim().is_empty() || indent > parent {
                continue;
            }
            block_indent = None;
        }
        let mut quote: Option<char> = None;
        let mut previous = ' ';
        for c in line.chars() {
            match quote {
                Some(open) if c == open => quote = None,
                Some(_) => {}
                None if c == '#' && previous.is_whitespace() => return Some(index + 1),
                None if matches!(c, '"' | '\'')
                    && (previous.is_whitespace() || matches!(previous, ':' | '[' | '{' | ',' | '-')) =>
                {
                    quote = Some(c)
                }
                None => {}
            }
            previous = c;
        }
        let value = line.trim_end();
        let starts_block = value.rsplit_once([' ', ':', '-']).map_or(value, |(_, last)| last);
        if !starts_block.is_empty()
            && starts_block.starts_with(['|', '>'])
            && starts_block[1..].chars().all(|c| matches!(c, '+' | '-' | '1'..='9'))
        {
            block_indent = Some(indent);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> Value {
        serde_norway::from_str(text).unwrap()
    }

    const EXISTING: &str = "apiVersion: v1\nkind: Config\nclusters:\n- name: prod\n  cluster: {server: https://prod}\nusers:\n- name: admin\n  user: {token: old-token}\ncontexts:\n- name: prod\n  context: {cluster: prod, user: admin}\ncurrent-context: prod\n";
    const NEW: &str = "clusters:\n- name: prod\n  cluster: {server: https://other}\nusers:\n- name: admin\n  user:\n    exec: {command: aws, apiVersion: client.authentication.k8s.io/v1beta1}\ncontexts:\n- name: dev\n  context: {cluster: prod, user: admin}\ncurrent-context: dev\n";

    #[test]
    fn replacing_different_entries_and_exec_users_are_named() {
        let (_, warnings) = review_kubeconfig(Some(&yaml(EXISTING)), &yaml(NEW), false);
        let text = warnings.join("\n");
        assert!(text.contains("replaced cluster `prod`"), "{text}");
        assert!(text.contains("replaced user `admin`"), "{text}");
        assert!(text.contains("runs the program `aws`"), "{text}");
        assert!(!text.contains("context `dev`"), "a new entry replaces nothing: {text}");
    }

    #[test]
    fn current_context_stays_unless_the_hook_asks() {
        let (kept, _) = review_kubeconfig(Some(&yaml(EXISTING)), &yaml(NEW), false);
        assert_eq!(kept["current-context"], "prod");
        let (switched, _) = review_kubeconfig(Some(&yaml(EXISTING)), &yaml(NEW), true);
        assert_eq!(switched["current-context"], "dev");
        let (fresh, _) = review_kubeconfig(None, &yaml(NEW), false);
        assert_eq!(fresh["current-context"], "dev", "a new file takes the new context");
    }

    #[test]
    fn a_real_install_backs_up_once_and_keeps_the_old_token() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("config");
        std::fs::write(&target, EXISTING).unwrap();
        let installed = super::super::install_kubeconfig_with_care(&target, &yaml(NEW), false).unwrap();
        let backup = installed.backup.expect("a backup");
        assert!(std::fs::read_to_string(&backup).unwrap().contains("old-token"));
        assert_eq!(installed.context, "prod");
        let again = super::super::install_kubeconfig_with_care(&target, &yaml(NEW), false).unwrap();
        assert_eq!(again.backup, None, "one backup per run");
    }

    #[test]
    fn a_commented_kubeconfig_is_refused_naming_the_line_and_left_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("config");
        let commented = EXISTING.replace("users:\n", "# prod is the shared cluster: ask ops\nusers:\n");
        std::fs::write(&target, &commented).unwrap();
        let refused = super::super::install_kubeconfig_with_care(&target, &yaml(NEW), false).unwrap_err().to_string();
        assert!(refused.starts_with(&format!("{}:6: a comment", target.display())), "{refused}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), commented);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no backup, no temp file");
    }

    #[test]
    fn comments_are_found_outside_quotes_and_block_scalars() {
        for (text, line) in [
            ("a: 1 # trailing\n", Some(1)),
            ("a:\n  # inside\n  b: 1\n", Some(2)),
            ("a: 'x # y'\nb: \"p #q\"\n", None),
            ("a: |\n  not # a comment\n  # nor this\nb: 2 # but this\n", Some(4)),
            ("data: abc#def\nurl: https://h/#frag\n", None),
        ] {
            assert_eq!(first_comment_line(text), line, "{text:?}");
        }
    }

    #[test]
    fn key_order_and_other_keys_are_kept_and_backups_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("config");
        let reordered = "current-context: prod\npreferences: {colors: true}\ncontexts:\n- name: prod\n  context: {cluster: prod, user: admin}\nusers:\n- name: admin\n  user: {token: old-token}\nclusters:\n- name: prod\n  cluster: {server: https://prod}\nkind: Config\napiVersion: v1\nextensions: []\n";
        std::fs::write(&target, reordered).unwrap();
        let installed = super::super::install_kubeconfig_with_care(&target, &yaml(NEW), false).unwrap();
        let written: Value = yaml(&std::fs::read_to_string(&target).unwrap());
        let keys: Vec<&str> = written.as_mapping().unwrap().keys().filter_map(Value::as_str).collect();
        assert_eq!(
            keys,
            ["current-context", "preferences", "contexts", "users", "clusters", "kind", "apiVersion", "extensions"]
        );
        let backup = installed.backup.unwrap();
        assert_eq!(std::fs::metadata(&backup).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o600);
    }
}
