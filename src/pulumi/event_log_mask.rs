use std::io::{BufRead, Write};
use std::path::Path;

use crate::secrets::SecretMask;

/// Rewrites a file line by line with every known secret masked (atomically, bounded memory).
/// Blocking: call it from `spawn_blocking`.
pub fn mask_file(path: &Path, mask: &SecretMask) {
    if mask.is_empty() {
        return;
    }
    let (Ok(file), Some(dir)) = (std::fs::File::open(path), path.parent()) else { return };
    let Ok(mut masked) = tempfile::NamedTempFile::new_in(dir) else { return };
    let mut reader = std::io::BufReader::new(file);
    let mut line = Vec::new();
    while reader.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
        let text = String::from_utf8_lossy(&line);
        if masked.write_all(mask.apply(&text).as_bytes()).is_err() {
            return;
        }
        line.clear();
    }
    let _ = masked.persist(path);
}
