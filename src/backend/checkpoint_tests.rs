use super::*;

/// Written by the real `pulumi up` (v3.259.0) on a file backend, passphrase `pw`, trimmed to the
/// stack resource: a plain output and a secret one.
fn checkpoint(resources: &str) -> Vec<u8> {
    format!(
        r#"{{"version":3,"checkpoint":{{"stack":"organization/net/dev","latest":{{"manifest":{{}},"secrets_providers":{{"type":"passphrase","state":{{"salt":"v1:vX76qIDhlhw=:v1:3Q8rc+XmVFpzYrj6:hVXZuopwAZjzEkI5XpdTkldruXSjnQ=="}}}},"resources":{resources}}}}}}}"#
    )
    .into_bytes()
}

#[test]
fn the_stack_outputs_and_the_passphrase_salt_are_read() {
    let stack = r#"[{"urn":"urn:pulumi:dev::net::pulumi:pulumi:Stack::net-dev","custom":false,"type":"pulumi:pulumi:Stack","outputs":{"name":"local-dev-net","token":{"4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270","ciphertext":"v1:o+iQGYUsB4FSekU0:1bC9V2nHzGUi7KR5GvgphkzMRbNoZew="}}},{"urn":"urn:pulumi:dev::net::pulumi:index:Stash::n","custom":true,"type":"pulumi:index:Stash","parent":"urn:pulumi:dev::net::pulumi:pulumi:Stack::net-dev"}]"#;
    let read = Checkpoint::parse("dev.json", checkpoint(stack)).unwrap();
    assert_eq!(read.resource_count(), 2);
    let outputs = read.stack_outputs().unwrap();
    assert_eq!(outputs["name"], "local-dev-net");
    assert_eq!(read.passphrase_salt(), Some("v1:vX76qIDhlhw=:v1:3Q8rc+XmVFpzYrj6:hVXZuopwAZjzEkI5XpdTkldruXSjnQ=="));
    let key = PassphraseKey::open(read.passphrase_salt().unwrap(), "pw").unwrap();
    // The real pulumi sealed `hunter2` (a config value, here as an output): a plain string, not JSON.
    assert_eq!(opened_value(&outputs["token"], Some(&key)), serde_json::json!({"secret": "hunter2"}));
    let sealed = opened_value(&outputs["token"], None);
    assert_eq!(sealed["sealed"], outputs["token"]["ciphertext"], "without the key, its ciphertext stands for it");
    assert!(!sealed.to_string().contains("hunter2"));
}

#[test]
fn destroyed_never_updated_and_gzipped_checkpoints_are_read() {
    assert_eq!(Checkpoint::parse("dev.json", checkpoint("[]")).unwrap().resource_count(), 0);
    let never = br#"{"version":3,"checkpoint":{"stack":"organization/net/dev","latest":null}}"#.to_vec();
    let never = Checkpoint::parse("dev.json", never).unwrap();
    assert_eq!((never.resource_count(), never.stack_outputs()), (0, None));
    let mut zipped = Vec::new();
    {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(&mut zipped, flate2::Compression::default());
        encoder.write_all(&checkpoint("[]")).unwrap();
        encoder.finish().unwrap();
    }
    assert!(Checkpoint::parse("dev.json.gz", zipped.clone()).is_ok());
    assert!(matches!(Checkpoint::parse("dev.json", zipped), Err(CheckpointError::Json { .. })));
    assert!(matches!(Checkpoint::parse("dev.json.gz", b"{}".to_vec()), Err(CheckpointError::Gzip { .. })));
}

#[test]
fn a_plaintext_secret_is_opened_without_a_key() {
    let secret = serde_json::json!({"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "plaintext": "{\"a\":1}"});
    assert_eq!(
        opened_value(&serde_json::json!({"x": [secret]}), None),
        serde_json::json!({"x": [{"secret": {"a": 1}}]})
    );
}
