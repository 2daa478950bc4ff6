//! Pulumi's locks on an S3 backend (versitygw on loopback), read by the runner itself with the
//! real `pulumi`: a live holder is never removed by `unlock` without `--force`, a gone holder's
//! lock is removed by the next run, another host's lock stops the run with its name.

use std::path::PathBuf;

use crate::object_store::{ObjectStore, ACCESS_KEY, BUCKET, SECRET_KEY};
use crate::support::{path_with, real_pulumi_dir, Workspace};

/// The `net` project on the store with the real `pulumi` and a `HOME` of its own, signing with the
/// store's keys in the environment.
fn s3_workspace(store: &ObjectStore) -> Workspace {
    let mut workspace = unsigned_workspace(store);
    workspace.set_env("AWS_ACCESS_KEY_ID", ACCESS_KEY).set_env("AWS_SECRET_ACCESS_KEY", SECRET_KEY);
    workspace
}

/// The same with no AWS key in the environment: what signs is up to the test.
fn unsigned_workspace(store: &ObjectStore) -> Workspace {
    let mut workspace = Workspace::new();
    workspace
        .provider("one", "[[project]]\npath = \"net\"\nphase = \"infrastructure\"\n")
        .file("projects/net/Pulumi.yaml", "name: net\nruntime: yaml\noutputs:\n  value: net\n");
    environment_file(&workspace, store, "");
    let home = workspace.path("home");
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    workspace
}

/// The environment file on the store, with `extra` lines after.
fn environment_file(workspace: &Workspace, store: &ObjectStore, extra: &str) {
    workspace.env_file(&format!(
        "PULUMI_STACK=dev\nPULUMI_BACKEND_URL={}\nPULUMI_CONFIG_PASSPHRASE=s3-lock-test\n{extra}",
        store.url(BUCKET)
    ));
}

fn run_up(workspace: &Workspace) -> crate::support::RunOutput {
    workspace.run(&["up", "--provider", "one", "--stack", "dev", "--non-interactive"])
}

/// With versitygw's posix backend an object is a file: the lock is put there as Pulumi would.
fn put_lock(store: &ObjectStore, name: &str, pid: u32, host: &str) -> PathBuf {
    let dir = store.root.join(BUCKET).join(".pulumi/locks/organization/net/dev");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.json"));
    std::fs::write(
        &file,
        // Stamped later than any holder the test starts: a live holder wrote it after it started.
        format!(r#"{{"pid":{pid},"username":"root","hostname":"{host}","timestamp":"2099-01-01T00:00:00Z"}}"#),
    )
    .unwrap();
    file
}

fn this_host() -> String {
    String::from_utf8(std::process::Command::new("hostname").output().unwrap().stdout).unwrap().trim().to_string()
}

/// The regression: `unlock` ran `pulumi cancel` for every project the last local run left
/// cancelled, without reading who held the lock, and removed another checkout's live `up`.
#[test]
fn ext_unlock_on_s3_leaves_a_live_update_alone_unless_forced() {
    let scratch = tempfile::tempdir().unwrap();
    let store = ObjectStore::start(&scratch.path().join("store"));
    let workspace = s3_workspace(&store);
    // The stack exists, so `pulumi cancel` (what the old `unlock` ran) would have removed the lock.
    run_up(&workspace).expect_code(0);
    let mut holder = std::process::Command::new("sleep").arg("120").spawn().unwrap();
    let host = this_host();
    let lock = put_lock(&store, "live", holder.id(), &host);
    // The newest local run was interrupted while `net` ran: what made the old `unlock` run
    // `pulumi cancel`, which removed this live holder's lock (checked against 798ac77).
    workspace.file(
        ".runner/history/29991231T000000Z-1.json",
        r#"{"run_id":"29991231T000000Z-1","provider":"one","stack":"dev","operation":"up","state":"interrupted","pid":1,"host":"h","started":32503593600.0,"ended":32503593601.0,"projects":[{"project":"net","result":"cancelled","attempts":1,"started":32503593600.0,"ended":32503593601.0,"reason":null}]}"#,
    );

    let refused = workspace.run(&["unlock", "--provider", "one", "--stack", "dev"]);
    refused
        .expect_code(1)
        .expect_stderr_contains(&format!(
            "`organization/net/dev` is locked by `pulumi` pid {} of `root@{host}` since 2099-01-01T00:00:00Z",
            holder.id()
        ))
        .expect_stderr_contains("--force");
    assert!(lock.exists(), "a live holder's lock was removed");

    let forced = workspace.run(&["unlock", "--provider", "one", "--stack", "dev", "--force"]);
    forced.expect_code(0);
    assert!(
        forced
            .stdout()
            .contains(&format!("held by `pulumi` pid {} of `root@{host}` since 2099-01-01T00:00:00Z", holder.id())),
        "{}",
        forced.stdout()
    );
    assert!(!lock.exists(), "`--force` removes the lock");
    holder.kill().unwrap();
    holder.wait().unwrap();
}

#[test]
fn ext_the_next_run_on_s3_removes_a_gone_holders_lock_and_stops_at_another_hosts() {
    let scratch = tempfile::tempdir().unwrap();
    let store = ObjectStore::start(&scratch.path().join("store"));
    let workspace = s3_workspace(&store);

    let remote = put_lock(&store, "remote", 4242, "another-host");
    let stopped = run_up(&workspace);
    stopped
        .expect_code(2)
        .expect_stderr_contains("`pulumi` pid 4242 of `root@another-host` since 2099-01-01T00:00:00Z")
        .expect_stderr_contains("runner unlock --provider one --stack dev --force");
    assert!(remote.exists());
    std::fs::remove_file(&remote).unwrap();

    let dead = put_lock(&store, "dead", 999_999_999, &this_host());
    let up = run_up(&workspace);
    up.expect_code(0)
        .expect_stderr_contains("removed the lock of `organization/net/dev` left by `pulumi` pid 999999999");
    assert!(!dead.exists(), "the run removed the dead holder's lock from the bucket");
}

/// No key in the environment, only the profile MARA's environment file names (`AWS_PROFILE`) in
/// `~/.aws/credentials`, then one whose keys a `credential_process` prints: the runner reads,
/// judges and removes the locks with that profile's keys, as the real `pulumi` signs its own
/// requests with them. A profile that is not there is named.
#[test]
fn ext_an_aws_profile_signs_the_lock_checks_as_it_signs_pulumi() {
    let scratch = tempfile::tempdir().unwrap();
    let store = ObjectStore::start(&scratch.path().join("store"));
    let workspace = unsigned_workspace(&store);
    environment_file(&workspace, &store, "AWS_PROFILE=deploy\n");
    workspace
        // `default` holds wrong keys: only the profile the file names can pass.
        .file(
            "home/.aws/credentials",
            format!("[default]\naws_access_key_id = wrong\naws_secret_access_key = wrong\n\n[deploy]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key = {SECRET_KEY}\n"),
        )
        .file("home/.aws/config", "[profile deploy]\nregion = us-east-1\n");

    let remote = put_lock(&store, "remote", 4242, "another-host");
    let stopped = run_up(&workspace);
    stopped
        .expect_code(2)
        .expect_stderr_contains("`pulumi` pid 4242 of `root@another-host` since 2099-01-01T00:00:00Z");
    std::fs::remove_file(&remote).unwrap();

    let dead = put_lock(&store, "dead", 999_999_999, &this_host());
    let up = run_up(&workspace);
    up.expect_code(0)
        .expect_stderr_contains("removed the lock of `organization/net/dev` left by `pulumi` pid 999999999");
    assert!(!dead.exists(), "the run removed the dead holder's lock from the bucket");

    // A profile whose keys come from a `credential_process` (a vault's helper): both the runner
    // and `pulumi` run it.
    let helper = workspace.path("home/.aws/helper.sh");
    workspace.file(
        "home/.aws/helper.sh",
        format!(
            "echo '{{\"Version\": 1, \"AccessKeyId\": \"{ACCESS_KEY}\", \"SecretAccessKey\": \"{SECRET_KEY}\"}}'\n"
        ),
    );
    workspace.file(
        "home/.aws/config",
        format!(
            "[profile deploy]\nregion = us-east-1\n[profile vault]\ncredential_process = sh {}\n",
            helper.display()
        ),
    );
    environment_file(&workspace, &store, "AWS_PROFILE=vault\n");
    let dead = put_lock(&store, "dead", 999_999_998, &this_host());
    let vault = run_up(&workspace);
    vault
        .expect_code(0)
        .expect_stderr_contains("removed the lock of `organization/net/dev` left by `pulumi` pid 999999998");
    assert!(!dead.exists(), "the run removed the dead holder's lock with the helper's keys");

    environment_file(&workspace, &store, "AWS_PROFILE=nope\n");
    let remote = put_lock(&store, "remote", 4242, "another-host");
    let unknown = workspace.run(&["unlock", "--provider", "one", "--stack", "dev", "--force"]);
    assert_ne!(unknown.code(), 0, "{}", unknown.stderr());
    assert!(unknown.stderr().contains("the AWS profile `nope` is in neither"), "{}", unknown.stderr());
    assert!(remote.exists(), "a lock went without the keys to read it");
    for output in [&stopped, &up, &vault, &unknown] {
        assert!(!format!("{}{}", output.stdout(), output.stderr()).contains(SECRET_KEY), "the secret key was printed");
    }
}
