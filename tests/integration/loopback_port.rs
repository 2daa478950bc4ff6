//! Loopback ports for the servers the tests start (object stores, emulators, etcd). Two tests
//! asking the kernel for a free port at once may get the same one; the second server then fails
//! to bind while the first answers in its place, and the test talks to the wrong server (an
//! Azurite test got fake-gcs-server's 404). So a port is handed out once per test process, and
//! a server counts as started only once the process itself listens on its port.

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::process::Child;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::kube_api_server::ChildGuard;

static GIVEN: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());

/// A port free now and never handed to another server of this test process.
pub(crate) fn free_port() -> u16 {
    loop {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        if GIVEN.lock().unwrap().insert(port) {
            return port;
        }
    }
}

/// Starts `spawn(port)` on a fresh port until the process listens there itself; a process that
/// exits first (its port was taken by something outside the tests) is started again on another.
pub(crate) fn start_listening(what: &str, mut spawn: impl FnMut(u16) -> Child) -> (ChildGuard, u16) {
    for _attempt in 0..5 {
        let port = free_port();
        let mut child = ChildGuard(spawn(port));
        let start = Instant::now();
        loop {
            if child.0.try_wait().unwrap().is_some() {
                break;
            }
            if listens_on(child.0.id(), port) {
                return (child, port);
            }
            assert!(start.elapsed() < Duration::from_secs(60), "{what} did not listen on {port} within 60 s");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    panic!("{what} exited five times before listening (see its log)")
}

/// True when `pid` holds a socket listening on `127.0.0.1:port` (or any address): the listening
/// socket's inode in `/proc/net/tcp` among the process's descriptors.
pub(crate) fn listens_on(pid: u32, port: u16) -> bool {
    let mut inodes = BTreeSet::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let Some(local) = fields.get(1) else { continue };
            let listening = fields.get(3) == Some(&"0A");
            let on_port = local.rsplit(':').next().and_then(|hex| u16::from_str_radix(hex, 16).ok()) == Some(port);
            if listening && on_port {
                inodes.extend(fields.get(9).map(|inode| format!("socket:[{inode}]")));
            }
        }
    }
    let Ok(descriptors) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return false };
    descriptors
        .flatten()
        .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| inodes.contains(target.to_string_lossy().as_ref())))
}

#[test]
fn a_port_is_handed_out_once_and_its_listener_is_found() {
    let ports: BTreeSet<u16> = (0..50).map(|_| free_port()).collect();
    assert_eq!(ports.len(), 50, "a port was handed out twice");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    assert!(listens_on(std::process::id(), port));
    drop(listener);
    assert!(!listens_on(std::process::id(), port));
}

#[test]
fn a_held_closed_port_refuses_connections_and_cannot_be_taken() {
    let closed = crate::https_gate_test::test_servers::ClosedPort::hold();
    let refused = std::net::TcpStream::connect(("127.0.0.1", closed.port)).unwrap_err();
    assert_eq!(refused.kind(), std::io::ErrorKind::ConnectionRefused);
    assert!(TcpListener::bind(("127.0.0.1", closed.port)).is_err(), "a server took the held port");
}
