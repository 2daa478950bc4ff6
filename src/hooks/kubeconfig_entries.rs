//! What a `kubeconfig` hook put into the user's file, and taking exactly that out again once the
//! cluster it points at is destroyed: a context left behind keeps `kubectl` talking to nothing.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_norway::Value;

use super::KubeconfigError;

/// The names of the clusters, users and contexts one installed kubeconfig held, and a digest of
/// what each held once installed: a `destroy` takes an entry out only while it still holds that.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct KubeconfigEntries {
    pub contexts: Vec<String>,
    pub clusters: Vec<String>,
    pub users: Vec<String>,
    /// `context/NAME` -> SHA-256 of the entry as installed. Records written before digests were
    /// kept have none: their entries are no longer provably this stack's, and stay.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub digests: std::collections::BTreeMap<String, String>,
}

const KINDS: [(&str, &str); 3] = [("contexts", "context"), ("clusters", "cluster"), ("users", "user")];

/// SHA-256 of an entry (its name and content), as JSON with keys in order.
fn entry_digest(entry: &Value) -> Option<String> {
    let json = serde_json::to_value(entry).ok()?;
    let digest = ring::digest::digest(&ring::digest::SHA256, json.to_string().as_bytes());
    Some(digest.as_ref().iter().map(|byte| format!("{byte:02x}")).collect())
}

fn entry_named<'a>(doc: &'a Value, section: &str, name: &str) -> Option<&'a Value> {
    let entries = doc.get(section)?.as_sequence()?;
    entries.iter().find(|entry| entry.get("name").and_then(Value::as_str) == Some(name))
}

/// What taking the entries out did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KubeconfigRemoval {
    /// The entries that were there and are gone; a cluster or user another context still uses stays.
    pub removed: KubeconfigEntries,
    /// Entries of these names that no longer hold what was installed (another checkout's or
    /// cluster's under the same name, or edited since), or never had a digest recorded: left.
    pub kept: KubeconfigEntries,
    /// The `current-context` that named a removed context, now unset.
    pub cleared_current: Option<String>,
    /// The copy made before the first change of this run.
    pub backup: Option<PathBuf>,
}

fn names(doc: &Value, key: &str) -> Vec<String> {
    let entries = doc.get(key).and_then(Value::as_sequence).map(Vec::as_slice).unwrap_or_default();
    entries.iter().filter_map(|entry| entry.get("name").and_then(Value::as_str)).map(str::to_string).collect()
}

impl KubeconfigEntries {
    /// The entries of a kubeconfig about to be installed.
    pub(crate) fn of(kubeconfig: &Value) -> Self {
        Self {
            contexts: names(kubeconfig, "contexts"),
            clusters: names(kubeconfig, "clusters"),
            users: names(kubeconfig, "users"),
            digests: Default::default(),
        }
    }

    /// The digest of each of these entries as `installed` (the file after the merge) holds it.
    pub(crate) fn with_digests(mut self, installed: &Value) -> Self {
        for (section, kind) in KINDS {
            for name in self.names(kind).to_vec() {
                if let Some(digest) = entry_named(installed, section, &name).and_then(entry_digest) {
                    self.digests.insert(format!("{kind}/{name}"), digest);
                }
            }
        }
        self
    }

    fn names(&self, kind: &str) -> &[String] {
        match kind {
            "context" => &self.contexts,
            "cluster" => &self.clusters,
            _ => &self.users,
        }
    }

    /// Whether `entry`, named `name`, still holds what was installed.
    fn still_ours(&self, kind: &str, name: &str, entry: &Value) -> bool {
        let recorded = self.digests.get(&format!("{kind}/{name}"));
        recorded.is_some_and(|recorded| entry_digest(entry).as_ref() == Some(recorded))
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.contexts.is_empty() && self.clusters.is_empty() && self.users.is_empty()
    }

    /// `context `a`, cluster `a`, user `a-admin``, for a sentence.
    pub(crate) fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (kind, list) in [("context", &self.contexts), ("cluster", &self.clusters), ("user", &self.users)] {
            parts.extend(list.iter().map(|name| format!("{kind} `{name}`")));
        }
        parts.join(", ")
    }
}

/// Takes `entries` out of the kubeconfig at `target` under the same folder lock as an install:
/// every named context; a named cluster or user only when no remaining context uses it; and
/// `current-context` is unset when it named a removed context, so `kubectl` says "no context"
/// instead of timing out against a cluster that is gone. A file without them is left as it is.
pub(crate) fn remove_kubeconfig_entries(
    target: &Path,
    entries: &KubeconfigEntries,
) -> Result<KubeconfigRemoval, KubeconfigError> {
    let io = |action: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |err: std::io::Error| KubeconfigError::Io(action, path, err)
    };
    let nothing = || KubeconfigRemoval {
        removed: KubeconfigEntries::default(),
        kept: KubeconfigEntries::default(),
        cleared_current: None,
        backup: None,
    };
    let target = std::fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf());
    let target = target.as_path();
    let dir = target.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let Ok(lock) = std::fs::File::open(dir) else { return Ok(nothing()) };
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|errno| io("lock", dir)(std::io::Error::from(errno)))?;
    let text = match std::fs::read_to_string(target) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(nothing()),
        Err(err) => return Err(io("read", target)(err)),
    };
    let Ok(Value::Mapping(old)) = serde_norway::from_str::<Value>(&text) else { return Ok(nothing()) };
    let mut doc = old.clone();
    let mut removed = KubeconfigEntries::default();
    // Only what still holds what this stack installed is ours to take out.
    let original = Value::Mapping(old.clone());
    let mut kept = KubeconfigEntries::default();
    let mut ours = KubeconfigEntries::default();
    for (section, kind) in KINDS {
        for name in entries.names(kind) {
            let Some(entry) = entry_named(&original, section, name) else { continue };
            let list = match kind {
                "context" => (&mut ours.contexts, &mut kept.contexts),
                "cluster" => (&mut ours.clusters, &mut kept.clusters),
                _ => (&mut ours.users, &mut kept.users),
            };
            if entries.still_ours(kind, name, entry) {
                list.0.push(name.clone());
            } else {
                list.1.push(name.clone());
            }
        }
    }
    let entries = &ours;
    let take = |doc: &mut serde_norway::Mapping, key: &str, keep: &dyn Fn(&str) -> bool| -> Vec<String> {
        let Some(Value::Sequence(list)) = doc.get_mut(key) else { return Vec::new() };
        let mut gone = Vec::new();
        list.retain(|entry| match entry.get("name").and_then(Value::as_str) {
            Some(name) if !keep(name) => {
                gone.push(name.to_string());
                false
            }
            _ => true,
        });
        gone
    };
    removed.contexts = take(&mut doc, "contexts", &|name| !entries.contexts.iter().any(|c| c == name));
    let used = |field: &str| -> Vec<String> {
        let contexts = doc.get("contexts").and_then(Value::as_sequence).cloned().unwrap_or_default();
        contexts
            .iter()
            .filter_map(|entry| entry.get("context").and_then(|context| context.get(field)).and_then(Value::as_str))
            .map(str::to_string)
            .collect()
    };
    let (clusters_used, users_used) = (used("cluster"), used("user"));
    removed.clusters = take(&mut doc, "clusters", &|name| {
        !entries.clusters.iter().any(|c| c == name) || clusters_used.iter().any(|c| c == name)
    });
    removed.users = take(&mut doc, "users", &|name| {
        !entries.users.iter().any(|u| u == name) || users_used.iter().any(|u| u == name)
    });
    let current = doc.get("current-context").and_then(Value::as_str).map(str::to_string);
    let cleared_current = current.filter(|current| removed.contexts.contains(current));
    if cleared_current.is_some() {
        doc.insert("current-context".into(), "".into());
    }
    if removed.is_empty() {
        return Ok(KubeconfigRemoval { kept, ..nothing() });
    }
    let new_text = serde_norway::to_string(&Value::Mapping(doc))
        .map_err(|err| io("serialize", target)(std::io::Error::other(err)))?;
    super::refuse_lossy_rewrite(target, &text, Some(&Value::Mapping(old)), &new_text)?;
    let backup = super::back_up_once(target)?;
    let file_name = target.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    // The lock makes this name ours; a leftover from a crashed run with the same pid is stale.
    let temp = dir.join(format!(".{file_name}.runner-{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&temp);
    let written = (|| {
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&temp)?;
        file.write_all(new_text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temp, target)
    })();
    if let Err(err) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(io("write", target)(err));
    }
    Ok(KubeconfigRemoval { removed, kept, cleared_current, backup })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "apiVersion: v1\nkind: Config\nclusters:\n- name: prod\n  cluster: {server: 'https://prod'}\n\
        - name: dev\n  cluster: {server: 'https://dev'}\nusers:\n- name: admin\n  user: {token: t}\n- name: dev-admin\n  user: {token: d}\n\
        contexts:\n- name: prod\n  context: {cluster: prod, user: admin}\n- name: dev\n  context: {cluster: dev, user: admin}\n\
        current-context: dev\npreferences: {}\n";

    fn entries(contexts: &[&str], clusters: &[&str], users: &[&str]) -> KubeconfigEntries {
        let owned = |list: &[&str]| list.iter().map(|name| name.to_string()).collect();
        KubeconfigEntries {
            contexts: owned(contexts),
            clusters: owned(clusters),
            users: owned(users),
            digests: Default::default(),
        }
    }

    /// As installed into `FILE`: each entry's digest recorded.
    fn installed(contexts: &[&str], clusters: &[&str], users: &[&str]) -> KubeconfigEntries {
        entries(contexts, clusters, users).with_digests(&serde_norway::from_str(FILE).unwrap())
    }

    /// For each kind of entry: taken out only while it holds what was installed; another
    /// cluster's entry under the same name, or an entry without a recorded digest, is left and
    /// named; `current-context` is unset only for a context that was taken out.
    #[test]
    fn only_what_still_holds_the_install_is_taken_out() {
        let replaced = [
            ("context", FILE.replace("{cluster: dev, user: admin}", "{cluster: dev, user: other}")),
            ("cluster", FILE.replace("'https://dev'", "'https://someone-elses'")),
            ("user", FILE.replace("{token: d}", "{token: another-checkouts}")),
        ];
        for (kind, changed) in replaced {
            let dir = tempfile::tempdir().unwrap();
            let target = dir.path().join("config");
            std::fs::write(&target, &changed).unwrap();
            let removal = remove_kubeconfig_entries(&target, &installed(&["dev"], &["dev"], &["dev-admin"])).unwrap();
            let kept = removal.kept.describe();
            let name = if kind == "user" { "dev-admin" } else { "dev" };
            assert_eq!(kept, format!("{kind} `{name}`"), "{kind}");
            let doc: Value = serde_norway::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
            let section = format!("{kind}s");
            assert!(names(&doc, &section).contains(&name.to_string()), "{kind} left in place");
            let context_removed = kind != "context";
            assert_eq!(removal.cleared_current.is_some(), context_removed, "{kind}");
        }
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("config");
        std::fs::write(&target, FILE).unwrap();
        let unproven = remove_kubeconfig_entries(&target, &entries(&["dev"], &["dev"], &["dev-admin"])).unwrap();
        assert!(unproven.removed.is_empty(), "no digest recorded: nothing is provably ours");
        assert_eq!(unproven.kept.describe(), "context `dev`, cluster `dev`, user `dev-admin`");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), FILE);
    }

    #[test]
    fn takes_out_only_what_was_installed_and_no_longer_used() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("config");
        std::fs::write(&target, FILE).unwrap();
        let installed = installed(&["dev"], &["dev"], &["admin", "dev-admin"]);
        let removal = remove_kubeconfig_entries(&target, &installed).unwrap();
        // `admin` is also `prod`'s user: it stays.
        assert_eq!(removal.removed, entries(&["dev"], &["dev"], &["dev-admin"]));
        assert_eq!(removal.cleared_current.as_deref(), Some("dev"));
        assert!(removal.backup.is_some());
        let doc: Value = serde_norway::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
        assert_eq!(names(&doc, "contexts"), ["prod"]);
        assert_eq!(names(&doc, "clusters"), ["prod"]);
        assert_eq!(names(&doc, "users"), ["admin"]);
        assert_eq!(doc["current-context"], "");
        assert!(doc.get("preferences").is_some());
        let again = remove_kubeconfig_entries(&target, &installed).unwrap();
        assert!(again.removed.is_empty() && again.cleared_current.is_none(), "{again:?}");
    }

    #[test]
    fn a_missing_file_or_another_current_context_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("config");
        let installed = installed(&["dev"], &["dev"], &[]);
        assert!(remove_kubeconfig_entries(&target, &installed).unwrap().removed.is_empty());
        std::fs::write(&target, FILE.replace("current-context: dev", "current-context: prod")).unwrap();
        let removal = remove_kubeconfig_entries(&target, &installed).unwrap();
        assert_eq!(removal.removed, entries(&["dev"], &["dev"], &[]));
        assert_eq!(removal.cleared_current, None);
        let doc: Value = serde_norway::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
        assert_eq!(doc["current-context"], "prod");
    }
}
