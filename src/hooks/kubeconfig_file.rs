//! The `kubeconfig` on_success hook: merge a kubeconfig held in a stack output into the user's
//! kubeconfig file, replacing entries of the same name, as NGINX MARA's runner did.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use base64::engine::{general_purpose::GeneralPurpose, general_purpose::GeneralPurposeConfig, DecodePaddingMode};
use base64::Engine;
use serde_norway::{Mapping, Value};

const SECTIONS: [&str; 3] = ["clusters", "users", "contexts"];

#[derive(Debug, thiserror::Error)]
pub(crate) enum KubeconfigError {
    #[error("the kubeconfig output is a {0}, expected a string or an object")]
    OutputType(&'static str),
    #[error("the kubeconfig output is neither a YAML/JSON kubeconfig nor base64 of one")]
    Undecodable,
    /// `which` is `existing` or `new`; `detail` never quotes values, only keys and names.
    #[error("{which} kubeconfig: {detail}")]
    Malformed { which: &'static str, detail: String },
    #[error("{}: {detail}", .path.display())]
    MalformedFile { path: PathBuf, detail: String },
    #[error("{} is not valid YAML{location}; it was left unchanged", .path.display())]
    InvalidYaml { path: PathBuf, location: String },
    /// Rewriting the file would lose what the user wrote there; nothing was written.
    #[error("{}:{line}: {what}, which rewriting the file would lose: it was left unchanged; merge the new entries by hand or remove it", .path.display())]
    WouldLose { path: PathBuf, line: usize, what: String },
    #[error("cannot pick a kubeconfig file: neither `KUBECONFIG` nor `HOME` is set")]
    NoTarget,
    /// What was being done, to which path, and why it failed.
    #[error("cannot {action} {path}", action = .0, path = .1.display())]
    Io(&'static str, PathBuf, #[source] std::io::Error),
}

/// Maps an I/O error on `path` to [`KubeconfigError::Io`].
fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> KubeconfigError {
    let path = path.to_path_buf();
    move |source| KubeconfigError::Io(action, path, source)
}

fn malformed(which: &'static str, detail: String) -> KubeconfigError {
    KubeconfigError::Malformed { which, detail }
}

/// Decodes a stack output value that is a kubeconfig, either YAML/JSON text or base64 of it.
/// An output that is already an object (as some providers export it) is taken as is.
pub(crate) fn decode_kubeconfig_output(value: &serde_json::Value) -> Result<Value, KubeconfigError> {
    let text = match value {
        serde_json::Value::String(text) => text,
        serde_json::Value::Object(_) => return serde_norway::to_value(value).map_err(|_| KubeconfigError::Undecodable),
        serde_json::Value::Null => return Err(KubeconfigError::OutputType("null")),
        serde_json::Value::Bool(_) => return Err(KubeconfigError::OutputType("boolean")),
        serde_json::Value::Number(_) => return Err(KubeconfigError::OutputType("number")),
        serde_json::Value::Array(_) => return Err(KubeconfigError::OutputType("list")),
    };
    if let Some(doc) = parse_mapping(text) {
        return Ok(doc);
    }
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let lenient = GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    [base64::alphabet::STANDARD, base64::alphabet::URL_SAFE]
        .iter()
        .filter_map(|alphabet| GeneralPurpose::new(alphabet, lenient).decode(&compact).ok())
        .filter_map(|bytes| String::from_utf8(bytes).ok())
        .find_map(|decoded| parse_mapping(&decoded))
        .ok_or(KubeconfigError::Undecodable)
}

/// Parses YAML (JSON included) into a mapping.
fn parse_mapping(text: &str) -> Option<Value> {
    serde_norway::from_str::<Value>(text).ok().filter(Value::is_mapping)
}

fn entry_name(entry: &Value) -> Option<&str> {
    entry.get("name").and_then(Value::as_str).filter(|name| !name.is_empty())
}

/// The entries of `section`; absent or `null` is an empty list.
fn section<'a>(doc: &'a Mapping, key: &str, which: &'static str) -> Result<&'a [Value], KubeconfigError> {
    match doc.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Sequence(entries)) => Ok(entries),
        Some(_) => Err(malformed(which, format!("`{key}` is not a list"))),
    }
}

/// Merges `new` into `existing` (None = no file yet). Entries in clusters/users/contexts with the same
/// `name` are replaced, all others kept in their order; new ones appended; current-context set to
/// `new`'s current-context (or its first context when absent). Keeps other top-level keys of `existing`
/// (preferences, extensions...). Returns the merged document.
pub(crate) fn merge_kubeconfig(existing: Option<&Value>, new: &Value) -> Result<Value, KubeconfigError> {
    let new = new.as_mapping().ok_or_else(|| malformed("new", "the document is not a mapping".into()))?;
    for key in SECTIONS {
        let entries = section(new, key, "new")?;
        if entries.is_empty() {
            return Err(malformed("new", format!("`{key}` has no entries")));
        }
        if let Some(index) = entries.iter().position(|entry| entry_name(entry).is_none()) {
            return Err(malformed("new", format!("`{key}` entry {} has no `name`", index + 1)));
        }
    }
    let mut merged = match existing {
        None | Some(Value::Null) => Mapping::new(),
        Some(Value::Mapping(doc)) => doc.clone(),
        Some(_) => return Err(malformed("existing", "the document is not a mapping".into())),
    };
    for (key, default) in [("apiVersion", "v1"), ("kind", "Config")] {
        if !merged.contains_key(key) {
            merged.insert(key.into(), default.into());
        }
    }
    for key in SECTIONS {
        let mut entries = section(&merged, key, "existing")?.to_vec();
        for entry in section(new, key, "new")? {
            match entries.iter_mut().find(|old| entry_name(old) == entry_name(entry)) {
                Some(old) => *old = entry.clone(),
                None => entries.push(entry.clone()),
            }
        }
        merged.insert(key.into(), Value::Sequence(entries));
    }
    let current = match new.get("current-context").and_then(Value::as_str).filter(|name| !name.is_empty()) {
        Some(name) => name.to_owned(),
        None => entry_name(&section(new, "contexts", "new")?[0]).unwrap_or_default().to_owned(),
    };
    if !section(&merged, "contexts", "existing")?.iter().any(|entry| entry_name(entry) == Some(current.as_str())) {
        return Err(malformed("new", format!("`current-context` `{current}` names no context")));
    }
    merged.insert("current-context".into(), current.into());
    Ok(Value::Mapping(merged))
}

/// The file to write: the first entry of KUBECONFIG (split on ':'; empty entries skipped) from `env`
/// (a lookup closure, so tests don't touch the process env), else `$HOME/.kube/config`.
pub(crate) fn kubeconfig_target(env: &dyn Fn(&str) -> Option<String>) -> Result<PathBuf, KubeconfigError> {
    if let Some(first) = env("KUBECONFIG").as_deref().and_then(|list| list.split(':').find(|entry| !entry.is_empty())) {
        return Ok(PathBuf::from(first));
    }
    match env("HOME").filter(|home| !home.is_empty()) {
        Some(home) => Ok(Path::new(&home).join(".kube").join("config")),
        None => Err(KubeconfigError::NoTarget),
    }
}

#[cfg(test)]
/// Reads the target (if present), merges, and writes atomically (temp file in the same dir + rename),
/// creating parent folders, file mode 0600. Returns the context name that is now current.
/// A symlinked target is followed so the link survives; an exclusive `flock` on the folder keeps
/// concurrent hooks from losing each other's entries.
pub(crate) fn install_kubeconfig(target: &Path, new: &Value) -> Result<String, KubeconfigError> {
    install_kubeconfig_with_care(target, new, true).map(|installed| installed.context)
}

/// Merges `new` into `target` with care: a backup of the file before the first change this
/// process makes to it, a warning for every same-named entry replaced with different content and
/// every user running an `exec` plugin, and `current-context` kept unless `switch_context`
/// (or the file had none).
pub(crate) fn install_kubeconfig_with_care(
    target: &Path,
    new: &Value,
    switch_context: bool,
) -> Result<super::KubeconfigInstall, KubeconfigError> {
    let is_link = std::fs::symlink_metadata(target).is_ok_and(|meta| meta.file_type().is_symlink());
    let target =
        if is_link { std::fs::canonicalize(target).map_err(io("resolve", target))? } else { target.to_path_buf() };
    let target = target.as_path();
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(io("create", dir))?;
    let lock = std::fs::File::open(dir).map_err(io("open", dir))?;
    // Released when `lock` is dropped.
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|errno| io("lock", dir)(std::io::Error::from(errno)))?;
    let existing_text = match std::fs::read_to_string(target) {
        Ok(text) => Some(text),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(io("read", target)(err)),
    };
    let existing = match existing_text.as_deref() {
        None => None,
        Some(text) if text.trim().is_empty() => None,
        Some(text) => Some(serde_norway::from_str::<Value>(text).map_err(|err| KubeconfigError::InvalidYaml {
            path: target.to_path_buf(),
            location:
                err.location().map(|at| format!(" at line {}, column {}", at.line(), at.column())).unwrap_or_default(),
        })?),
    };
    let entries = super::KubeconfigEntries::of(new);
    let (new, warnings) = super::review_kubeconfig(existing.as_ref(), new, switch_context);
    let new = &new;
    let merged = merge_kubeconfig(existing.as_ref(), new).map_err(|err| match err {
        KubeconfigError::Malformed { which: "existing", detail } => {
            KubeconfigError::MalformedFile { path: target.to_path_buf(), detail }
        }
        err => err,
    })?;
    let text = serde_norway::to_string(&merged).map_err(|err| io("serialize", target)(std::io::Error::other(err)))?;
    if existing.as_ref() != Some(&merged) {
        super::refuse_lossy_rewrite(target, existing_text.as_deref().unwrap_or_default(), existing.as_ref(), &text)?;
    }
    let file_name =
        target.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_else(|| "config".into());
    // The lock makes this name ours; a leftover from a crashed run with the same pid is stale.
    let temp = dir.join(format!(".{file_name}.runner-{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&temp);
    let backup = if existing.as_ref() == Some(&merged) { None } else { super::back_up_once(target)? };
    let written = (|| {
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temp, target)
    })();
    if let Err(err) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(io("write", target)(err));
    }
    let _ = std::fs::File::open(dir).and_then(|dir| dir.sync_all());
    let context = merged["current-context"].as_str().unwrap_or_default().to_owned();
    let entries = entries.with_digests(&merged);
    Ok(super::KubeconfigInstall { context, warnings, backup, entries })
}

#[cfg(test)]
// Tests start real processes to check what the runner's own way does with them.
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    const NEW: &str = "apiVersion: v1\nkind: Config\nclusters:\n- name: mara\n  cluster: {server: 'https://10.0.0.1'}\n\
        users:\n- name: mara-admin\n  user: {token: s3cret-token}\ncontexts:\n- name: mara\n  context: {cluster: mara, user: mara-admin}\n";

    fn yaml(text: &str) -> Value {
        serde_norway::from_str(text).unwrap()
    }

    fn names(doc: &Value, key: &str) -> Vec<String> {
        doc[key].as_sequence().unwrap().iter().map(|entry| entry_name(entry).unwrap().to_owned()).collect()
    }

    fn decode_text(text: &str) -> Result<Value, KubeconfigError> {
        decode_kubeconfig_output(&serde_json::Value::String(text.into()))
    }

    #[test]
    fn decodes_plain_yaml_json_and_base64() {
        let plain = decode_text(NEW).unwrap();
        assert_eq!(plain, yaml(NEW));
        let encoded = base64::engine::general_purpose::STANDARD.encode(NEW);
        let (head, tail) = encoded.split_at(76);
        assert_eq!(decode_text(&format!("{head}\n{tail}\n")).unwrap(), plain);
        let json = serde_json::to_string(&plain).unwrap();
        assert_eq!(decode_text(&json).unwrap(), plain);
        let object = serde_json::from_str(&json).unwrap();
        assert_eq!(decode_kubeconfig_output(&object).unwrap(), plain);
        let err = decode_text("s3cret-token").unwrap_err();
        assert!(!err.to_string().contains("s3cret"), "{err}");
        assert!(matches!(decode_kubeconfig_output(&serde_json::json!(3)), Err(KubeconfigError::OutputType("number"))));
    }

    #[test]
    fn replaces_same_name_entries_and_keeps_others() {
        let existing = yaml(
            "apiVersion: v1\nkind: Config\npreferences: {colors: true}\nclusters:\n- {name: other, cluster: {server: 'https://o'}}\n\
             - {name: mara, cluster: {server: 'https://old'}}\nusers:\n- {name: other-user, user: {token: t}}\n\
             contexts:\n- {name: mara, context: {cluster: mara, user: old}}\n- {name: other, context: {cluster: other, user: other-user}}\n\
             current-context: other\n",
        );
        let merged = merge_kubeconfig(Some(&existing), &yaml(NEW)).unwrap();
        assert_eq!(names(&merged, "clusters"), ["other", "mara"]);
        assert_eq!(merged["clusters"][1]["cluster"]["server"], "https://10.0.0.1");
        assert_eq!(names(&merged, "users"), ["other-user", "mara-admin"]);
        assert_eq!(names(&merged, "contexts"), ["mara", "other"]);
        assert_eq!(merged["contexts"][0]["context"]["user"], "mara-admin");
        assert_eq!(merged["current-context"], "mara");
        assert_eq!(merged["preferences"]["colors"], true);
    }

    #[test]
    fn creates_new_file_with_mode_0600_in_missing_folder() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a").join("b").join("config");
        assert_eq!(install_kubeconfig(&target, &yaml(NEW)).unwrap(), "mara");
        assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o600);
        let written = yaml(&std::fs::read_to_string(&target).unwrap());
        assert_eq!(names(&written, "contexts"), ["mara"]);
        assert_eq!(std::fs::read_dir(target.parent().unwrap()).unwrap().count(), 1, "temp file left behind");
    }

    #[test]
    fn symlinked_target_is_followed() {
        let dir = tempfile::tempdir().unwrap();
        let (real, link) = (dir.path().join("real"), dir.path().join("link"));
        std::os::unix::fs::symlink(&real, &link).unwrap();
        std::fs::write(&real, "").unwrap();
        install_kubeconfig(&link, &yaml(NEW)).unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(names(&yaml(&std::fs::read_to_string(&real).unwrap()), "users"), ["mara-admin"]);
    }

    #[test]
    fn invalid_existing_file_is_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("config");
        let broken = "users:\n- name: x\n  user: {token: s3cret-old\n   client-key-data: [\n";
        std::fs::write(&target, broken).unwrap();
        let err = install_kubeconfig(&target, &yaml(NEW)).unwrap_err();
        let message = err.to_string();
        assert!(matches!(err, KubeconfigError::InvalidYaml { .. }), "{message}");
        assert!(message.contains(&target.display().to_string()), "{message}");
        assert!(!message.contains("s3cret"), "{message}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), broken);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        std::fs::write(&target, "clusters: 3\n").unwrap();
        let err = install_kubeconfig(&target, &yaml(NEW)).unwrap_err().to_string();
        assert!(err.contains(&target.display().to_string()) && err.contains("`clusters` is not a list"), "{err}");
    }

    #[test]
    fn kubeconfig_env_with_several_entries_picks_the_first() {
        let env = |key: &str| match key {
            "KUBECONFIG" => Some("::/kube/first:/kube/second".to_owned()),
            "HOME" => Some("/home/me".to_owned()),
            _ => None,
        };
        assert_eq!(kubeconfig_target(&env).unwrap(), PathBuf::from("/kube/first"));
        let home_only = |key: &str| (key == "HOME").then(|| "/home/me".to_owned());
        assert_eq!(kubeconfig_target(&home_only).unwrap(), PathBuf::from("/home/me/.kube/config"));
        let empty = |key: &str| (key == "KUBECONFIG").then(|| ":".to_owned());
        assert!(matches!(kubeconfig_target(&empty), Err(KubeconfigError::NoTarget)));
    }

    #[test]
    fn missing_context_is_rejected() {
        let mut new = yaml(NEW);
        new.as_mapping_mut().unwrap().remove("contexts");
        let err = merge_kubeconfig(None, &new).unwrap_err().to_string();
        assert_eq!(err, "new kubeconfig: `contexts` has no entries");
        let mut new = yaml(NEW);
        new["current-context"] = "elsewhere".into();
        let err = merge_kubeconfig(None, &new).unwrap_err().to_string();
        assert_eq!(err, "new kubeconfig: `current-context` `elsewhere` names no context");
    }
}
