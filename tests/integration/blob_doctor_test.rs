//! `runner doctor` on `azblob://` (Azurite) and `gs://` (fake-gcs-server) backends asks the store
//! itself, with the credentials the runner gives `pulumi`: good ones pass, a wrong key and a
//! missing container are named with what to fix, and no credential is printed.

use crate::blob_emulators::{BlobKind, BlobStore, CONTAINER};
use crate::blob_lock_test::blob_workspace;
use crate::support::{RunOutput, Workspace};

const DOCTOR: [&str; 3] = ["doctor", "--provider", "one"];

/// The line of `check`, which must be there.
fn line(output: &RunOutput, check: &str) -> String {
    let stdout = output.stdout();
    let found = stdout.lines().find(|line| line.contains(check)).map(str::to_string);
    found.unwrap_or_else(|| panic!("no `{check}` line:\n{stdout}"))
}

fn with_container(workspace: &Workspace, store: &BlobStore, container: &str) {
    let url = store.url().replacen(&format!("://{CONTAINER}"), &format!("://{container}"), 1);
    workspace.env_file(&format!("PULUMI_STACK=dev\nPULUMI_BACKEND_URL={url}\nPULUMI_CONFIG_PASSPHRASE=blob-doctor\n"));
}

#[test]
fn ext_azblob_doctor_asks_the_store_and_names_a_wrong_key_and_a_missing_container() {
    let scratch = tempfile::tempdir().unwrap();
    let store = BlobStore::start(BlobKind::Azurite, &scratch.path().join("store"));
    let mut workspace = blob_workspace(&store, "net", "name: net\nruntime: yaml\n");
    let good = workspace.run(&DOCTOR);
    assert!(line(&good, "backend credentials").contains("accepted by the object store"), "{}", good.stdout());
    assert!(line(&good, "backend bucket").contains("the container exists"), "{}", good.stdout());

    let wrong_key = "d3Jvbmcta2V5LW9mLWEtdGVzdC1vbmx5LXdyb25nLWtleQ==";
    workspace.set_env("AZURE_STORAGE_KEY", wrong_key.to_string());
    let rejected = workspace.run(&DOCTOR);
    rejected.expect_code(2);
    let said = line(&rejected, "backend credentials");
    assert!(said.contains("rejected by the object store") && said.contains("`AZURE_STORAGE_KEY`"), "{said}");

    let (_, key) = store.environment().into_iter().find(|(name, _)| *name == "AZURE_STORAGE_KEY").unwrap();
    workspace.set_env("AZURE_STORAGE_KEY", key.clone());
    with_container(&workspace, &store, "missing");
    let missing = workspace.run(&DOCTOR);
    missing.expect_code(2);
    assert!(line(&missing, "backend bucket").contains("the container does not exist"), "{}", missing.stdout());
    for output in [&good, &rejected, &missing] {
        let printed = format!("{}{}", output.stdout(), output.stderr());
        assert!(!printed.contains(&key) && !printed.contains(wrong_key), "a key was printed:\n{printed}");
    }
}

#[test]
fn ext_gs_doctor_asks_the_store_and_names_a_missing_bucket() {
    let scratch = tempfile::tempdir().unwrap();
    let store = BlobStore::start(BlobKind::FakeGcs, &scratch.path().join("store"));
    let workspace = blob_workspace(&store, "net", "name: net\nruntime: yaml\n");
    let good = workspace.run(&DOCTOR);
    assert!(line(&good, "backend credentials").contains("accepted by the object store"), "{}", good.stdout());
    assert!(line(&good, "backend bucket").contains("the bucket exists"), "{}", good.stdout());
    with_container(&workspace, &store, "missing");
    let missing = workspace.run(&DOCTOR);
    missing.expect_code(2);
    assert!(line(&missing, "backend bucket").contains("the bucket does not exist"), "{}", missing.stdout());
}
