//! A checkpoint a killed `pulumi` left unreadable on a file backend. gocloud's fileblob writes a
//! blob's attributes sidecar (`dev.json.attrs`) in place, then renames the new blob over the old:
//! killed between the two, `pulumi` leaves the old checkpoint whole beside an empty or cut
//! sidecar, and every later `pulumi` on that stack fails with "failed to load checkpoint: EOF".
//! The sidecar only holds metadata fileblob can do without (a missing one reads as none), so
//! removing a torn one gives the stack its last complete checkpoint back.

use std::path::PathBuf;

use super::Backend;

/// The sidecar of `project_name`'s `stack` checkpoint when it is torn: empty or not JSON.
pub fn torn_checkpoint_sidecar(backend: &Backend, project_name: &str, stack: &str) -> Option<PathBuf> {
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
pub fn repair_torn_checkpoint(backend: &Backend, project_name: &str, stack: &str) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pulumi::ChildEnvironment;

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
