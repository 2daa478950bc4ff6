use std::path::Path;

/// Moves the salt `stack init` wrote next to `Pulumi.yaml` into the shared stack file when that
/// has none yet, so the first parallel operations do not each write a salt of their own, and
/// removes the file it came from when the salt was all it held.
pub(crate) fn adopt_encryption_salt(project_file: &Path, shared: &Path) {
    let Ok(own) = std::fs::read_to_string(project_file) else { return };
    let Some(salt_line) = own.lines().find(|line| line.starts_with("encryptionsalt:")) else { return };
    let shared_text = std::fs::read_to_string(shared).unwrap_or_default();
    if !shared_text.lines().any(|line| line.starts_with("encryptionsalt:")) {
        // Kept as the user wrote it, or left alone: the salt then stays where Pulumi put it.
        let Ok(merged) = crate::config::StackConfigEdit::new(shared, &shared_text).add_top_level_line(salt_line) else {
            return;
        };
        if crate::config::write_atomically(shared, merged.as_bytes()).is_err() {
            return;
        }
    }
    if own.lines().filter(|line| !line.trim().is_empty()).count() == 1 {
        let _ = std::fs::remove_file(project_file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adopt(shared_text: Option<&str>) -> (String, bool) {
        let dir = tempfile::tempdir().unwrap();
        let (own, shared) = (dir.path().join("Pulumi.dev.yaml"), dir.path().join("shared.yaml"));
        std::fs::write(&own, "encryptionsalt: v1:salt=\n").unwrap();
        if let Some(text) = shared_text {
            std::fs::write(&shared, text).unwrap();
        }
        adopt_encryption_salt(&own, &shared);
        (std::fs::read_to_string(&shared).unwrap_or_default(), own.exists())
    }

    #[test]
    fn the_salt_goes_before_the_first_key_keeping_what_the_user_wrote() {
        let (text, own_left) = adopt(Some("# mine\r\n---\r\nconfig:\r\n    a:b: c\r\n"));
        assert_eq!(text, "# mine\r\n---\r\nencryptionsalt: v1:salt=\r\nconfig:\r\n    a:b: c\r\n");
        assert!(!own_left);
        assert_eq!(adopt(None).0, "encryptionsalt: v1:salt=\n");
        assert_eq!(adopt(Some("config: {}")).0, "encryptionsalt: v1:salt=\nconfig: {}");
    }

    #[test]
    fn a_file_that_cannot_take_it_is_left_alone_and_the_salt_stays() {
        let broken = "config: [\n";
        assert_eq!(adopt(Some(broken)), (broken.to_string(), true));
    }
}
