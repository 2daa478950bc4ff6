//! A `pulumi` killed inside gocloud's fileblob write leaves the stack's attributes sidecar
//! (`dev.json.attrs`) empty beside a whole checkpoint: the real `pulumi` then refuses the stack
//! with "failed to load checkpoint: EOF" (seen in the kill sweep). The next run mends it by itself,
//! and removes the temporary file the same kill left.

use crate::support::{real_pulumi_in, Workspace};

#[test]
fn ext_a_checkpoint_torn_by_a_killed_pulumi_is_mended_by_the_next_run() {
    let workspace = Workspace::with_real_pulumi();
    workspace
        .provider("one", "[[project]]\npath = \"net\"\nphase = \"infrastructure\"\n")
        .file("projects/net/Pulumi.yaml", "name: net\nruntime: yaml\noutputs:\n  cidr: 10.0.0.0/16\n");
    let up = ["up", "--provider", "one", "--stack", "dev", "--non-interactive"];
    workspace.run(&up).expect_code(0);
    let sidecar = workspace.path(".state/.pulumi/stacks/net/dev.json.attrs");
    assert!(std::fs::metadata(&sidecar).unwrap().len() > 0, "fileblob writes a sidecar for the checkpoint");
    std::fs::write(&sidecar, "").unwrap();
    // The same kill leaves the new blob's temporary file, named by fileblob after the moment it
    // began (nanoseconds, in hex): one from long ago goes, one just begun stays.
    let nanos = |ago: u64| {
        let at = std::time::SystemTime::now() - std::time::Duration::from_secs(ago);
        format!("{:x}", at.duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos())
    };
    let stale = workspace.path(&format!(".state/.pulumi/stacks/net/dev.json.{}.tmp", nanos(600)));
    let fresh = workspace.path(&format!(".state/.pulumi/stacks/net/dev.json.{}.tmp", nanos(0)));
    for file in [&stale, &fresh] {
        std::fs::write(file, "{\"version\": 3, \"checkpoint\": {").unwrap();
    }
    let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(600);
    std::fs::File::options().write(true).open(&stale).unwrap().set_modified(long_ago).unwrap();

    // What the real CLI says of such a stack, on its own.
    let pulumi = real_pulumi_in(&workspace, "net", &workspace.path(".state"))
        .args(["stack", "output", "--stack", "dev", "--non-interactive"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&pulumi.stderr);
    assert!(!pulumi.status.success() && said.contains("failed to load checkpoint: EOF"), "{said}");

    let mended = workspace.run(&up);
    mended.expect_code(0).expect_stderr_contains(
        "removed the torn `.state/.pulumi/stacks/net/dev.json.attrs` a killed `pulumi` left beside the checkpoint of `organization/net/dev`",
    );
    mended.expect_stderr_contains(
        "removed 1 temporary file that killed `pulumi` runs left beside the checkpoint of `organization/net/dev`",
    );
    assert!(!stale.exists() && fresh.exists(), "only the stale temporary file goes");
    let history = workspace.path(".runner/history");
    let newest = std::fs::read_dir(&history).unwrap().flatten().map(|e| e.path()).max().unwrap();
    let record: serde_json::Value = serde_json::from_slice(&std::fs::read(newest).unwrap()).unwrap();
    assert!(record["recovered_locks"].to_string().contains("dev.json.attrs"), "{record}");
    workspace.run(&up).expect_code(0).expect_stderr_lacks("torn");
}
