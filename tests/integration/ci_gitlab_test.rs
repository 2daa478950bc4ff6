//! `gitlab-ci-local` (shell executor, each job in a folder of its own) runs the `.gitlab-ci.yml`
//! that `runner export gitlab-ci` writes for the `local` provider, against a real S3 backend with
//! the real `pulumi`: the same guarantees as the GitHub workflow under `act`.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::ci_pipeline_run::{assert_needs_ended_first, project_entry, CiRepository, JOBS};
use crate::ci_tools::gitlab_ci_local;

/// `job -> its needs` (the project jobs).
fn read_needs(repo: &CiRepository, file: &str) -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(repo.workspace.path(file)).unwrap();
    let pipeline: serde_norway::Value = serde_norway::from_str(&text).unwrap();
    JOBS.iter()
        .map(|job| {
            let needs = pipeline[*job]["needs"]
                .as_sequence()
                .unwrap()
                .iter()
                .map(|need| need["job"].as_str().unwrap().to_string())
                .collect();
            (job.to_string(), needs)
        })
        .collect()
}

/// Runs one pipeline file with the environment file's entries as CI/CD variables.
fn run_pipeline(repo: &CiRepository, file: &str) -> (bool, String) {
    run_jobs(repo, file, &[])
}

/// Runs `jobs` of one pipeline file (all of them when empty).
fn run_jobs(repo: &CiRepository, file: &str, jobs: &[&str]) -> (bool, String) {
    let mut command = repo.engine(&gitlab_ci_local());
    command.args(["--file", file, "--shell-isolation"]).args(jobs);
    for (name, value) in &repo.environment {
        command.arg("--variable").arg(format!("{name}={value}"));
    }
    let output = command.output().expect("gitlab-ci-local starts");
    let log = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    (output.status.success(), log)
}

/// `job -> its JSON report`, for the jobs that left one in this pipeline's artifacts.
fn reports(repo: &CiRepository) -> BTreeMap<String, Value> {
    let artifacts = repo.workspace.path(".gitlab-ci-local/artifacts");
    JOBS.iter()
        .filter_map(|job| {
            let file = artifacts.join(job).join(format!(".runner-ci/reports/{job}.json"));
            let text = std::fs::read_to_string(file).ok()?;
            Some((job.to_string(), serde_json::from_str(&text).unwrap()))
        })
        .collect()
}

fn summary(repo: &CiRepository) -> String {
    let file = repo.workspace.path(".gitlab-ci-local/artifacts/summary/.runner-ci/summary.xml");
    std::fs::read_to_string(&file).unwrap_or_else(|err| panic!("{}: {err}", file.display()))
}

#[test]
fn ext_gitlab_ci_local_runs_the_exported_up_then_destroy_pipeline_of_local_on_s3() {
    let repo = CiRepository::new(false);
    repo.export(&["gitlab-ci", "-o", ".gitlab-ci.yml"]);
    repo.export(&["gitlab-ci", "--operation", "destroy", "-o", "destroy.gitlab-ci.yml"]);
    repo.commit();
    for file in [".gitlab-ci.yml", "destroy.gitlab-ci.yml"] {
        let text = std::fs::read_to_string(repo.workspace.path(file)).unwrap();
        for secret in ["local-dev-passphrase", "local-dev-fake-token", crate::object_store::SECRET_KEY] {
            assert!(!text.contains(secret), "{secret} in {file}");
        }
    }

    let (succeeded, log) = run_pipeline(&repo, ".gitlab-ci.yml");
    assert!(succeeded, "the up pipeline failed:\n{log}");
    let up = reports(&repo);
    assert_eq!(up.len(), JOBS.len(), "{log}");
    for (job, report) in &up {
        let entry = project_entry(report);
        assert_eq!(entry["result"], "succeeded", "{job}: {entry}");
        assert!(entry["changes"]["created"].as_u64().unwrap() > 0, "{job}: {entry}");
    }
    assert_needs_ended_first(&read_needs(&repo, ".gitlab-ci.yml"), &up);
    let stacks = repo.stacks();
    assert_eq!(stacks.len(), JOBS.len(), "{stacks:?}");
    assert!(stacks.values().all(|&resources| resources > 0), "{stacks:?}");
    let calls = repo.calls();
    for project in ["kubernetes/certmgr", "kubernetes/applications/demo"] {
        let run = calls.iter().find(|call| call.starts_with("up ") && call.contains(&format!("--only {project} ")));
        assert!(run.is_some_and(|call| call.ends_with("kubeconfig=yes")), "{project}: {calls:#?}");
    }
    let junit = summary(&repo);
    assert!(junit.contains("tests=\"6\"") && junit.contains("failures=\"0\""), "{junit}");

    let (succeeded, log) = run_pipeline(&repo, "destroy.gitlab-ci.yml");
    assert!(succeeded, "the destroy pipeline failed:\n{log}");
    let destroy = reports(&repo);
    for (job, report) in &destroy {
        let entry = project_entry(report);
        assert_eq!(entry["result"], "succeeded", "{job}: {entry}");
        assert!(entry["changes"]["deleted"].as_u64().unwrap() > 0, "{job}: {entry}");
    }
    assert_eq!(destroy.len(), JOBS.len(), "{log}");
    assert_needs_ended_first(&read_needs(&repo, "destroy.gitlab-ci.yml"), &destroy);
    let stacks = repo.stacks();
    assert!(stacks.values().all(|&resources| resources == 0), "resources left: {stacks:?}");
}

#[test]
fn ext_gitlab_ci_local_a_failing_project_skips_its_dependents_and_the_summary_names_it() {
    let repo = CiRepository::new(true);
    repo.export(&["gitlab-ci", "-o", ".gitlab-ci.yml"]);
    repo.commit();
    let (succeeded, log) = run_pipeline(&repo, ".gitlab-ci.yml");
    assert!(!succeeded, "a failed project must fail the pipeline:\n{log}");
    let reports = reports(&repo);
    assert_eq!(project_entry(&reports["infrastructure-network"])["result"], "failed", "{log}");
    for job in ["infrastructure-registry", "utility-demo-image"] {
        assert_eq!(project_entry(&reports[job])["result"], "succeeded", "{job}");
    }
    for job in ["infrastructure-cluster", "kubernetes-certmgr", "kubernetes-applications-demo"] {
        assert!(!reports.contains_key(job), "{job} ran after its upstream failed:\n{log}");
    }
    // GitLab starts the `.post` summary after the failure (`when: always`); gitlab-ci-local
    // 4.62 waits forever for the skipped jobs instead and ends without it, so the test starts
    // that job itself, over the artifacts the pipeline left.
    let (succeeded, log) = run_jobs(&repo, ".gitlab-ci.yml", &["summary"]);
    assert!(succeeded, "the summary job failed:\n{log}");
    let junit = summary(&repo);
    assert!(
        junit.contains("infrastructure/network") && junit.contains("failures=\"1\"") && junit.contains("skipped=\"3\""),
        "{junit}"
    );
    assert!(junit.contains("undefined_on_purpose"), "the summary names Pulumi's error:\n{junit}");
}

#[test]
fn ext_gitlab_ci_local_an_affected_only_pipeline_runs_the_changed_project_and_its_dependents_only() {
    let repo = CiRepository::new(false);
    repo.export(&["gitlab-ci", "-o", ".gitlab-ci.yml"]);
    repo.export(&["gitlab-ci", "--affected", "-o", "affected.gitlab-ci.yml"]);
    repo.commit();
    let (succeeded, log) = run_pipeline(&repo, ".gitlab-ci.yml");
    assert!(succeeded, "the up pipeline failed:\n{log}");

    let file = "projects/local/infrastructure/registry/Pulumi.yaml";
    let program = std::fs::read_to_string(repo.workspace.path(file)).unwrap();
    repo.workspace.file(file, program.replace("value: local-dev", "value: local-dev-2"));
    repo.git(&["commit", "-qam", "registry namespace"]);
    std::fs::remove_file(repo.calls_file()).unwrap();
    std::fs::remove_dir_all(repo.workspace.path(".gitlab-ci-local/artifacts")).unwrap();
    let (succeeded, log) = run_pipeline(&repo, "affected.gitlab-ci.yml");
    assert!(succeeded, "the affected pipeline failed:\n{log}");
    let reports = reports(&repo);
    let ran: Vec<&str> = reports.keys().map(String::as_str).collect();
    assert_eq!(
        ran,
        ["infrastructure-registry", "kubernetes-applications-demo", "kubernetes-certmgr", "utility-demo-image"],
        "{log}"
    );
    for (job, report) in &reports {
        assert_eq!(project_entry(report)["result"], "succeeded", "{job}");
    }
    let calls = repo.calls();
    let upstream = |call: &String| {
        call.starts_with("up ")
            && (call.contains("--only infrastructure/network ") || call.contains("--only infrastructure/cluster "))
    };
    assert!(!calls.iter().any(upstream), "{calls:#?}");
}

#[test]
fn ext_gitlab_ci_local_a_drift_pipeline_checks_every_project_and_fails_in_its_summary() {
    let repo = CiRepository::with_a_file_that_can_drift();
    repo.export(&["gitlab-ci", "-o", ".gitlab-ci.yml"]);
    repo.export(&["gitlab-ci", "--operation", "drift", "-o", "drift.gitlab-ci.yml"]);
    repo.commit();
    let (succeeded, log) = run_pipeline(&repo, ".gitlab-ci.yml");
    assert!(succeeded, "the up pipeline failed:\n{log}");
    let file = repo.drift_file.clone().unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "v1");
    std::fs::write(&file, "changed by hand").unwrap();
    std::fs::remove_dir_all(repo.workspace.path(".gitlab-ci-local/artifacts")).unwrap();

    let (succeeded, log) = run_pipeline(&repo, "drift.gitlab-ci.yml");
    assert!(!succeeded, "drift must fail the pipeline:\n{log}");
    let reports = reports(&repo);
    // The drifted network's dependents were checked too: its job passed with a warning.
    assert_eq!(reports.len(), JOBS.len(), "{:?}\n{log}", reports.keys());
    for (job, report) in &reports {
        let entry = project_entry(report);
        assert_eq!(entry["result"], "succeeded", "{job}: {entry}");
        let resources = entry["resources"].as_array().unwrap();
        if job == "infrastructure-network" {
            assert_eq!(resources.len(), 1, "{entry}");
            assert_eq!(resources[0]["name"], "marker", "{entry}");
        } else {
            assert!(resources.is_empty(), "{job}: {entry}");
        }
    }
    assert!(log.contains("drift found in 1 of 6 projects: infrastructure/network"), "{log}");
    let junit = summary(&repo);
    assert!(junit.contains("tests=\"6\"") && junit.contains("failures=\"1\""), "{junit}");
    assert!(junit.contains("1 resource drifted") && junit.contains("update tokenauth:index:File marker"), "{junit}");
    // A drift check reads; it never puts the file back.
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "changed by hand");
}
