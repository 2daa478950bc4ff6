use std::path::Path;

/// Moves the salt `stack init` wrote next to `Pulumi.yaml` into the shared stack file when that
/// has none yet, so the first parallel operations do not each write a salt of their own, and
/// removes the file it came from when the salt was all it held.
pub fn adopt_encryption_salt(project_file: &Path, shared: &Path) {
    let Ok(own) = std::fs::read_to_string(project_file) else { return };
    let Some(salt_line) = own.lines().find(|line| line.starts_with("encryptionsalt:")) else { return };
    let shared_text = std::fs::read_to_string(shared).unwrap_or_default();
    if !shared_text.lines().any(|line| line.starts_with("encryptionsalt:")) {
        let merged = format!("{salt_line}\n{shared_text}");
        if crate::config::write_atomically(shared, merged.as_bytes()).is_err() {
            return;
        }
    }
    if own.lines().filter(|line| !line.trim().is_empty()).count() == 1 {
        let _ = std::fs::remove_file(project_file);
    }
}
