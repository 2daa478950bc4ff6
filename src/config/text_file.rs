use std::io::Read;
use std::path::Path;

use crate::error::{Location, Result, UserError};

/// Configuration files are small; anything larger is a mistake, not something to parse.
pub(super) const MAX_CONFIG_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// Reads a UTF-8 configuration file; `Ok(None)` when it does not exist.
pub fn read_text(path: &Path) -> Result<Option<String>> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(UserError::Unreadable { path: path.to_path_buf(), source: err }),
    };
    let unreadable = |err: std::io::Error| UserError::Unreadable { path: path.to_path_buf(), source: err };
    if file.metadata().map_err(unreadable)?.is_dir() {
        return Err(UserError::Unreadable {
            path: path.to_path_buf(),
            source: UserError::io_reason(std::io::ErrorKind::IsADirectory, "it is a directory"),
        });
    }
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(unreadable)?;
    if bytes.len() as u64 > MAX_CONFIG_FILE_BYTES {
        return Err(UserError::InvalidFile {
            location: Location::file(path),
            message: format!(
                "the file is larger than {} MiB; this is not a configuration file",
                MAX_CONFIG_FILE_BYTES / 1024 / 1024
            ),
        });
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Some(text)),
        Err(err) => {
            let valid_up_to = err.utf8_error().valid_up_to();
            Err(UserError::InvalidFile {
                location: super::LineIndex::new(err.as_bytes()).location(path, valid_up_to),
                message: "the file is not valid UTF-8".into(),
            })
        }
    }
}
