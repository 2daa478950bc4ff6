use super::*;
use crate::backend::credentials::gcs_credentials::tests::serve_once;
use crate::backend::credentials::gcs_service_account::tests::{key_json, TOKEN_ANSWER};

fn environment(vars: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
    vars.iter().map(|(key, value)| (key.to_string(), value.to_string())).collect()
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
            "`GOOGLE_CREDENTIALS` is neither a service-account key",
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
    let (address, server) = serve_once(TOKEN_ANSWER);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("key.json");
    std::fs::write(&file, key_json(&format!("http://{address}/token"))).unwrap();
    let file = file.display().to_string();
    let client =
        GcsClient::from_url("gs://state", &environment(&[("GOOGLE_APPLICATION_CREDENTIALS", &file)])).unwrap().unwrap();
    assert_eq!(client.token.as_deref(), Some("ya29.test"));
    assert!(server.join().unwrap().contains("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"));
}

/// After the variables, gcloud's application-default credentials are read where Google's clients
/// look: under `CLOUDSDK_CONFIG`, else `$HOME/.config/gcloud` (of the environment `pulumi` gets).
/// A variable still wins over the file.
#[test]
fn gclouds_application_default_credentials_are_found_where_google_looks() {
    let user = |address: std::net::SocketAddr| {
        format!(
            r#"{{"type": "authorized_user", "client_id": "c", "client_secret": "s", "refresh_token": "r", "token_uri": "http://{address}/token"}}"#
        )
    };
    let home = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let home_path = home.path().display().to_string();
    let config_path = config.path().display().to_string();
    let found = |vars: &[(&str, &str)]| GcsClient::from_url("gs://state", &environment(vars)).unwrap();

    let error = found(&[("HOME", &home_path)]).unwrap_err().to_string();
    assert!(error.contains("gcloud auth application-default login"), "{error}");

    std::fs::create_dir_all(home.path().join(".config/gcloud")).unwrap();
    let (address, server) = serve_once(TOKEN_ANSWER);
    std::fs::write(home.path().join(".config/gcloud/application_default_credentials.json"), user(address)).unwrap();
    assert_eq!(found(&[("HOME", &home_path)]).unwrap().token.as_deref(), Some("ya29.test"));
    assert!(server.join().unwrap().contains("grant_type=refresh_token"));

    // `CLOUDSDK_CONFIG` moves gcloud's folder: the one under `HOME` is no longer looked at.
    let error = found(&[("HOME", &home_path), ("CLOUDSDK_CONFIG", &config_path)]).unwrap_err().to_string();
    assert!(error.contains("gcloud auth application-default login"), "{error}");
    let (address, server) = serve_once(TOKEN_ANSWER);
    std::fs::write(config.path().join("application_default_credentials.json"), user(address)).unwrap();
    let client = found(&[("HOME", &home_path), ("CLOUDSDK_CONFIG", &config_path)]).unwrap();
    assert_eq!(client.token.as_deref(), Some("ya29.test"));
    server.join().unwrap();

    let token = found(&[("CLOUDSDK_CONFIG", &config_path), ("GOOGLE_OAUTH_ACCESS_TOKEN", "ya29.variable")]).unwrap();
    assert_eq!(token.token.as_deref(), Some("ya29.variable"), "the variable wins; no request was made");
}
