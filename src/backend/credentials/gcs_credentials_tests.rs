use super::*;
use crate::backend::credentials::gcs_service_account::tests::{key_json, TOKEN_ANSWER};

const USER: &str = r#"{"account": "", "client_id": "764.apps.googleusercontent.com", "client_secret": "d-very/secret",
    "quota_project_id": "demo", "refresh_token": "1//0g-very+secret", "type": "authorized_user",
    "universe_domain": "googleapis.com"}"#;

/// Answers one request with `answer` on a loopback port and hands back the request it read.
pub(crate) fn serve_once(answer: &'static [u8]) -> (std::net::SocketAddr, std::thread::JoinHandle<String>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
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
        socket.write_all(answer).unwrap();
        String::from_utf8_lossy(&request).into_owned()
    });
    (address, server)
}

fn kind(json: &str) -> Result<&'static str, ObjectStoreError> {
    match GcsCredentials::parse(json.as_bytes(), "GOOGLE_CREDENTIALS").map(|credentials| credentials.kind) {
        Ok(GcsCredentialsKind::ServiceAccount(_)) => Ok("service account"),
        Ok(GcsCredentialsKind::AuthorizedUser(_)) => Ok("authorized user"),
        Err(err) => Err(err),
    }
}

/// Each kind is told by its `type`, as Google's clients tell them; what cannot be read is named
/// by the variable it came from, never by a value inside it.
#[test]
fn credentials_are_told_apart_by_type_and_errors_carry_no_value() {
    assert_eq!(kind(USER).ok(), Some("authorized user"));
    assert_eq!(kind(&key_json("https://oauth2.test/token")).ok(), Some("service account"));
    let mut untyped: serde_json::Value = serde_json::from_str(&key_json("https://oauth2.test/token")).unwrap();
    untyped.as_object_mut().unwrap().remove("type").expect("the key had a type");
    assert_eq!(kind(&untyped.to_string()).ok(), Some("service account"));
    let cases = [
        (r#"{"type": "external_account", "audience": "very-secret"}"#, "credentials of `external_account`"),
        (r#"{"type": "Very-Secret-Token-Value"}"#, "credentials of an unknown type"),
        (r#"{"type": "authorized_user", "refresh_token": "very-secret"}"#, "is neither a service-account key"),
        (r#"{"refresh_token": "very-secret"}"#, "is neither a service-account key"),
        ("not json very-secret", "is neither a service-account key"),
    ];
    for (json, expected) in cases {
        let error = kind(json).unwrap_err().to_string();
        assert!(error.contains("`GOOGLE_CREDENTIALS`") && error.contains(expected), "{json}: {error}");
        assert!(!error.to_ascii_lowercase().contains("very-secret"), "{json}: {error}");
    }
}

/// gcloud's file names no `token_uri`: the refresh grant goes to Google's endpoint, its values
/// form-encoded (a refresh token holds `/` and `+`).
#[test]
fn a_refresh_token_is_posted_as_the_oauth_refresh_grant() {
    let GcsCredentialsKind::AuthorizedUser(user) = GcsCredentials::parse(USER.as_bytes(), "file").unwrap().kind else {
        panic!("an authorized user")
    };
    assert_eq!(user.token_uri, google_token_uri());
    assert_eq!(
        user.token_request(),
        "grant_type=refresh_token&client_id=764.apps.googleusercontent.com&client_secret=d-very%2Fsecret&refresh_token=1%2F%2F0g-very%2Bsecret"
    );
}

/// The exchange against a loopback token endpoint: the bearer token comes back; a refused grant
/// is named by its OAuth error code and the request's secrets stay out of the message.
#[test]
fn the_refresh_token_is_exchanged_and_a_refusal_is_named_by_its_code() {
    let (address, server) = serve_once(TOKEN_ANSWER);
    let json = USER.replace("\"type\"", &format!("\"token_uri\": \"http://{address}/token\", \"type\""));
    let credentials = GcsCredentials::parse(json.as_bytes(), "file").unwrap();
    assert_eq!(credentials.access_token().unwrap(), "ya29.test");
    let request = server.join().unwrap();
    assert!(request.starts_with("POST /token "), "{request}");
    assert!(request.contains("application/x-www-form-urlencoded"), "{request}");
    assert!(request.ends_with("&refresh_token=1%2F%2F0g-very%2Bsecret"), "{request}");

    const REFUSED: &[u8] = b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 62\r\nconnection: close\r\n\r\n{\"error\":\"invalid_grant\",\"error_description\":\"Bad Request xx\"}";
    let (address, server) = serve_once(REFUSED);
    let json = USER.replace("\"type\"", &format!("\"token_uri\": \"http://{address}/token\", \"type\""));
    let error = GcsCredentials::parse(json.as_bytes(), "adc.json").unwrap().access_token().unwrap_err();
    server.join().unwrap();
    let said = crate::error::ErrorChain(&error).to_string();
    assert!(said.starts_with("the credentials in `adc.json` got no token: "), "{said}");
    assert!(said.contains("400") && said.contains("invalid_grant"), "{said}");
    assert!(said.ends_with("sign in again with `gcloud auth application-default login`"), "{said}");
    assert!(!said.contains("very"), "{said}");
}
