//! `config/pulumi/environment`: any text parses or fails with a message naming the file and line;
//! any bytes read from disk do the same (the non-UTF-8 path included).

#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use runner::config::EnvironmentFile;

fn scratch() -> &'static tempfile::TempDir {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("temp dir"))
}

fn check(result: Result<EnvironmentFile, runner::error::UserError>, path: &Path) {
    match result {
        Ok(file) => {
            let mut previous_line = 0;
            for entry in file.entries() {
                assert!(entry.line > previous_line, "lines go forward: {entry:?}");
                previous_line = entry.line;
                assert!(!entry.key.is_empty() && !entry.key.contains(['=', ':', '\n', '\0']), "{entry:?}");
                assert_eq!(file.get(&entry.key), Some(entry.value.as_str()), "keys are unique");
            }
        }
        Err(err) => {
            let message = err.to_string();
            let prefix = format!("{}:", path.display());
            assert!(message.starts_with(&prefix), "the error names the file: {message}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    match std::str::from_utf8(data) {
        Ok(text) => {
            let path = Path::new("config/pulumi/environment");
            check(EnvironmentFile::parse(path, text), path);
        }
        Err(_) => {
            let path = scratch().path().join("environment");
            std::fs::write(&path, data).unwrap();
            check(EnvironmentFile::load(&path), &path);
        }
    }
});
