// Tests start real processes (holders of a lock) to check what the runner's own way does.
#![allow(clippy::disallowed_methods)]

use super::*;

fn backend(dir: &std::path::Path) -> (Backend, ChildEnvironment) {
    let process = [("PULUMI_BACKEND_URL".to_string(), format!("file://{}", dir.display()))];
    let root = crate::config::RepositoryRoot::unchecked(dir);
    let environment = ChildEnvironment::build(process, &Default::default(), &root);
    (Backend::from_environment(&environment), environment)
}

fn lock(dir: &std::path::Path, name: &str, pid: u32, host: &str) {
    lock_stamped(dir, name, pid, host, &time::OffsetDateTime::now_utc());
}

/// A lock as the real CLI writes it, stamped `at`.
fn lock_stamped(dir: &std::path::Path, name: &str, pid: u32, host: &str, at: &time::OffsetDateTime) {
    let locks = dir.join(".pulumi/locks/organization/net/dev");
    std::fs::create_dir_all(&locks).unwrap();
    let stamp = at.format(&time::format_description::well_known::Rfc3339).unwrap();
    std::fs::write(
        locks.join(format!("{name}.json")),
        format!(r#"{{"pid":{pid},"username":"root","hostname":"{host}","timestamp":"{stamp}"}}"#),
    )
    .unwrap();
    std::fs::write(locks.join(format!("{name}.json.attrs")), "{}").unwrap();
}

/// Every combination of what this host can say of a holder: gone only for the same host with
/// the writer provably gone (dead, and no other pid namespace may hold the pid; or alive but
/// started after the stamp).
#[test]
fn the_holder_rule_over_every_shape_of_facts() {
    let locked = Some(1_000.0);
    for same_host in [false, true] {
        for alive in [false, true] {
            for started in [None, Some(900.0), Some(1_001.0), Some(1_500.0)] {
                for stamp in [None, locked] {
                    for may_live_elsewhere in [false, true] {
                        let facts = HolderFacts { same_host, alive, started, locked: stamp, may_live_elsewhere };
                        let expected = match (same_host, alive) {
                            (false, _) => Verdict::Unknown,
                            (true, false) if may_live_elsewhere => Verdict::Unknown,
                            (true, false) => Verdict::Gone,
                            (true, true) if started == Some(1_500.0) && stamp.is_some() => Verdict::Gone,
                            (true, true) => Verdict::Writer,
                        };
                        assert_eq!(holder_verdict(&facts), expected, "{facts:?}");
                    }
                }
            }
        }
    }
}

/// A live process that took the pid after the lock was written is not its writer: the writer is
/// gone, whatever an ended run recorded. One that started before the stamp may be the writer.
#[test]
fn a_pid_that_came_back_after_the_stamp_is_not_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    let mut sleeper = std::process::Command::new("sleep").arg("30").spawn().unwrap();
    let host = host_name();
    let long_ago = time::OffsetDateTime::now_utc() - time::Duration::hours(1);
    lock_stamped(dir.path(), "a-reused", sleeper.id(), &host, &long_ago);
    lock(dir.path(), "b-its-own", sleeper.id(), &host);
    let states: Vec<_> = read(dir.path()).iter().map(PulumiLock::holder).collect();
    assert_eq!(states[0], HolderState::Gone, "the writer of an hour-old lock is not a process started now");
    assert!(matches!(states[1], HolderState::Live { .. } | HolderState::Orphan { .. }), "{states:?}");
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
}

fn read(dir: &std::path::Path) -> Vec<PulumiLock> {
    let (backend, environment) = backend(dir);
    match (PulumiLocks::new(&backend, &environment)).read("net", "dev") {
        LockListing::Read(mut locks) => {
            locks.sort_by_key(|lock| lock.location());
            locks
        }
        other => panic!("{other:?}"),
    }
}

/// Every shape of holder: only this host's dead or zombie processes are gone.
#[test]
fn only_dead_or_zombie_holders_on_this_host_are_gone() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_name();
    let mut zombie = std::process::Command::new("true").spawn().unwrap();
    lock(dir.path(), "a-dead", 999_999_999, &host);
    lock(dir.path(), "b-alive", std::process::id(), &host);
    lock(dir.path(), "c-remote-dead", 999_999_999, "another-host");
    lock(dir.path(), "d-remote-alive", std::process::id(), "another-host");
    lock(dir.path(), "e-zombie", zombie.id(), &host);
    std::fs::write(dir.path().join(".pulumi/locks/organization/net/dev/f-garbled.json"), "{\"pi").unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while process_alive(zombie.id()) {
        assert!(Instant::now() < deadline, "`true` never exited");
        std::thread::sleep(Duration::from_millis(10));
    }
    let states: Vec<_> = read(dir.path()).iter().map(PulumiLock::holder).collect();
    assert_eq!(states.len(), 6, "{states:?}");
    assert_eq!(states[0], HolderState::Gone);
    assert!(matches!(&states[1], HolderState::Live { command } if !command.is_empty()), "{states:?}");
    assert_eq!(states[2..4], [HolderState::Unknown, HolderState::Unknown]);
    assert_eq!(states[4], HolderState::Gone, "a zombie holds nothing");
    assert_eq!(states[5], HolderState::Unknown, "an unreadable lock is never gone");
    zombie.wait().unwrap();
}

#[test]
fn removing_takes_the_attributes_file_too() {
    let dir = tempfile::tempdir().unwrap();
    lock(dir.path(), "dead", 999_999_999, &host_name());
    let locks = read(dir.path());
    assert!(locks[0].describe().contains("`pulumi` pid 999999999 of `root@"), "{}", locks[0].describe());
    let (backend, environment) = backend(dir.path());
    (PulumiLocks::new(&backend, &environment)).remove(&locks[0]).unwrap();
    assert!(read(dir.path()).is_empty());
    assert!(!dir.path().join(".pulumi/locks/organization/net/dev/dead.json.attrs").exists());
}

#[test]
fn a_pulumi_whose_runner_is_gone_is_an_orphan() {
    let me = crate::cancel::ProcessIdentity::current();
    let mut orphan =
        std::process::Command::new("sleep").arg("30").env(MARKER_VARIABLE, "999999999.5-1").spawn().unwrap();
    // Its runner's pid runs, but it is another process now: the pid came back.
    let reused = std::process::Command::new("sleep")
        .arg("30")
        .env(MARKER_VARIABLE, format!("{}.{}-1", me.pid, me.start_ticks + 1))
        .spawn()
        .unwrap();
    let owned = std::process::Command::new("sleep")
        .arg("30")
        .env(MARKER_VARIABLE, format!("{}-1", me.token()))
        .spawn()
        .unwrap();
    let held_by = |pid: u32| PulumiLock {
        place: LockPlace::File(PathBuf::from("x.json")),
        pid,
        username: "root".into(),
        hostname: host_name(),
        timestamp: String::new(),
    };
    // Until `exec`, a child's /proc environment is still the test's.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while [&orphan, &reused, &owned].iter().any(|child| runner_of(child.id()).is_none()) {
        assert!(std::time::Instant::now() < deadline, "the children never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(matches!(held_by(orphan.id()).holder(), HolderState::Orphan { .. }));
    assert!(matches!(held_by(reused.id()).holder(), HolderState::Orphan { .. }), "its runner's pid came back");
    assert!(matches!(held_by(owned.id()).holder(), HolderState::Live { .. }), "its runner still runs");
    // Not a group leader here: the pid itself gets the signal.
    assert!(held_by(orphan.id()).stop_orphan());
    orphan.wait().unwrap();
    for mut child in [reused, owned] {
        child.kill().unwrap();
        child.wait().unwrap();
    }
}

/// Without credentials the runner reads, no store's locks are read: unknown holders, never gone,
/// and the reason names the backend without its query.
#[test]
fn backends_without_readable_locks_are_never_gone() {
    for url in ["azblob://state?localemu=true", "gs://state", "s3://state", "ftp://state"] {
        let root = crate::config::RepositoryRoot::unchecked(std::path::Path::new("/nonexistent"));
        let environment =
            ChildEnvironment::build([("PULUMI_BACKEND_URL".to_string(), url.to_string())], &Default::default(), &root);
        let backend = Backend::from_environment(&environment);
        let listing = (PulumiLocks::new(&backend, &environment)).read("net", "dev");
        let LockListing::Unreadable(reason) = listing else { panic!("{url}: {listing:?}") };
        assert!(reason.contains(url.split('?').next().unwrap()) && !reason.contains('?'), "{reason}");
    }
}

/// Every variable a store client reads a credential from is secret to `SecretRule`, wherever it
/// comes from, so masking covers it in every printed form.
#[test]
fn every_object_store_credential_is_a_secret() {
    let rule = crate::secrets::SecretRule::default();
    for name in crate::backend::store::object_store::CREDENTIAL_VARIABLES {
        assert!(rule.inherited_is_secret(name) && rule.entry_is_secret(name), "{name}");
    }
}

/// A store that cannot be reached is named in the reason, and no credential of any store is:
/// a SAS token rides in the request's query, a key or token in its headers or body.
#[test]
fn an_unreachable_store_is_named_without_any_credential() {
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("key.json");
    let key = serde_json::json!({
        "client_email": "runner@test", "private_key": "-----BEGIN PRIVATE KEY-----\nsecret-key-text\n-----END PRIVATE KEY-----\n",
        "token_uri": "http://127.0.0.1:1/token?secret-query=1",
    });
    std::fs::write(&key_file, key.to_string()).unwrap();
    let key_file = key_file.display().to_string();
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case; 4] = [
        (
            "azblob://state?domain=127.0.0.1:1&protocol=http",
            &[("AZURE_STORAGE_ACCOUNT", "acct"), ("AZURE_STORAGE_SAS_TOKEN", "sv=1&sig=secret-sas")],
            "127.0.0.1:1/acct/state",
        ),
        (
            "azblob://state?domain=127.0.0.1:1&protocol=http",
            &[("AZURE_STORAGE_ACCOUNT", "acct"), ("AZURE_STORAGE_KEY", "c2VjcmV0LWtleQ==")],
            "127.0.0.1:1/acct/state",
        ),
        ("gs://state", &[("STORAGE_EMULATOR_HOST", "127.0.0.1:1")], "127.0.0.1:1/storage/v1/b/state/o"),
        ("gs://state", &[("GOOGLE_APPLICATION_CREDENTIALS", &key_file)], "gs://state"),
    ];
    for (url, vars, named) in cases {
        let root = crate::config::RepositoryRoot::unchecked(dir.path());
        let vars = vars.iter().map(|(k, v)| (k.to_string(), v.to_string()));
        let environment = ChildEnvironment::build(
            vars.chain([("PULUMI_BACKEND_URL".to_string(), url.to_string())]),
            &Default::default(),
            &root,
        );
        let backend = Backend::from_environment(&environment);
        let listing = (PulumiLocks::new(&backend, &environment)).read("net", "dev");
        let LockListing::Unreadable(reason) = listing else { panic!("{url}: {listing:?}") };
        assert!(reason.contains(named), "{url}: {reason}");
        for secret in ["secret", "c2VjcmV0", "sig="] {
            assert!(!reason.contains(secret), "{url}: {reason}");
        }
    }
}

/// A lock object the store lists but refuses to give is a lock of an unknown holder, never no
/// lock (the run would otherwise go on under a live update); one gone since the list is none.
#[test]
fn a_lock_the_store_will_not_give_is_unreadable_not_absent() {
    static ANSWERS: &[(&str, &str)] = &[
        ("locked.json", "403"),
        ("released.json", "404"),
        (
            "/o?prefix=.pulumi%2Flocks%2Forganization",
            r#"{"items":[{"name":".pulumi/locks/organization/net/dev/locked.json"},{"name":".pulumi/locks/organization/net/dev/released.json"}]}"#,
        ),
        ("/o?prefix=", "{}"),
    ];
    let (address, _) = crate::backend::store::object_store::tests::pages(ANSWERS);
    let root = crate::config::RepositoryRoot::unchecked(std::path::Path::new("/nonexistent"));
    let vars = [("PULUMI_BACKEND_URL", "gs://state"), ("STORAGE_EMULATOR_HOST", address.as_str())];
    let environment =
        ChildEnvironment::build(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())), &Default::default(), &root);
    let backend = Backend::from_environment(&environment);
    let LockListing::Read(locks) = (PulumiLocks::new(&backend, &environment)).read("net", "dev") else {
        panic!("the list was read")
    };
    assert_eq!(locks.len(), 1, "{locks:?}");
    assert_eq!((locks[0].pid, locks[0].holder()), (0, HolderState::Unknown));
    assert!(locks[0].describe().contains("an unreadable lock (`.pulumi/locks/organization/net/dev/locked.json`)"));
}
