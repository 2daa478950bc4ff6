use std::os::unix::fs::PermissionsExt;

use super::*;
use crate::backend::credentials::gcs_credentials::tests::serve_once;
use crate::backend::credentials::gcs_service_account::tests::TOKEN_ANSWER;

fn environment(vars: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
    vars.iter().map(|(key, value)| (key.to_string(), value.to_string())).collect()
}

/// A stand-in `az` in its own folder: it writes its arguments next to itself and runs `body`.
fn fake_az(body: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("az");
    std::fs::write(&script, format!("#!/bin/sh\necho \"$@\" > \"${{0%/*}}/args\"\n{body}\n")).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

fn kind(identity: Option<AzureIdentity>) -> &'static str {
    match identity {
        Some(AzureIdentity::ClientSecret { .. }) => "client secret",
        Some(AzureIdentity::WorkloadIdentity { .. }) => "workload identity",
        Some(AzureIdentity::AzureCli { .. }) => "azure cli",
        None => "none",
    }
}

/// `DefaultAzureCredential`'s order: a service principal's secret, then a federated token file,
/// then `az` on the run's `PATH`; a tenant or a client id alone is no sign-in.
#[test]
fn the_sign_in_is_chosen_in_the_azure_sdks_order() {
    let az = fake_az("exit 1");
    let path = az.path().display().to_string();
    let principal = [("AZURE_TENANT_ID", "t"), ("AZURE_CLIENT_ID", "c")];
    let with = |extra: &[(&str, &str)]| {
        let vars: Vec<(&str, &str)> = principal.iter().chain(extra).copied().collect();
        kind(AzureIdentity::from_environment(&environment(&vars)))
    };
    assert_eq!(
        with(&[("AZURE_CLIENT_SECRET", "s"), ("AZURE_FEDERATED_TOKEN_FILE", "/f"), ("PATH", &path)]),
        "client secret"
    );
    assert_eq!(with(&[("AZURE_FEDERATED_TOKEN_FILE", "/f"), ("PATH", &path)]), "workload identity");
    assert_eq!(with(&[("PATH", &path)]), "azure cli");
    assert_eq!(with(&[]), "none");
    let secret_without_tenant = environment(&[("AZURE_CLIENT_ID", "c"), ("AZURE_CLIENT_SECRET", "s")]);
    assert_eq!(kind(AzureIdentity::from_environment(&secret_without_tenant)), "none");
}

/// The client-credentials grant goes to the tenant's v2.0 endpoint under `AZURE_AUTHORITY_HOST`,
/// scoped to Azure Storage; the token comes back.
#[test]
fn a_service_principal_secret_is_exchanged_at_its_tenant() {
    let (address, server) = serve_once(TOKEN_ANSWER);
    let authority = format!("http://{address}/");
    let vars = [
        ("AZURE_AUTHORITY_HOST", authority.as_str()),
        ("AZURE_TENANT_ID", "contoso.onmicrosoft.com"),
        ("AZURE_CLIENT_ID", "00000000-app"),
        ("AZURE_CLIENT_SECRET", "very~secret/+="),
    ];
    let environment = environment(&vars);
    let identity = AzureIdentity::from_environment(&environment).unwrap();
    assert_eq!(identity.access_token(&environment).unwrap(), "ya29.test");
    let request = server.join().unwrap();
    assert!(request.starts_with("POST /contoso.onmicrosoft.com/oauth2/v2.0/token "), "{request}");
    assert!(
        request.ends_with(
            "grant_type=client_credentials&client_id=00000000-app&client_secret=very~secret%2F%2B%3D&scope=https%3A%2F%2Fstorage.azure.com%2F.default"
        ),
        "{request}"
    );
}

/// A workload identity proves itself with the token file's content (read at each request, as
/// the file is rotated), and a refusal names the sign-in, its code and what to check, never the
/// token or a secret.
#[test]
fn a_federated_token_is_the_client_assertion_and_a_refusal_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    std::fs::write(&file, "eyJhbGciOi.very-secret.sig\n").unwrap();
    const REFUSED: &[u8] = b"HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: 59\r\nconnection: close\r\n\r\n{\"error\":\"invalid_client\",\"error_description\":\"AADSTS7000\"}";
    let (address, server) = serve_once(REFUSED);
    let authority = format!("http://{address}");
    let file_name = file.display().to_string();
    let vars = [
        ("AZURE_AUTHORITY_HOST", authority.as_str()),
        ("AZURE_TENANT_ID", "tenant"),
        ("AZURE_CLIENT_ID", "app"),
        ("AZURE_FEDERATED_TOKEN_FILE", file_name.as_str()),
    ];
    let environment = environment(&vars);
    let error = AzureIdentity::from_environment(&environment).unwrap().access_token(&environment).unwrap_err();
    let request = server.join().unwrap();
    assert!(request.contains("client_assertion=eyJhbGciOi.very-secret.sig&scope="), "{request}");
    assert!(request.contains("client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer"));
    let said = crate::error::ErrorChain(&error).to_string();
    assert!(said.starts_with("the workload identity of `AZURE_FEDERATED_TOKEN_FILE` got no token: "), "{said}");
    assert!(
        said.contains("401") && said.contains("invalid_client") && said.contains("check `AZURE_TENANT_ID`"),
        "{said}"
    );
    assert!(!said.contains("very-secret"), "{said}");

    std::fs::remove_file(&file).unwrap();
    let error = AzureIdentity::from_environment(&environment).unwrap().access_token(&environment).unwrap_err();
    assert!(error.to_string().starts_with("cannot read `AZURE_FEDERATED_TOKEN_FILE`"), "{error}");
}

/// `az account get-access-token` for the storage resource, run with the run's environment: its
/// `accessToken` is the token; a CLI nobody signed in to is named with `az login`.
#[test]
fn the_azure_cli_is_asked_for_a_storage_token() {
    let expires_on = time::OffsetDateTime::now_utc().unix_timestamp() + 3600;
    let az =
        fake_az(&format!(r#"echo '{{"accessToken": "eyJ.cli", "expires_on": {expires_on}, "tokenType": "Bearer"}}'"#));
    let path = az.path().display().to_string();
    let environment = environment(&[("PATH", &path)]);
    let identity = AzureIdentity::from_environment(&environment).unwrap();
    assert_eq!(identity.access_token(&environment).unwrap(), "eyJ.cli");
    let args = std::fs::read_to_string(az.path().join("args")).unwrap();
    assert_eq!(args.trim(), "account get-access-token --output json --resource https://storage.azure.com");
    // Every project's locks are read with one token: `az` ran once.
    std::fs::remove_file(az.path().join("args")).unwrap();
    assert_eq!(identity.access_token(&environment).unwrap(), "eyJ.cli");
    assert!(!az.path().join("args").exists(), "az ran again for a token it had given");

    let signed_out = fake_az("echo \"ERROR: Please run 'az login' to setup account.\" >&2\nexit 1");
    let path = signed_out.path().display().to_string();
    let environment = crate::backend::credentials::azure_identity::tests::environment(&[("PATH", &path)]);
    let error = AzureIdentity::from_environment(&environment).unwrap().access_token(&environment).unwrap_err();
    assert_eq!(
        error.to_string(),
        "`az account get-access-token` gave no token (exit code 1): ERROR: Please run 'az login' to setup account.; sign in with `az login`"
    );
}
