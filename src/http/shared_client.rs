//! One client and one small runtime for the whole process, for callers that are synchronous (a
//! preflight, `unlock`, a blocking task of a run): a run reads many objects of its backend, and
//! each would otherwise build a runtime, a client and a TLS configuration, and open a connection.

use std::future::Future;
use std::sync::OnceLock;

/// Why no request could be made at all.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SharedClientError {
    #[error("cannot start the HTTP runtime: {0}")]
    Runtime(std::sync::Arc<std::io::Error>),
    #[error("cannot build the HTTP client: {0}")]
    Client(std::sync::Arc<reqwest::Error>),
}

/// Runs `request` with the process's client, on its own runtime, and waits for it. Safe to call
/// from several threads at once (a current-thread runtime lets each `block_on` drive in turn),
/// never from inside an async task.
pub(crate) fn block_on_shared<F, T>(request: impl FnOnce(reqwest::Client) -> F) -> Result<T, SharedClientError>
where
    F: Future<Output = T>,
{
    static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, std::sync::Arc<std::io::Error>>> = OnceLock::new();
    static CLIENT: OnceLock<Result<reqwest::Client, std::sync::Arc<reqwest::Error>>> = OnceLock::new();
    let runtime = RUNTIME
        .get_or_init(|| tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(std::sync::Arc::new))
        .as_ref()
        .map_err(|err| SharedClientError::Runtime(err.clone()))?;
    // Built inside the runtime: the client's connection pool belongs to it.
    let client = {
        let _inside = runtime.enter();
        CLIENT.get_or_init(|| super::http_client_builder().build().map_err(std::sync::Arc::new)).clone()
    }
    .map_err(SharedClientError::Client)?;
    Ok(runtime.block_on(request(client)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// A server that answers each connection's request with `ok <n>` (the connection's number),
    /// keeping connections open: a reused connection answers with its first number again.
    fn counting_server() -> (std::net::SocketAddr, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let connections = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = std::sync::Arc::clone(&connections);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let number = counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                std::thread::spawn(move || {
                    let mut stream = stream;
                    let mut buffer = [0u8; 4096];
                    while let Ok(read) = stream.read(&mut buffer) {
                        if read == 0 {
                            break;
                        }
                        let body = format!("ok {number}");
                        let response = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}", body.len());
                        if stream.write_all(response.as_bytes()).is_err() {
                            break;
                        }
                    }
                });
            }
        });
        (address, connections)
    }

    #[test]
    fn requests_from_several_threads_share_one_client_and_its_connections() {
        let (address, connections) = counting_server();
        let url = format!("http://{address}/object");
        let get = |url: String| {
            block_on_shared(|client| async move { client.get(url).send().await?.text().await }).unwrap().unwrap()
        };
        assert_eq!(get(url.clone()), "ok 1");
        assert_eq!(get(url.clone()), "ok 1", "the second request reuses the first connection");
        let threads: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn({
                    let url = url.clone();
                    move || get(url)
                })
            })
            .collect();
        for thread in threads {
            assert!(thread.join().unwrap().starts_with("ok "));
        }
        assert!(connections.load(std::sync::atomic::Ordering::SeqCst) <= 5);
    }
}
