use super::*;

fn environment(vars: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
    vars.iter().map(|(key, value)| (key.to_string(), value.to_string())).collect()
}

const KEY: &str = "a2V5";

/// Every shape of service URL gocloud builds, and its order of credentials.
#[test]
fn the_service_url_and_credentials_follow_gocloud() {
    let shared = environment(&[("AZURE_STORAGE_ACCOUNT", "acct"), ("AZURE_STORAGE_KEY", KEY)]);
    let cases = [
        ("azblob://state", "https://acct.blob.core.windows.net/state"),
        ("azblob://state/team/a", "https://acct.blob.core.windows.net/state"),
        ("azblob://state?domain=127.0.0.1:10000&protocol=http", "http://127.0.0.1:10000/acct/state"),
        ("azblob://state?domain=blob.emu:1&localemu=true&protocol=http", "http://blob.emu:1/acct/state"),
        ("azblob://state?domain=cdn.example.com&cdn=true", "https://cdn.example.com/state"),
        ("azblob://state?storage_account=other", "https://other.blob.core.windows.net/state"),
        ("azblob://state?domain=blob.core.chinacloudapi.cn", "https://acct.blob.core.chinacloudapi.cn/state"),
    ];
    for (url, container_url) in cases {
        let client = AzureBlobClient::from_url(url, &shared).unwrap().unwrap();
        assert_eq!(client.container_url, container_url, "{url}");
        // Gocloud signs with the environment's account, whatever the URL names.
        assert_eq!(client.shared_key, Some(("acct".to_string(), b"key".to_vec())), "{url}");
    }
    assert_eq!(AzureBlobClient::from_url("azblob://state/team/a/", &shared).unwrap().unwrap().prefix, "team/a/");

    let sas = environment(&[("AZURE_STORAGE_ACCOUNT", "acct"), ("AZURE_STORAGE_SAS_TOKEN", "?sv=1&sig=s")]);
    let client = AzureBlobClient::from_url("azblob://state", &sas).unwrap().unwrap();
    assert_eq!((client.sas_token.as_deref(), client.shared_key), (Some("sv=1&sig=s"), None));

    let connection = environment(&[(
        "AZURE_STORAGE_CONNECTION_STRING",
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;",
    )]);
    let client = AzureBlobClient::from_url("azblob://state", &connection).unwrap().unwrap();
    assert_eq!(client.container_url, "http://127.0.0.1:10000/devstoreaccount1/state");
    assert_eq!(client.shared_key, Some(("devstoreaccount1".to_string(), b"key".to_vec())));
    let suffix = environment(&[("AZURE_STORAGE_CONNECTION_STRING", "AccountName=a;SharedAccessSignature=sv=2&sig=x")]);
    let client = AzureBlobClient::from_url("azblob://state", &suffix).unwrap().unwrap();
    assert_eq!(
        (client.container_url.as_str(), client.sas_token.as_deref()),
        ("https://a.blob.core.windows.net/state", Some("sv=2&sig=x"))
    );

    assert!(AzureBlobClient::from_url("gs://state", &shared).is_none());
}

/// What the runner cannot authenticate with is named, and no credential is in the text.
#[test]
fn missing_or_bad_credentials_are_named_without_their_values() {
    let cases: [&[(&str, &str)]; 4] = [
        &[],
        &[("AZURE_STORAGE_ACCOUNT", "acct")],
        &[("AZURE_STORAGE_ACCOUNT", "acct"), ("AZURE_STORAGE_KEY", "not base64 at all!")],
        &[("AZURE_STORAGE_CONNECTION_STRING", "AccountName=a;AccountKey=not base64 at all!")],
    ];
    for vars in cases {
        let error = AzureBlobClient::from_url("azblob://state", &environment(vars)).unwrap().unwrap_err().to_string();
        assert!(error.contains("AZURE_STORAGE_"), "{error}");
        assert!(!error.contains("not base64 at all"), "{error}");
    }
    let no_account = environment(&[("AZURE_STORAGE_SAS_TOKEN", "sig=s")]);
    let error = AzureBlobClient::from_url("azblob://state", &no_account).unwrap().unwrap_err().to_string();
    assert!(error.contains("`AZURE_STORAGE_ACCOUNT` is not set"), "{error}");
}

/// The example of Azure's Shared Key documentation shape: verb, eleven empty headers, the
/// `x-ms-` headers sorted, then `/account/path` and the query sorted by name.
#[test]
fn the_shared_key_string_to_sign_is_canonical() {
    let headers = [("x-ms-version".to_string(), "v".to_string()), ("x-ms-date".to_string(), "d".to_string())];
    let query = [("restype", "container".to_string()), ("comp", "list".to_string())];
    let signature = shared_key_signature("GET", "http://127.0.0.1:10000/acct/state", &query, &headers, "acct", b"key");
    let expected =
        "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:d\nx-ms-version:v\n/acct/acct/state\ncomp:list\nrestype:container";
    let tag = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, b"key"), expected.as_bytes());
    assert_eq!(signature, base64::engine::general_purpose::STANDARD.encode(tag.as_ref()));
}
