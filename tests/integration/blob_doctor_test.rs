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

/// With no variable set, the credentials `gcloud auth application-default login` left under the
/// run's `HOME` are what doctor signs with: here their refresh token is refused by the token
/// endpoint (a loopback stand-in named by the file's `token_uri`), which doctor names by its OAuth
/// code, with what to do, and without any value from the file.
#[test]
fn gs_doctor_signs_with_gclouds_application_default_credentials() {
    let workspace =
        Workspace::with_fake_pulumi("[[project]]\npath = \"net\"\nphase = \"infrastructure\"\n", &["net"], "{}");
    workspace.env_file("PULUMI_STACK=dev\nPULUMI_BACKEND_URL=gs://team-state\nPULUMI_CONFIG_PASSPHRASE=gcs-doctor\n");
    let unsigned = workspace.run(&["doctor", "--provider", "demo"]);
    unsigned.expect_code(2);
    let said = line(&unsigned, "backend credentials");
    assert!(said.contains("gcloud auth application-default login"), "{said}");

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let token_uri = format!("http://{}/token", listener.local_addr().unwrap());
    let endpoint = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut socket, _) = listener.accept().unwrap();
        let mut request = Vec::new();
        let mut chunk = [0; 4096];
        while !String::from_utf8_lossy(&request).contains("refresh_token=") {
            let read = socket.read(&mut chunk).unwrap();
            assert!(read > 0, "the request ended before its form");
            request.extend_from_slice(&chunk[..read]);
        }
        let body = r#"{"error":"invalid_grant","error_description":"Token has been expired or revoked."}"#;
        let answer = format!(
            "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        socket.write_all(answer.as_bytes()).unwrap();
        String::from_utf8_lossy(&request).into_owned()
    });
    workspace.file(
        "home/.config/gcloud/application_default_credentials.json",
        format!(
            r#"{{"client_id": "764-id.apps.googleusercontent.com", "client_secret": "d-FL95-client-secret", "refresh_token": "1//0g-refresh-secret", "type": "authorized_user", "token_uri": "{token_uri}"}}"#
        ),
    );
    let refused = workspace.run(&["doctor", "--provider", "demo"]);
    refused.expect_code(2);
    let request = endpoint.join().unwrap();
    assert!(request.contains("grant_type=refresh_token") && request.contains("1%2F%2F0g-refresh-secret"), "{request}");
    let said = line(&refused, "backend credentials");
    assert!(said.contains("application_default_credentials.json` got no token"), "{said}");
    assert!(said.contains("400") && said.contains("invalid_grant"), "{said}");
    assert!(said.contains("sign in again with `gcloud auth application-default login`"), "{said}");
    let printed = format!("{}{}", refused.stdout(), refused.stderr());
    for secret in ["d-FL95-client-secret", "refresh-secret", "764-id"] {
        assert!(!printed.contains(secret), "`{secret}` was printed:\n{printed}");
    }
}
