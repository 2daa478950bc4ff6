//! Against the real `pulumi`: a broken downstream project stops `up` before the upstream one
//! is deployed (it used to be found only after).

use crate::support::Workspace;

#[test]
fn ext_a_broken_downstream_manifest_stops_up_before_anything_is_deployed() {
    let workspace = Workspace::with_real_pulumi();
    workspace
        .provider(
            "pair",
            "[[project]]\npath = \"first\"\nphase = \"infrastructure\"\n[[project]]\npath = \"second\"\nphase = \"infrastructure\"\ndepends_on = [\"first\"]\n",
        )
        .file("projects/first/Pulumi.yaml", "name: first\nruntime: yaml\noutputs:\n  greeting: hello\n")
        .file("projects/second/Pulumi.yaml", "name: second\nruntime: yaml\nresources: [unclosed\n");
    std::fs::create_dir_all(workspace.path(".state")).unwrap();
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
