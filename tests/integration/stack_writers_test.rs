//! One writer per stack: `config set` holds the runner's stack lock like a run does, so two of
//! them, or one during an `up`, never lose what the other stored (real `pulumi`, file backend).

use std::io::Write;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::support::Workspace;

fn workspace() -> Workspace {
    let workspace = Workspace::with_real_pulumi();
    workspace
        .provider("one", "[[project]]\npath = \"net\"\nphase = \"infrastructure\"\n")
        .file("projects/net/Pulumi.yaml", "name: net\nruntime: yaml\noutputs:\n  value: net\n");
    workspace
}

fn config_set(workspace: &Workspace, key: &str, extra: &[&str]) -> Child {
    let mut args = vec!["config", "set", "--secret", key, "--provider", "one", "--stack", "dev"];
    args.extend_from_slice(extra);
    let mut child = workspace
        .std_command(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(format!("value-of-{key}\n").as_bytes()).unwrap();
    child
}

fn stack_file(workspace: &Workspace) -> String {
    std::fs::read_to_string(workspace.path("config/pulumi/Pulumi.dev.yaml")).unwrap_or_default()
}

/// Every pair either keeps both keys, or the second refuses naming the first; with `--wait`
/// both keep theirs.
#[test]
fn ext_concurrent_secret_config_sets_never_lose_a_key() {
    let workspace = workspace();
    for round in 0..3 {
        let wait: &[&str] = if round == 2 { &["--wait"] } else { &[] };
        let keys = [format!("net:first{round}"), format!("net:second{round}")];
        let children: Vec<Child> = keys.iter().map(|key| config_set(&workspace, key, wait)).collect();
        let outputs: Vec<_> = children.into_iter().map(|child| child.wait_with_output().unwrap()).collect();
        let file = stack_file(&workspace);
        for (key, output) in keys.iter().zip(&outputs) {
            let stderr = String::from_utf8_lossy(&output.stderr);
            match output.status.code() {
                Some(0) => assert!(file.contains(&format!("{key}:")), "`{key}` said stored but is lost:\n{file}"),
                Some(2) if wait.is_empty() => {
                    assert!(stderr.contains("is in use by another runner"), "{stderr}")
                }
                other => panic!("`{key}` ended with {other:?}: {stderr}"),
            }
        }
        if !wait.is_empty() {
            assert!(outputs.iter().all(|output| output.status.success()), "with `--wait` both are stored");
        }
    }
}

/// A `config set` while an `up` runs refuses instead of rewriting the stack file under it.
#[test]
fn ext_config_set_during_an_up_refuses_until_the_up_ends() {
    let workspace = workspace();
    workspace.file(
        "projects/net/Pulumi.yaml",
        "name: net\nruntime: yaml\nvariables:\n  blocked:\n    fn::readFile: ./fifo\noutputs:\n  value: ${blocked}\n",
    );
    crate::support::make_fifo(&workspace.path("projects/net/fifo"));
    let mut up = workspace.spawn_quiet(&["up", "--provider", "one", "--stack", "dev", "--non-interactive"]);
    let deadline = Instant::now() + Duration::from_secs(120);
    while !workspace.path(".runner/locks/dev.lock").exists() {
        assert!(Instant::now() < deadline, "the up never took the stack lock");
        std::thread::sleep(Duration::from_millis(50));
    }
    let refused = config_set(&workspace, "net:during", &[]).wait_with_output().unwrap();
    assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stderr));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("is in use by another runner: pid"));
    // Let the program finish.
    std::fs::OpenOptions::new().write(true).open(workspace.path("projects/net/fifo")).unwrap().write_all(b"x").unwrap();
    assert!(up.wait().unwrap().success());
    let stored = config_set(&workspace, "net:after", &[]).wait_with_output().unwrap();
    assert!(stored.status.success(), "{}", String::from_utf8_lossy(&stored.stderr));
    let file = stack_file(&workspace);
    assert!(file.contains("encryptionsalt") && file.contains("net:after:"), "{file}");
}
