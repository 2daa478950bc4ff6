//! Loopback HTTP and HTTPS servers for readiness-gate tests, shared by the unit tests of
//! `src/hooks/` and the integration tests (both include this file with `#[path]`).
//!
//! Each server runs on its own thread with its own runtime, so sync and async tests can use it,
//! answers every connection with the same bytes, and ends with the test process.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_rustls::rustls;

/// A private certificate authority and a server certificate it signed for `localhost`,
/// `127.0.0.1` and `::1`: what a cluster's ingress with an internal CA looks like.
pub(crate) struct PrivateCa {
    /// The authority's certificate, the content of a gate's `ca_file`.
    pub(crate) ca_pem: String,
    pub(crate) server_config: Arc<rustls::ServerConfig>,
    /// The server's certificate and key, for a server that reads them from files (Azurite).
    pub(crate) server_cert_pem: String,
    pub(crate) server_key_pem: String,
}

impl PrivateCa {
    pub(crate) fn new() -> Self {
        use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.distinguished_name.push(DnType::CommonName, "runner test CA");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
        let server_key = KeyPair::generate().unwrap();
        let names = vec!["localhost".to_string(), "127.0.0.1".to_string(), "::1".to_string()];
        let server_cert = CertificateParams::new(names).unwrap().signed_by(&server_key, &ca).unwrap();
        let key = rustls::pki_types::PrivateKeyDer::Pkcs8(server_key.serialize_der().into());
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let server_config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![server_cert.der().clone()], key)
            .unwrap();
        Self {
            ca_pem: ca.pem(),
            server_config: Arc::new(server_config),
            server_cert_pem: server_cert.pem(),
            server_key_pem: server_key.serialize_pem(),
        }
    }
}

/// Serves `response` (a whole HTTP answer) on `bind` (`127.0.0.1:0`, `[::1]:0`), over TLS when
/// `tls` is given; returns the bound address.
pub(crate) fn serve(bind: &str, tls: Option<Arc<rustls::ServerConfig>>, response: &'static [u8]) -> SocketAddr {
    let listener = std::net::TcpListener::bind(bind).expect("bind a loopback port");
    listener.set_nonblocking(true).unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
            loop {
                let Ok((socket, _)) = listener.accept().await else { continue };
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    match acceptor {
                        Some(acceptor) => {
                            if let Ok(stream) = acceptor.accept(socket).await {
                                answer(stream, response).await;
                            }
                        }
                        None => answer(socket, response).await,
                    }
                });
            }
        });
    });
    address
}

/// Accepts connections and never answers: a gate must give up on its own clock.
pub(crate) fn silent(bind: &str) -> SocketAddr {
    let listener = std::net::TcpListener::bind(bind).expect("bind a loopback port");
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for socket in listener.incoming().flatten() {
            held.push(socket);
        }
    });
    address
}

async fn answer<S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin>(mut stream: S, response: &[u8]) {
    // The request head ends with an empty line; a GET has no body.
    let mut request = Vec::new();
    let mut buffer = [0u8; 1024];
    while !request.windows(4).any(|window| window == b"\r\n\r\n") {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(read) => request.extend_from_slice(&buffer[..read]),
        }
    }
    let _ = stream.write_all(response).await;
    let _ = stream.shutdown().await;
}

pub(crate) const HEALTHY: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\nhealthy";

/// The body in three chunks, the word `ready` split across two of them.
pub(crate) const CHUNKED: &[u8] =
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n4\r\nall \r\n3\r\nrea\r\n2\r\ndy\r\n0\r\n\r\n";

/// A loopback port bound and never listened on, held while this lives: a connection to it is
/// refused, and no server can take it meanwhile (a port merely found free could be).
pub(crate) struct ClosedPort {
    _socket: std::os::fd::OwnedFd,
    pub(crate) port: u16,
}

impl ClosedPort {
    pub(crate) fn hold() -> Self {
        use rustix::net::{AddressFamily, SocketType};
        let socket = rustix::net::socket(AddressFamily::INET, SocketType::STREAM, None).expect("a socket");
        rustix::net::bind(&socket, &std::net::SocketAddrV4::new(std::net::Ipv4Addr::LOCALHOST, 0))
            .expect("bound to 127.0.0.1:0");
        let address = rustix::net::getsockname(&socket).expect("its address");
        let port = std::net::SocketAddr::try_from(address).expect("an IPv4 address").port();
        Self { _socket: socket, port }
    }
}
