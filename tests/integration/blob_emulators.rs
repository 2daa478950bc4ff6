//! Real Azure Blob and Google Cloud Storage emulators on loopback (Azurite, built by
//! `scripts/install-azurite.sh`; fake-gcs-server, built by `scripts/install-fake-gcs.sh`), for
//! tests of Pulumi's `azblob://` and `gs://` backends. The test puts, lists and reads objects
//! through their HTTP APIs, as Pulumi would.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use base64::Engine as _;

use crate::kube_api_server::{cache_root, ChildGuard};
use crate::loopback_port::start_listening;

/// Kept in step with the install scripts.
const AZURITE_BUILD: &str = "azurite-3.35.0";
const FAKE_GCS_BUILD: &str = "fake-gcs-server-v1.52.2";
/// Azurite's well-known development account (public, in Microsoft's documentation).
pub(crate) const AZURITE_ACCOUNT: &str = "devstoreaccount1";
pub(crate) const AZURITE_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
pub(crate) const CONTAINER: &str = "state";

fn binary(variable: &str, build: &str, name: &str, script: &str) -> PathBuf {
    crate::support::needs_external(name);
    let dir = match std::env::var_os(variable) {
        Some(dir) => PathBuf::from(dir),
        None => cache_root().join(build).join("bin"),
    };
    let binary = dir.join(name);
    assert!(binary.is_file(), "`{}` is missing: run `scripts/{script}`", binary.display());
    binary
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BlobKind {
    /// Azurite, with the account's Shared Key.
    Azurite,
    /// Azurite, with an account SAS token and no key.
    AzuriteSas,
    /// Azurite over HTTPS checking bearer tokens (`--oauth basic`: issuer, audience, lifetime),
    /// with a service principal's variables and a loopback Microsoft Entra ID token endpoint.
    AzuriteEntraId,
    FakeGcs,
}

/// The service principal of `AzuriteEntraId`; its secret, given as `wrong`, gets a token for
/// another audience, which Azurite refuses.
pub(crate) const ENTRA_TENANT: &str = "runner-test-tenant";
pub(crate) const ENTRA_CLIENT: &str = "runner-test-app";
pub(crate) const ENTRA_SECRET: &str = "entra-test-secret";

/// One emulator with the container (bucket) `state`, stopped when dropped.
pub(crate) struct BlobStore {
    _process: ChildGuard,
    pub kind: BlobKind,
    port: u16,
    /// `AzuriteEntraId`: the private authority's certificate (in a file) and the token endpoint.
    tls: Option<(String, PathBuf, u16)>,
}

impl BlobStore {
    pub(crate) fn start(kind: BlobKind, root: &Path) -> Self {
        std::fs::create_dir_all(root).unwrap();
        let log = std::fs::File::create(root.with_extension("log")).unwrap();
        let mut tls = None;
        if kind == BlobKind::AzuriteEntraId {
            let ca = crate::https_gate_test::test_servers::PrivateCa::new();
            let file = |name: &str, pem: &str| {
                let path = root.with_extension(name);
                std::fs::write(&path, pem).unwrap();
                path
            };
            file("cert.pem", &ca.server_cert_pem);
            file("key.pem", &ca.server_key_pem);
            tls = Some((ca.ca_pem.clone(), file("ca.pem", &ca.ca_pem), serve_entra_tokens()));
        }
        let command = |port: u16| match kind {
            BlobKind::Azurite | BlobKind::AzuriteSas | BlobKind::AzuriteEntraId => {
                let mut command =
                    Command::new(binary("RUNNER_AZURITE_BIN", AZURITE_BUILD, "azurite-blob", "install-azurite.sh"));
                command.args(["--blobHost", "127.0.0.1", "--blobPort", &port.to_string(), "--silent"]);
                command.args(["--skipApiVersionCheck", "--disableTelemetry", "--location"]).arg(root);
                if kind == BlobKind::AzuriteEntraId {
                    command.arg("--cert").arg(root.with_extension("cert.pem"));
                    command.arg("--key").arg(root.with_extension("key.pem"));
                    command.args(["--oauth", "basic"]);
                }
                command
            }
            BlobKind::FakeGcs => {
                let mut command = Command::new(binary(
                    "RUNNER_FAKE_GCS_BIN",
                    FAKE_GCS_BUILD,
                    "fake-gcs-server",
                    "install-fake-gcs.sh",
                ));
                // Google's Go client reads objects at `http://HOST/BUCKET/KEY`, which the
                // emulator serves only for its public host.
                let host = format!("127.0.0.1:{port}");
                command.args(["-scheme", "http", "-host", "127.0.0.1", "-port", &port.to_string()]);
                command.args(["-public-host", &host, "-external-url", &format!("http://{host}")]);
                command.args(["-backend", "memory", "-log-level", "warn"]);
                command
            }
        };
        let (process, port) = start_listening(&format!("{kind:?}"), |port| {
            command(port).stdout(Stdio::null()).stderr(log.try_clone().unwrap()).spawn().expect("the emulator starts")
        });
        let store = Self { _process: process, kind, port, tls };
        match kind {
            BlobKind::Azurite | BlobKind::AzuriteSas | BlobKind::AzuriteEntraId => {
                store.azure("PUT", &format!("{CONTAINER}?restype=container"), Vec::new())
            }
            BlobKind::FakeGcs => store.request("POST", "storage/v1/b", vec![], br#"{"name":"state"}"#.to_vec()),
        };
        store
    }

    /// `PULUMI_BACKEND_URL` for the container.
    pub(crate) fn url(&self) -> String {
        match self.kind {
            BlobKind::Azurite | BlobKind::AzuriteSas => {
                format!("azblob://{CONTAINER}?domain=127.0.0.1:{}&protocol=http", self.port)
            }
            BlobKind::AzuriteEntraId => {
                format!("azblob://{CONTAINER}?domain=127.0.0.1:{}&protocol=https", self.port)
            }
            BlobKind::FakeGcs => format!("gs://{CONTAINER}"),
        }
    }

    /// The variables Pulumi and the runner sign with. Pulumi wants some Google credential even
    /// with an emulator, which then gets no authentication at all.
    pub(crate) fn environment(&self) -> Vec<(&'static str, String)> {
        match self.kind {
            BlobKind::Azurite => {
                vec![("AZURE_STORAGE_ACCOUNT", AZURITE_ACCOUNT.into()), ("AZURE_STORAGE_KEY", AZURITE_KEY.into())]
            }
            BlobKind::AzuriteSas => {
                vec![("AZURE_STORAGE_ACCOUNT", AZURITE_ACCOUNT.into()), ("AZURE_STORAGE_SAS_TOKEN", account_sas())]
            }
            BlobKind::AzuriteEntraId => {
                let (_, ca_file, token_port) = self.tls.as_ref().expect("started with its authority");
                vec![
                    ("AZURE_STORAGE_ACCOUNT", AZURITE_ACCOUNT.into()),
                    ("AZURE_TENANT_ID", ENTRA_TENANT.into()),
                    ("AZURE_CLIENT_ID", ENTRA_CLIENT.into()),
                    ("AZURE_CLIENT_SECRET", ENTRA_SECRET.into()),
                    ("AZURE_AUTHORITY_HOST", format!("http://127.0.0.1:{token_port}")),
                    ("SSL_CERT_FILE", ca_file.display().to_string()),
                ]
            }
            BlobKind::FakeGcs => vec![
                ("STORAGE_EMULATOR_HOST", format!("127.0.0.1:{}", self.port)),
                ("GOOGLE_OAUTH_ACCESS_TOKEN", "emulator-needs-no-token".into()),
            ],
        }
    }

    pub(crate) fn put(&self, key: &str, content: &str) {
        match self.kind {
            BlobKind::Azurite | BlobKind::AzuriteSas | BlobKind::AzuriteEntraId => {
                self.azure("PUT", &format!("{CONTAINER}/{key}"), content.as_bytes().to_vec())
            }
            BlobKind::FakeGcs => {
                let path = format!("upload/storage/v1/b/{CONTAINER}/o?uploadType=media&name={}", encode(key));
                self.request("POST", &path, vec![], content.as_bytes().to_vec())
            }
        };
    }

    pub(crate) fn get(&self, key: &str) -> Vec<u8> {
        match self.kind {
            BlobKind::Azurite | BlobKind::AzuriteSas | BlobKind::AzuriteEntraId => {
                self.azure("GET", &format!("{CONTAINER}/{key}"), Vec::new())
            }
            BlobKind::FakeGcs => {
                self.request("GET", &format!("storage/v1/b/{CONTAINER}/o/{}?alt=media", encode(key)), vec![], vec![])
            }
        }
    }

    /// Every key under `prefix`.
    pub(crate) fn keys(&self, prefix: &str) -> Vec<String> {
        match self.kind {
            BlobKind::Azurite | BlobKind::AzuriteSas | BlobKind::AzuriteEntraId => {
                let body =
                    self.azure("GET", &format!("{CONTAINER}?restype=container&comp=list&prefix={prefix}"), vec![]);
                let body = String::from_utf8(body).unwrap();
                body.split("<Name>").skip(1).map(|rest| rest.split("</Name>").next().unwrap().to_string()).collect()
            }
            BlobKind::FakeGcs => {
                let body = self.request(
                    "GET",
                    &format!("storage/v1/b/{CONTAINER}/o?prefix={}", encode(prefix)),
                    vec![],
                    vec![],
                );
                let list: serde_json::Value = serde_json::from_slice(&body).unwrap();
                let items = list["items"].as_array().cloned().unwrap_or_default();
                items.iter().map(|item| item["name"].as_str().unwrap().to_string()).collect()
            }
        }
    }

    /// A request signed with the development account's Shared Key; `path_and_query` below the
    /// account, its query in `name=value` pairs without encoding.
    fn azure(&self, method: &str, path_and_query: &str, body: Vec<u8>) -> Vec<u8> {
        let (path, query) = path_and_query.split_once('?').unwrap_or((path_and_query, ""));
        let date = time::OffsetDateTime::now_utc()
            .format(&time::macros::format_description!(
                "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
            ))
            .unwrap();
        let mut headers = vec![("x-ms-date", date), ("x-ms-version", "2021-12-02".to_string())];
        if method == "PUT" && path.contains('/') {
            headers.push(("x-ms-blob-type", "BlockBlob".to_string()));
        }
        headers.sort();
        let length = if body.is_empty() { String::new() } else { body.len().to_string() };
        let mut pairs: Vec<(&str, &str)> = query.split('&').filter_map(|pair| pair.split_once('=')).collect();
        pairs.sort();
        let canonical_query: String = pairs.iter().map(|(name, value)| format!("\n{name}:{value}")).collect();
        let canonical_headers: String = headers.iter().map(|(name, value)| format!("{name}:{value}\n")).collect();
        let to_sign = format!(
            "{method}\n\n\n{length}\n\n\n\n\n\n\n\n\n{canonical_headers}/{AZURITE_ACCOUNT}/{AZURITE_ACCOUNT}/{path}{canonical_query}"
        );
        let key = base64::engine::general_purpose::STANDARD.decode(AZURITE_KEY).unwrap();
        let tag = ring::hmac::sign(&ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key), to_sign.as_bytes());
        let signature = base64::engine::general_purpose::STANDARD.encode(tag.as_ref());
        let query: Vec<String> = pairs.iter().map(|(name, value)| format!("{name}={}", encode(value))).collect();
        let mut headers: Vec<(&str, String)> = headers;
        headers.push(("authorization", format!("SharedKey {AZURITE_ACCOUNT}:{signature}")));
        let target = if query.is_empty() {
            format!("{AZURITE_ACCOUNT}/{path}")
        } else {
            format!("{AZURITE_ACCOUNT}/{path}?{}", query.join("&"))
        };
        self.request(method, &target, headers, body)
    }

    fn request(&self, method: &str, target: &str, headers: Vec<(&str, String)>, body: Vec<u8>) -> Vec<u8> {
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        let url = format!("{scheme}://127.0.0.1:{}/{target}", self.port);
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            // reqwest is built without a crypto provider of its own: the runner's is `ring`.
            let _ = rustls::crypto::ring::default_provider().install_default();
            let mut client = reqwest::Client::builder();
            if let Some((ca_pem, _, _)) = &self.tls {
                client = client.tls_certs_merge(reqwest::Certificate::from_pem_bundle(ca_pem.as_bytes()).unwrap());
            }
            let mut request =
                client.build().unwrap().request(reqwest::Method::from_bytes(method.as_bytes()).unwrap(), &url);
            for (name, value) in headers {
                request = request.header(name, value);
            }
            let response = request.body(body).send().await.unwrap();
            let status = response.status();
            let bytes = response.bytes().await.unwrap().to_vec();
            assert!(status.is_success(), "{method} {url}: {status} {}", String::from_utf8_lossy(&bytes));
            bytes
        })
    }
}

/// A loopback stand-in for Microsoft Entra ID's token endpoint: every client-credentials request
/// gets a JWT of the shape Azurite checks (issuer, audience, lifetime; it never checks the
/// signature). A wrong client secret gets one for another audience. Returns the port.
fn serve_entra_tokens() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(mut socket) = socket else { continue };
            use std::io::{Read, Write};
            let mut request = Vec::new();
            let mut chunk = [0; 4096];
            while !String::from_utf8_lossy(&request).contains("scope=") {
                match socket.read(&mut chunk) {
                    Ok(read @ 1..) => request.extend_from_slice(&chunk[..read]),
                    _ => break,
                }
            }
            let request = String::from_utf8_lossy(&request);
            let expected = format!("POST /{ENTRA_TENANT}/oauth2/v2.0/token ");
            let audience = if request.starts_with(&expected)
                && request.contains(&format!("client_id={ENTRA_CLIENT}&client_secret={ENTRA_SECRET}&"))
            {
                "https://storage.azure.com"
            } else {
                "https://management.azure.com"
            };
            let now = time::OffsetDateTime::now_utc().unix_timestamp();
            let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
            let claims = serde_json::json!({
                "aud": audience, "iss": format!("https://sts.windows.net/{ENTRA_TENANT}/"),
                "iat": now - 60, "nbf": now - 60, "exp": now + 3600, "appid": ENTRA_CLIENT,
            });
            let jwt = format!(
                "{}.{}.{}",
                engine.encode(br#"{"alg":"RS256","typ":"JWT"}"#),
                engine.encode(claims.to_string()),
                engine.encode(b"unchecked-signature")
            );
            let body = serde_json::json!({"token_type": "Bearer", "expires_in": 3599, "access_token": jwt}).to_string();
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = socket.write_all(answer.as_bytes());
        }
    });
    port
}

/// An account SAS for blobs (read, write, delete, list, add, create) until 2099, signed with the
/// development key: the string to sign of version 2019-12-12.
pub(crate) fn account_sas() -> String {
    let (version, permissions, expiry) = ("2019-12-12", "rwdlac", "2099-01-01T00:00:00Z");
    let to_sign = format!("{AZURITE_ACCOUNT}\n{permissions}\nb\nsco\n\n{expiry}\n\n\n{version}\n");
    let key = base64::engine::general_purpose::STANDARD.decode(AZURITE_KEY).unwrap();
    let tag = ring::hmac::sign(&ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key), to_sign.as_bytes());
    let signature = base64::engine::general_purpose::STANDARD.encode(tag.as_ref());
    format!("sv={version}&ss=b&srt=sco&sp={permissions}&se={}&sig={}", encode(expiry), encode(&signature))
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (byte as char).to_string(),
            _ => format!("%{byte:02X}"),
        })
        .collect()
}
