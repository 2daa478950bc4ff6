//! `providers/<name>.toml`: any bytes load (with `extends` resolved) and build a graph, or fail
//! with a message naming a provider file. The input is `providers/x.toml` of a scratch
//! repository that also has a valid shared set, `providers/common/base.toml`, to extend.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use runner::config::RepositoryRoot;
use runner::graph::ProjectGraph;
use runner::provider::ProviderCatalog;

const BASE: &str = r#"
[[project]]
path = "infrastructure/network"
phase = "infrastructure"

[[project]]
path = "kubernetes/app"
phase = "kubernetes"
depends_on = ["infrastructure/network"]
"#;

fn scratch() -> &'static tempfile::TempDir {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("providers/common")).unwrap();
        std::fs::write(dir.path().join("providers/common/base.toml"), BASE).unwrap();
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let root = scratch().path();
    std::fs::write(root.join("providers/x.toml"), data).unwrap();
    let catalog = ProviderCatalog::new(RepositoryRoot::at(root).unwrap());
    let result = catalog.load("x", None).and_then(|provider| ProjectGraph::build(&provider).map(|_| provider));
    if let Err(err) = result {
        let message = err.to_string();
        assert!(message.contains("providers/"), "the error names the file: {message}");
    }
});
