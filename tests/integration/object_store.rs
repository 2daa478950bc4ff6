//! A real S3-compatible object store (versitygw, built by `scripts/install-versitygw.sh`) on
//! loopback, for tests of Pulumi's S3 backend shared by several working copies.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::kube_api_server::{cache_root, ChildGuard};
use crate::loopback_port::start_listening;

/// Kept in step with `scripts/install-versitygw.sh`.
const BUILD: &str = "versitygw-v1.8.0";
pub(crate) const ACCESS_KEY: &str = "runner-test-access";
pub(crate) const SECRET_KEY: &str = "runner-test-secret-key-0123456789";
pub(crate) const BUCKET: &str = "state";

/// `versitygw` itself: `RUNNER_VERSITYGW_BIN` (its folder), else the install script's cache.
/// Tests fail (never skip) without it: `scripts/test.sh` builds it.
pub(crate) fn versitygw() -> PathBuf {
    crate::support::needs_external("versitygw");
    let dir = match std::env::var_os("RUNNER_VERSITYGW_BIN") {
        Some(dir) => PathBuf::from(dir),
        None => cache_root().join(BUILD).join("bin"),
    };
    let binary = dir.join("versitygw");
    assert!(binary.is_file(), "`{}` is missing: run `scripts/install-versitygw.sh`", binary.display());
    binary
}

/// The store, serving the folder `root` (each bucket a sub-folder), stopped when dropped.
pub(crate) struct ObjectStore {
    _process: ChildGuard,
    pub root: PathBuf,
    pub port: u16,
}

impl ObjectStore {
    pub(crate) fn start(root: &Path) -> Self {
        // With the posix backend a bucket is a folder: made here, no S3 client needed.
        std::fs::create_dir_all(root.join(BUCKET)).unwrap();
        let log = std::fs::File::create(root.with_extension("log")).unwrap();
        let (process, port) = start_listening("versitygw", |port| {
            Command::new(versitygw())
                .args([
                    "--access",
                    ACCESS_KEY,
                    "--secret",
                    SECRET_KEY,
                    "--port",
                    &format!("127.0.0.1:{port}"),
                    "--quiet",
                    "posix",
                ])
                .arg(root)
                .stdout(Stdio::null())
                .stderr(log.try_clone().unwrap())
                .spawn()
                .expect("versitygw starts")
        });
        Self { _process: process, root: root.to_path_buf(), port }
    }

    pub(crate) fn url(&self, bucket: &str) -> String {
        format!("s3://{bucket}?endpoint=http://127.0.0.1:{}&use_path_style=true&region=us-east-1", self.port)
    }
}
