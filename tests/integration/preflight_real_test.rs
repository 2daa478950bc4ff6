//! Against the real `pulumi`: a broken downstream project stops `up` before the upstream one
//! is deployed (it used to be found only after).

use crate::support::{path_with, real_pulumi_dir, Workspace};

#[test]
fn a_broken_downstream_manifest_stops_up_before_anything_is_deployed() {
    let mut workspace = Workspace::new();
    let (backend, home) = (workspace.path(".state"), workspace.path("home"));
    workspace
        .set_env("PATH", path_with(&real_pulumi_dir()))
        .set_env("PULUMI_BACKEND_URL", format!("file://{}", backend.display()))
        .set_env("PULUMI_CONFIG_PASSPHRASE", "integration-test-passphrase")
        .set_env("HOME", home.display().to_string());
    workspace
        .provider(
            "pair",
            "[[project]]\npath = \"first\"\nphase = \"infrastructure\"\n[[project]]\npath = \"second\"\nphase = \"infrastructure\"\ndepends_on = [\"first\"]\n",
        )
        .file("projects/first/Pulumi.yaml", "name: first\nruntime: yaml\noutputs:\n  greeting: hello\n")
        .file("projects/second/Pulumi.yaml", "name: second\nruntime: yaml\nresources: [unclosed\n");
    std::fs::create_dir_all(&backend).unwrap();
    workspace
        .run(&["up", "--provider", "pair", "--stack", "dev", "--non-interactive"])
        .expect_code(2)
        .expect_stderr_contains("nothing was run")
        .expect_stderr_contains("project `second`");
    assert!(!workspace.path(".state/.pulumi/stacks/first").exists(), "`first` must not have been deployed");
    workspace.file("projects/second/Pulumi.yaml", "name: second\nruntime: yaml\n");
    workspace.run(&["up", "--provider", "pair", "--stack", "dev", "--non-interactive"]).expect_code(0);
    assert!(workspace.path(".state/.pulumi/stacks/first/dev.json").exists());
}
