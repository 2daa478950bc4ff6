//! `http` gates against loopback servers: IPv6, chunked bodies, `https` with a private CA, and
//! the gate's clock when a server never answers.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use super::test_servers::{self, PrivateCa, CHUNKED, HEALTHY};
use super::{http_get, wait_until_ready};
use crate::cancel::Cancellation;
use crate::provider::{GateCheck, ReadinessGate};

#[tokio::test]
async fn ipv6_literals_work() {
    let address = test_servers::serve("[::1]:0", None, HEALTHY);
    let url = format!("http://[::1]:{}/healthz", address.port());
    http_get(&url, Some("healthy"), None).await.unwrap();
}

#[tokio::test]
async fn chunked_bodies_are_read_whole() {
    let address = test_servers::serve("127.0.0.1:0", None, CHUNKED);
    let url = format!("http://{address}/");
    http_get(&url, Some("all ready"), None).await.unwrap();
}

#[tokio::test]
async fn statuses_other_than_2xx_fail_with_the_body() {
    let address = test_servers::serve(
        "127.0.0.1:0",
        None,
        b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 8\r\nConnection: close\r\n\r\nwarming!",
    );
    let error = http_get(&format!("http://{address}/"), None, None).await.unwrap_err();
    assert_eq!(error.to_string(), "HTTP 503: warming!");
}

#[tokio::test]
async fn https_trusts_the_gates_ca_file() {
    let ca = PrivateCa::new();
    let address = test_servers::serve("127.0.0.1:0", Some(ca.server_config.clone()), HEALTHY);
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &ca.ca_pem).unwrap();
    for host in ["localhost", "127.0.0.1"] {
        let url = format!("https://{host}:{}/healthz", address.port());
        http_get(&url, Some("healthy"), Some(&ca_file)).await.unwrap_or_else(|err| panic!("{url}: {err}"));
    }
}

#[tokio::test]
async fn https_over_ipv6_with_a_private_ca() {
    let ca = PrivateCa::new();
    let address = test_servers::serve("[::1]:0", Some(ca.server_config.clone()), CHUNKED);
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &ca.ca_pem).unwrap();
    let url = format!("https://[::1]:{}/", address.port());
    http_get(&url, Some("ready"), Some(&ca_file)).await.unwrap();
}

#[tokio::test]
async fn https_refuses_a_certificate_no_trusted_authority_signed() {
    let ca = PrivateCa::new();
    let address = test_servers::serve("127.0.0.1:0", Some(ca.server_config.clone()), HEALTHY);
    let error = http_get(&format!("https://localhost:{}/", address.port()), None, None).await.unwrap_err().to_string();
    assert!(error.contains("UnknownIssuer") || error.contains("unknown issuer"), "{error}");
    assert!(error.starts_with("GET https://localhost:") && error.matches("localhost").count() == 1, "{error}");

    // Another CA's file does not help either.
    let other = PrivateCa::new();
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("other.pem");
    std::fs::write(&ca_file, &other.ca_pem).unwrap();
    let error = http_get(&format!("https://localhost:{}/", address.port()), None, Some(&ca_file)).await.unwrap_err();
    let error = crate::error::ErrorChain(&error).to_string();
    assert!(error.contains("invalid peer certificate"), "{error}");
}

#[tokio::test]
async fn a_missing_or_empty_ca_file_is_the_attempts_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.pem");
    let error = http_get("https://localhost:1/", None, Some(&missing)).await.unwrap_err();
    let source = std::error::Error::source(&error).and_then(|source| source.downcast_ref::<std::io::Error>());
    assert_eq!(source.map(std::io::Error::kind), Some(std::io::ErrorKind::NotFound), "{error:?}");
    let error = crate::error::ErrorChain(&error).to_string();
    assert!(error.starts_with("cannot read `ca_file`"), "{error}");
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "not a certificate\n").unwrap();
    let error = http_get("https://localhost:1/", None, Some(&empty)).await.unwrap_err().to_string();
    assert!(error.contains("holds no PEM certificate"), "{error}");
}

#[tokio::test]
async fn a_server_that_never_answers_is_cut_off_by_the_gates_clock() {
    let address = test_servers::silent("127.0.0.1:0");
    let gate = ReadinessGate {
        check: GateCheck::Http { url: format!("http://{address}/"), expect_body: None, ca_file: None },
        timeout: Duration::from_millis(100),
        interval: Duration::from_millis(50),
    };
    let started = Instant::now();
    let outcome = wait_until_ready(&gate, Path::new("."), &BTreeMap::new(), &Cancellation::new()).await;
    assert!(!outcome.passed);
    assert!(outcome.last_attempt.starts_with("no answer within 2s"), "{outcome:?}");
    // One attempt of at least MIN_ATTEMPT; generous for a loaded machine, far below "hangs".
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
}
