//! Pulumi's locks on `azblob://` (Azurite) and `gs://` (fake-gcs-server) backends, with the real
//! `pulumi` on the emulator: the scenarios of `s3_lock_test.rs`, run on each store, because the
//! runner reads every object store through one interface and must judge its locks the same way.

use std::os::unix::fs::OpenOptionsExt;
use std::time::{Duration, Instant};

use crate::blob_emulators::{BlobKind, BlobStore};
use crate::support::kill;
use crate::support::{path_with, real_pulumi_dir, Workspace};

const LOCKS: &str = ".pulumi/locks/organization/";

pub(crate) fn blob_workspace(store: &BlobStore, project: &str, program: &str) -> Workspace {
    let mut workspace = Workspace::new();
    workspace
        .provider("one", &format!("[[project]]\npath = \"{project}\"\nphase = \"infrastructure\"\n"))
        .file(&format!("projects/{project}/Pulumi.yaml"), program)
        .env_file(&format!(
            "PULUMI_STACK=dev\nPULUMI_BACKEND_URL={}\nPULUMI_CONFIG_PASSPHRASE=blob-lock-test\n",
            store.url()
        ));
    let home = workspace.path("home");
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    for (name, value) in store.environment() {
        workspace.set_env(name, value);
    }
    workspace
}

fn this_host() -> String {
    String::from_utf8(std::process::Command::new("hostname").output().unwrap().stdout).unwrap().trim().to_string()
}

fn lock_json(pid: u32, host: &str) -> String {
    format!(r#"{{"pid":{pid},"username":"root","hostname":"{host}","timestamp":"2099-01-01T00:00:00Z"}}"#)
}

fn lock_keys(store: &BlobStore) -> Vec<String> {
    store.keys(LOCKS).into_iter().filter(|key| key.ends_with(".json")).collect()
}

/// A `pulumi up` killed with its runner (`kill -9`) leaves its lock in the store; the next run
/// reads the holder's host and pid from it, sees it gone and removes it.
fn a_killed_updates_lock_is_removed_by_the_next_run(kind: BlobKind) {
    let scratch = tempfile::tempdir().unwrap();
    let store = BlobStore::start(kind, &scratch.path().join("store"));
    let program =
        "name: slow\nruntime: yaml\nvariables:\n  blocked:\n    fn::readFile: ./fifo\noutputs:\n  value: ${blocked}\n";
    let workspace = blob_workspace(&store, "slow", program);
    crate::support::make_fifo(&workspace.path("projects/slow/fifo"));
    let mut runner = workspace.spawn_quiet(&["up", "--provider", "one", "--stack", "dev", "--non-interactive"]);
    // The update holds its lock once its program reads the FIFO (a writer can open it then);
    // creating the stack before took a lock too, for a moment. The writer stays open, so the
    // program never reads an end of file.
    let fifo_path = workspace.path("projects/slow/fifo");
    let open_writer = || std::fs::OpenOptions::new().write(true).custom_flags(O_NONBLOCK).open(&fifo_path);
    let deadline = Instant::now() + Duration::from_secs(120);
    let _writer = loop {
        assert!(Instant::now() < deadline, "pulumi never took its lock");
        match open_writer() {
            Ok(writer) if !lock_keys(&store).is_empty() => break writer,
            _ => std::thread::sleep(Duration::from_millis(100)),
        }
    };
    let key = lock_keys(&store).remove(0);
    let lock: serde_json::Value = serde_json::from_slice(&store.get(&key)).unwrap();
    let pulumi_pid = lock["pid"].as_i64().unwrap() as i32;
    assert_eq!(lock["hostname"].as_str(), Some(this_host().as_str()), "{lock}");
    {
        kill(runner.id() as i32, 9);
        kill(-pulumi_pid, 9);
    }
    runner.wait().unwrap();
    while std::path::Path::new(&format!("/proc/{pulumi_pid}")).exists() {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(lock_keys(&store), [key], "the killed pulumi must have left its lock");

    workspace.file("projects/slow/Pulumi.yaml", "name: slow\nruntime: yaml\noutputs:\n  value: done\n");
    let recovered = workspace.run(&["up", "--provider", "one", "--stack", "dev", "--non-interactive"]);
    recovered.expect_code(0).expect_stderr_contains(&format!(
        "removed the lock of `organization/slow/dev` left by `pulumi` pid {pulumi_pid} of `"
    ));
    assert!(lock_keys(&store).is_empty(), "{:?}", lock_keys(&store));
}

/// Another host's lock stops the run by name; a live holder's lock is left alone by `unlock`
/// unless `--force`, which removes it from the store.
fn unknown_and_live_holders_are_named_and_kept_unless_forced(kind: BlobKind) {
    let scratch = tempfile::tempdir().unwrap();
    let store = BlobStore::start(kind, &scratch.path().join("store"));
    let workspace = blob_workspace(&store, "net", "name: net\nruntime: yaml\noutputs:\n  value: net\n");
    workspace.run(&["up", "--provider", "one", "--stack", "dev", "--non-interactive"]).expect_code(0);

    let remote = format!("{LOCKS}net/dev/remote.json");
    store.put(&remote, &lock_json(4242, "another-host"));
    let stopped = workspace.run(&["up", "--provider", "one", "--stack", "dev", "--non-interactive"]);
    stopped
        .expect_code(2)
        .expect_stderr_contains("`pulumi` pid 4242 of `root@another-host` since 2099-01-01T00:00:00Z")
        .expect_stderr_contains("runner unlock --provider one --stack dev --force");
    assert_eq!(lock_keys(&store), [remote]);

    let mut holder = std::process::Command::new("sleep").arg("120").spawn().unwrap();
    let host = this_host();
    store.put(&format!("{LOCKS}net/dev/live.json"), &lock_json(holder.id(), &host));
    let refused = workspace.run(&["unlock", "--provider", "one", "--stack", "dev"]);
    refused
        .expect_code(1)
        .expect_stderr_contains(&format!(
            "`organization/net/dev` is locked by `pulumi` pid {} of `root@{host}` since 2099-01-01T00:00:00Z",
            holder.id()
        ))
        .expect_stderr_contains("--force");
    assert_eq!(lock_keys(&store).len(), 2, "a held lock was removed");

    let forced = workspace.run(&["unlock", "--provider", "one", "--stack", "dev", "--force"]);
    forced.expect_code(0);
    assert!(
        forced.stdout().contains(&format!("held by `pulumi` pid {} of `root@{host}`", holder.id())),
        "{}",
        forced.stdout()
    );
    assert!(lock_keys(&store).is_empty(), "`--force` removes the locks: {:?}", lock_keys(&store));
    for output in [&stopped, &refused, &forced] {
        for (_, credential) in store.environment() {
            let printed = format!("{}{}", output.stdout(), output.stderr());
            assert!(!printed.contains(credential.as_str()) || credential.starts_with("127.0.0.1"), "{printed}");
        }
    }
    holder.kill().unwrap();
    holder.wait().unwrap();
}

#[test]
fn ext_azblob_a_killed_updates_lock_is_removed_by_the_next_run() {
    a_killed_updates_lock_is_removed_by_the_next_run(BlobKind::Azurite);
}

#[test]
fn ext_gs_a_killed_updates_lock_is_removed_by_the_next_run() {
    a_killed_updates_lock_is_removed_by_the_next_run(BlobKind::FakeGcs);
}

#[test]
fn ext_azblob_unknown_and_live_holders_are_named_and_kept_unless_forced() {
    unknown_and_live_holders_are_named_and_kept_unless_forced(BlobKind::Azurite);
}

/// The same with a SAS token instead of the key: list, get and delete carry the token.
#[test]
fn ext_azblob_sas_unknown_and_live_holders_are_named_and_kept_unless_forced() {
    unknown_and_live_holders_are_named_and_kept_unless_forced(BlobKind::AzuriteSas);
}

#[test]
fn ext_gs_unknown_and_live_holders_are_named_and_kept_unless_forced() {
    unknown_and_live_holders_are_named_and_kept_unless_forced(BlobKind::FakeGcs);
}

/// With no storage key, SAS token or connection string, the runner signs in as Pulumi's driver
/// does (`DefaultAzureCredential`): here a service principal's secret, exchanged at a loopback
/// token endpoint, against Azurite over HTTPS checking every bearer token. The runner lists,
/// reads and removes locks with it; a token Azurite refuses (another audience) is named by
/// `doctor` and removes nothing.
#[test]
fn ext_azblob_entra_id_sign_in_reads_judges_and_removes_locks() {
    let scratch = tempfile::tempdir().unwrap();
    let store = BlobStore::start(BlobKind::AzuriteEntraId, &scratch.path().join("store"));
    let mut workspace = blob_workspace(&store, "net", "name: net\nruntime: yaml\n");
    let doctor = workspace.run(&["doctor", "--provider", "one"]);
    let credentials = |output: &crate::support::RunOutput| {
        output.stdout().lines().find(|line| line.contains("backend credentials")).unwrap_or_default().to_string()
    };
    assert!(credentials(&doctor).contains("accepted by the object store"), "{}{}", doctor.stdout(), doctor.stderr());

    let remote = format!("{LOCKS}net/dev/remote.json");
    store.put(&remote, &lock_json(4242, "another-host"));
    let refused = workspace.run(&["unlock", "--provider", "one", "--stack", "dev"]);
    refused
        .expect_code(1)
        .expect_stderr_contains("`pulumi` pid 4242 of `root@another-host` since 2099-01-01T00:00:00Z")
        .expect_stderr_contains("--force");
    assert_eq!(lock_keys(&store), std::slice::from_ref(&remote));
    workspace.run(&["unlock", "--provider", "one", "--stack", "dev", "--force"]).expect_code(0);
    assert!(lock_keys(&store).is_empty(), "{:?}", lock_keys(&store));

    store.put(&remote, &lock_json(4242, "another-host"));
    workspace.set_env("AZURE_CLIENT_SECRET", "wrong-secret-value");
    let rejected = workspace.run(&["doctor", "--provider", "one"]);
    rejected.expect_code(2);
    let said = credentials(&rejected);
    assert!(said.contains("rejected by the object store") && said.contains("403"), "{said}");
    assert!(said.contains("fix the service principal of `AZURE_CLIENT_ID` and `AZURE_CLIENT_SECRET`"), "{said}");
    let kept = workspace.run(&["unlock", "--provider", "one", "--stack", "dev", "--force"]);
    assert_ne!(kept.code(), 0, "{}", kept.stderr());
    assert_eq!(lock_keys(&store), [remote], "a lock went without a token Azurite accepts");
    for output in [&doctor, &refused, &rejected, &kept] {
        let printed = format!("{}{}", output.stdout(), output.stderr());
        assert!(
            !printed.contains(crate::blob_emulators::ENTRA_SECRET) && !printed.contains("wrong-secret"),
            "{printed}"
        );
        assert!(!printed.contains("eyJ"), "a token was printed:\n{printed}");
    }
}

/// `O_NONBLOCK`: opening a FIFO for writing fails while it has no reader.
const O_NONBLOCK: i32 = 0o4000;
