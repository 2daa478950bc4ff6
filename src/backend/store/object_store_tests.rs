use super::*;

/// A loopback server that answers each request with the first `(needle, body)` whose needle is
/// in the request line (a body `403` or `404` is that status); returns its address and the request lines.
pub(crate) fn pages(answers: &'static [(&'static str, &'static str)]) -> (String, std::sync::mpsc::Receiver<String>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let (seen, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(mut socket) = socket else { continue };
            let mut head = Vec::new();
            let mut byte = [0; 1];
            while !head.ends_with(b"\r\n\r\n") && socket.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            let line = String::from_utf8_lossy(&head).lines().next().unwrap_or_default().to_string();
            let body = answers.iter().find(|(needle, _)| line.contains(needle)).map_or("", |(_, body)| body);
            let _ = seen.send(line);
            let (status, body) = match body {
                "403" => ("403 Forbidden", ""),
                "404" => ("404 Not Found", ""),
                body => ("200 OK", body),
            };
            let answer =
                format!("HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len());
            let _ = socket.write_all(answer.as_bytes());
        }
    });
    (address, lines)
}

fn environment(vars: &[(&str, String)]) -> std::collections::BTreeMap<String, String> {
    vars.iter().map(|(key, value)| (key.to_string(), value.clone())).collect()
}

/// Azure's List Blobs goes on while `NextMarker` names a page, and stops at an empty one.
#[test]
fn azure_lists_every_page() {
    static ANSWERS: &[(&str, &str)] = &[
        ("marker=m%262", "<EnumerationResults><Blobs><Blob><Name>p/b.json</Name></Blob></Blobs><NextMarker /></EnumerationResults>"),
        ("comp=list", "<EnumerationResults><Blobs><Blob><Name>p/a&amp;.json</Name></Blob></Blobs><NextMarker>m&amp;2</NextMarker></EnumerationResults>"),
    ];
    let (address, lines) = pages(ANSWERS);
    let connection = format!("BlobEndpoint=http://{address}/acct;SharedAccessSignature=sv=1&sig=s");
    let store =
        open_object_store("azblob://state/team", &environment(&[("AZURE_STORAGE_CONNECTION_STRING", connection)]))
            .unwrap()
            .unwrap();
    assert_eq!(store.prefix(), "team/");
    assert_eq!(store.list("p/").unwrap(), ["p/a&.json", "p/b.json"]);
    let seen: Vec<String> = lines.try_iter().collect();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen[0].starts_with("GET /acct/state?comp=list&prefix=p%2F&restype=container&sv=1&sig=s "), "{seen:?}");
}

/// GCS lists go on while `nextPageToken` names a page.
#[test]
fn gcs_lists_every_page() {
    static ANSWERS: &[(&str, &str)] = &[
        ("pageToken=t%2B2", r#"{"items":[{"name":"p/b.json"}]}"#),
        ("/o?prefix=", r#"{"items":[{"name":"p/a.json"}],"nextPageToken":"t+2"}"#),
    ];
    let (address, lines) = pages(ANSWERS);
    let store = open_object_store("gs://state", &environment(&[("STORAGE_EMULATOR_HOST", address)])).unwrap().unwrap();
    assert_eq!(store.list("p/").unwrap(), ["p/a.json", "p/b.json"]);
    let seen: Vec<String> = lines.try_iter().collect();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen[0].starts_with("GET /storage/v1/b/state/o?prefix=p%2F "), "{seen:?}");
}

/// Every object-store URL opens its own client, and nothing else opens one.
#[test]
fn each_scheme_opens_its_store() {
    let credentials = environment(&[
        ("AWS_ACCESS_KEY_ID", "a".into()),
        ("AWS_SECRET_ACCESS_KEY", "s".into()),
        ("AZURE_STORAGE_ACCOUNT", "acct".into()),
        ("AZURE_STORAGE_KEY", "a2V5".into()),
        ("GOOGLE_OAUTH_ACCESS_TOKEN", "t".into()),
    ]);
    for url in ["s3://b/p", "azblob://b/p", "gs://b/p"] {
        assert_eq!(open_object_store(url, &credentials).unwrap().unwrap().prefix(), "p/", "{url}");
    }
    for url in ["file:///tmp/x", "https://api.pulumi.com", "ftp://b"] {
        assert!(open_object_store(url, &credentials).is_none(), "{url}");
    }
}
