//! A checkpoint a killed `pulumi` left unreadable on a file backend. gocloud's fileblob writes a
//! blob's attributes sidecar (`dev.json.attrs`) in place, then renames the new blob over the old:
//! killed between the two, `pulumi` leaves the old checkpoint whole beside an empty or cut
//! sidecar, and every later `pulumi` on that stack fails with "failed to load checkpoint: EOF".
//! The sidecar only holds metadata fileblob can do without (a missing one reads as none), so
//! removing a torn one gives the stack its last complete checkpoint back.
//!
//! The same kill leaves the new blob's temporary file (`dev.json.<nanoseconds in hex>.tmp`), never
//! renamed. Pulumi ignores it; a stack's folder should not collect one per kill, so a temporary
//! file of this stack older than [`STALE_AFTER`] goes too.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::Backend;

/// The sidecar of `project_name`'s `stack` checkpoint when it is torn: empty or not JSON.
pub(super) fn torn_checkpoint_sidecar(backend: &Backend, project_name: &str, stack: &str) -> Option<PathBuf> {
    let dir = backend.local_dir()?.join(".pulumi").join("stacks").join(project_name);
    ["json", "json.gz", "json.zst"].iter().find_map(|ext| {
        let checkpoint = dir.join(format!("{stack}.{ext}"));
        let sidecar = dir.join(format!("{stack}.{ext}.attrs"));
        let bytes = std::fs::read(&sidecar).ok()?;
        let torn = serde_json::from_slice::<serde_json::Value>(&bytes).is_err();
        (torn && checkpoint.is_file()).then_some(sidecar)
    })
}

/// Removes the torn sidecar of the stack, if any; the line that says so.
pub(crate) fn repair_torn_checkpoint(backend: &Backend, project_name: &str, stack: &str) -> Option<String> {
    let sidecar = torn_checkpoint_sidecar(backend, project_name, stack)?;
    let qualified = backend.qualified_stack(project_name, stack);
    match std::fs::remove_file(&sidecar) {
        Ok(()) => Some(format!(
            "removed the torn `{}` a killed `pulumi` left beside the checkpoint of `{qualified}`, which made it unreadable",
            crate::error::shown_path(&sidecar)
        )),
        Err(_) => None,
    }
}

/// fileblob writes and renames a temporary file within one write: one this old is no live
/// writer's (and the caller has already found no live lock on the stack).
pub(super) const STALE_AFTER: Duration = Duration::from_secs(60);

/// Removes the temporary files killed writers left for this stack (its checkpoint, history and
/// backups); the line that says so.
pub(crate) fn remove_stale_temporary_files(backend: &Backend, project_name: &str, stack: &str) -> Option<String> {
    let root = backend.local_dir()?.join(".pulumi");
    let mut removed = 0;
    for folder in ["stacks", "history", "backups"] {
        let dir = root.join(folder).join(project_name);
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if is_stale_temporary_file(&path, stack, SystemTime::now()) && std::fs::remove_file(&path).is_ok() {
                removed += 1;
            }
        }
    }
    (removed > 0).then(|| {
        format!(
            "removed {} that killed `pulumi` runs left beside the checkpoint of `{}`",
            crate::text::counted(removed, "temporary file"),
            backend.qualified_stack(project_name, stack)
        )
    })
}

/// `dev.json.17f3a2b4c5d6e7f8.tmp`, `dev-1700000000.history.json.<hex>.tmp`: a file of `stack`
/// that fileblob named for a write, whose name (or else its mtime) says it began long ago.
fn is_stale_temporary_file(path: &Path, stack: &str, now: SystemTime) -> bool {
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else { return false };
    let Some(rest) = name.strip_prefix(stack).filter(|rest| rest.starts_with(['.', '-'])) else { return false };
    let Some((_, stamp)) = rest.strip_suffix(".tmp").and_then(|rest| rest.rsplit_once('.')) else { return false };
    let Ok(nanos) = u64::from_str_radix(stamp, 16) else { return false };
    let named = SystemTime::UNIX_EPOCH + Duration::from_nanos(nanos);
    let modified = std::fs::metadata(path).and_then(|meta| meta.modified()).unwrap_or(named);
    // The later of the two: a clock that disagrees with the name never makes a file look older.
    let began = named.max(modified);
    now.duration_since(began).is_ok_and(|age| age > STALE_AFTER)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pulumi::ChildEnvironment;

    /// Names and ages: only this stack's fileblob temporary files, and only old ones, go.
    #[test]
    fn only_old_temporary_files_of_this_stack_are_stale() {
        let dir = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        let hex = |age: u64| {
            format!("{:x}", (now - Duration::from_secs(age)).duration_since(SystemTime::UNIX_EPOCH).unwrap().as_nanos())
        };
        let old = STALE_AFTER.as_secs() + 5;
        let cases = [
            (format!("dev.json.{}.tmp", hex(old)), true),
            (format!("dev.json.attrs.{}.tmp", hex(old)), true),
            (format!("dev-1700000000.history.json.{}.tmp", hex(old)), true),
            (format!("dev.json.{}.tmp", hex(1)), false),
            (format!("devel.json.{}.tmp", hex(old)), false),
            (format!("prod.json.{}.tmp", hex(old)), false),
            (format!("dev.json.{}", hex(old)), false),
            ("dev.json.zz.tmp".to_string(), false),
            ("dev.json".to_string(), false),
            ("dev.json.attrs".to_string(), false),
        ];
        for (name, stale) in cases {
            let path = dir.path().join(&name);
            std::fs::write(&path, "{").unwrap();
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(now - Duration::from_secs(old)).unwrap();
            assert_eq!(is_stale_temporary_file(&path, "dev", now), stale, "{name}");
        }
        // A name that claims an old start beside a file written just now: a live writer's.
        let fresh = dir.path().join(format!("dev.json.{}.tmp", hex(old * 10)));
        std::fs::write(&fresh, "{").unwrap();
        assert!(!is_stale_temporary_file(&fresh, "dev", now));
    }

    /// Every shape of sidecar: only an empty or cut one beside a checkpoint is torn.
    #[test]
    fn only_an_empty_or_cut_sidecar_beside_a_checkpoint_is_torn() {
        let dir = tempfile::tempdir().unwrap();
        let root = crate::config::RepositoryRoot::unchecked(dir.path());
        let url = format!("file://{}", dir.path().display());
        let environment =
            ChildEnvironment::build([("PULUMI_BACKEND_URL".to_string(), url)], &Default::default(), &root);
        let backend = Backend::from_environment(&environment);
        let stacks = dir.path().join(".pulumi/stacks/net");
        std::fs::create_dir_all(&stacks).unwrap();
        let whole = r#"{"user.content_type":"application/octet-stream","md5":"AAAA"}"#;
        let cases: [(Option<&str>, Option<&str>, bool); 6] = [
            (Some("{}"), Some(""), true),
            (Some("{}"), Some(r#"{"user.content_ty"#), true),
            (Some("{}"), Some(whole), false),
            (Some("{}"), None, false),
            (None, Some(""), false),
            (None, None, false),
        ];
        for (checkpoint, sidecar, torn) in cases {
            for file in ["dev.json", "dev.json.attrs"] {
                let _ = std::fs::remove_file(stacks.join(file));
            }
            if let Some(text) = checkpoint {
                std::fs::write(stacks.join("dev.json"), text).unwrap();
            }
            if let Some(text) = sidecar {
                std::fs::write(stacks.join("dev.json.attrs"), text).unwrap();
            }
            let found = repair_torn_checkpoint(&backend, "net", "dev");
            assert_eq!(found.is_some(), torn, "{checkpoint:?} {sidecar:?}");
            assert_eq!(stacks.join("dev.json.attrs").exists(), sidecar.is_some() && !torn);
            assert_eq!(stacks.join("dev.json").exists(), checkpoint.is_some(), "the checkpoint is never touched");
        }
    }
}
