use super::*;

fn environment(vars: &[(&str, &str)]) -> ChildEnvironment {
    let root = crate::config::RepositoryRoot::unchecked(std::path::Path::new("/nonexistent"));
    ChildEnvironment::build(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())), &Default::default(), &root)
}

#[test]
fn the_emulator_is_unsigned_and_a_token_is_a_bearer() {
    let emulator = environment(&[("STORAGE_EMULATOR_HOST", "127.0.0.1:4443"), ("GOOGLE_OAUTH_ACCESS_TOKEN", "t")]);
    let client = GcsClient::from_url("gs://state/team/a", &emulator).unwrap().unwrap();
    assert_eq!(client.objects_url, "http://127.0.0.1:4443/storage/v1/b/state/o");
    assert_eq!((client.token, client.prefix.as_str()), (None, "team/a/"));
    let schemed = environment(&[("STORAGE_EMULATOR_HOST", "https://gcs.test:1/")]);
    assert_eq!(
        GcsClient::from_url("gs://state", &schemed).unwrap().unwrap().objects_url,
        "https://gcs.test:1/storage/v1/b/state/o"
    );
    let token = environment(&[("GOOGLE_OAUTH_ACCESS_TOKEN", "ya29.t")]);
    let client = GcsClient::from_url("gs://state", &token).unwrap().unwrap();
    assert_eq!(client.objects_url, "https://storage.googleapis.com/storage/v1/b/state/o");
    assert_eq!(client.token.as_deref(), Some("ya29.t"));
    assert_eq!(
        client.object_url(".pulumi/locks/a b.json"),
        format!("{}/.pulumi%2Flocks%2Fa%20b.json", client.objects_url)
    );
    assert!(GcsClient::from_url("s3://state", &token).is_none());
}

/// What the runner cannot sign with is named, and no credential is in the text.
#[test]
fn missing_or_bad_credentials_are_named_without_their_values() {
    let cases: [(&[(&str, &str)], &str); 3] = [
        (&[], "`GOOGLE_OAUTH_ACCESS_TOKEN`"),
        (
            &[("GOOGLE_CREDENTIALS", "{\"refresh_token\":\"very-secret\"}")],
            "`GOOGLE_CREDENTIALS` is not a service-account key",
        ),
        (
            &[("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/very-secret.json")],
            "cannot read `GOOGLE_APPLICATION_CREDENTIALS`",
        ),
    ];
    for (vars, expected) in cases {
        let error = GcsClient::from_url("gs://state", &environment(vars)).unwrap().unwrap_err().to_string();
        assert!(error.contains(expected), "{error}");
        assert!(!error.contains("very-secret\""), "{error}");
    }
}

/// `GOOGLE_APPLICATION_CREDENTIALS` names a service-account key file; the token comes from the
/// key's `token_uri` (a loopback server here).
#[test]
fn a_key_file_is_exchanged_for_a_bearer_token() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut socket, _) = listener.accept().unwrap();
        // The whole request is read first: closing with unread bytes would reset the connection.
        let mut request = Vec::new();
        let mut chunk = [0; 4096];
        while let Ok(read @ 1..) = socket.read(&mut chunk) {
            request.extend_from_slice(&chunk[..read]);
            let text = String::from_utf8_lossy(&request);
            let Some((head, body)) = text.split_once("\r\n\r\n") else { continue };
            let length = head
                .lines()
                .find_map(|line| {
                    line.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_string())
                })
                .and_then(|value| value.parse::<usize>().ok())
                .unwrap_or(0);
            if body.len() >= length {
                break;
            }
        }
        socket.write_all(super::super::gcs_service_account::tests::TOKEN_ANSWER).unwrap();
    });
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("key.json");
    std::fs::write(&file, super::super::gcs_service_account::tests::key_json(&format!("http://{address}/token")))
        .unwrap();
    let file = file.display().to_string();
    let client =
        GcsClient::from_url("gs://state", &environment(&[("GOOGLE_APPLICATION_CREDENTIALS", &file)])).unwrap().unwrap();
    assert_eq!(client.token.as_deref(), Some("ya29.test"));
}
