//! One HTTP request to an object store, shared by its clients: a small runtime of its own (the
//! callers are synchronous: a preflight, `unlock`, or a blocking task of a run), a timeout, and
//! errors that never print the request's query (where a SAS token or signature lives).

use std::time::Duration;

use super::object_store_error::ObjectStoreError;

/// A request to the store should answer within seconds; a preflight must never hang on it.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// What the store answered; `body` of any status, so the caller can read its error code.
pub(crate) struct ObjectStoreResponse {
    pub status: reqwest::StatusCode,
    pub body: Vec<u8>,
}

/// Sends `method url` with `headers` and `body`; `Err` only when no answer came. The URL in an
/// error is `url` up to its query.
pub(crate) fn send_request(
    method: reqwest::Method,
    url: &str,
    headers: &[(String, String)],
    body: Vec<u8>,
) -> Result<ObjectStoreResponse, ObjectStoreError> {
    let shown = shown_url(url);
    let failed =
        |source: reqwest::Error| ObjectStoreError::Request { url: shown.clone(), source: source.without_url() };
    crate::http::block_on_shared(|client| async move {
        let mut request = client.request(method, url).timeout(REQUEST_TIMEOUT);
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        if !body.is_empty() {
            request = request.body(body);
        }
        let response = request.send().await.map_err(failed)?;
        let status = response.status();
        let body = response.bytes().await.map_err(failed)?;
        Ok(ObjectStoreResponse { status, body: body.to_vec() })
    })
    .map_err(ObjectStoreError::Client)?
}

impl ObjectStoreResponse {
    /// The body of a successful answer, else the status with the store's error code.
    pub(crate) fn into_body(self, url: &str, code: impl Fn(&[u8]) -> String) -> Result<Vec<u8>, ObjectStoreError> {
        if self.status.is_success() {
            Ok(self.body)
        } else {
            Err(ObjectStoreError::Status { url: shown_url(url), status: self.status, code: code(&self.body) })
        }
    }
}

/// `url` without its query: the part of a request that may be printed.
pub(crate) fn shown_url(url: &str) -> String {
    url.split(['?', '#']).next().unwrap_or(url).to_string()
}

/// RFC 3986 encoding: only unreserved characters stay, and `/` when `keep_slash`.
pub(crate) fn uri_encode(text: &str, keep_slash: bool) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (byte as char).to_string(),
            b'/' if keep_slash => "/".to_string(),
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// The texts of every `<tag>..</tag>` in a small XML answer (S3, Azure), entities decoded.
pub(crate) fn xml_values(xml: &str, tag: &str) -> Vec<String> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut values = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find(&open) {
        let after = &rest[start + open.len()..];
        let Some(end) = after.find(&close) else { break };
        values.push(
            after[..end]
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&apos;", "'")
                .replace("&amp;", "&"),
        );
        rest = &after[end + close.len()..];
    }
    values
}

/// `%XX` sequences of a URL's query value, decoded.
pub(crate) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let decoded = (bytes[index] == b'%' && index + 2 < bytes.len())
            .then(|| std::str::from_utf8(&bytes[index + 1..index + 3]).ok())
            .flatten()
            .and_then(|digits| u8::from_str_radix(digits, 16).ok());
        match decoded {
            Some(byte) => {
                out.push(byte);
                index += 3;
            }
            None => {
                out.push(bytes[index]);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
