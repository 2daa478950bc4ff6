//! `act` (host mode, no Docker) runs the workflows `runner export github-actions` writes for the
//! `local` provider, against a real S3 backend with the real `pulumi`: one job per project, each
//! started after its needs ended, the kubeconfig re-derived where the cluster is needed, the
//! destroy workflow dependents first, and a failure that skips its dependents only.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::ci_pipeline_run::{assert_needs_ended_first, project_entry, CiRepository, JOBS};
use crate::ci_tools::act;
use crate::support::repository;

/// `job -> its needs`, and the workflow-level `env` (`NAME -> ${{ secrets|vars.NAME }}`).
fn read_workflow(repo: &CiRepository, file: &str) -> (BTreeMap<String, Vec<String>>, BTreeMap<String, String>) {
    let text = std::fs::read_to_string(repo.workspace.path(file)).unwrap();
    let workflow: serde_norway::Value = serde_norway::from_str(&text).unwrap();
    let mut needs = BTreeMap::new();
    for (job, body) in workflow["jobs"].as_mapping().unwrap() {
        let job = job.as_str().unwrap().to_string();
        if job == "summary" {
            continue;
        }
        let list = body["needs"].as_sequence().map(|s| s.iter().map(|n| n.as_str().unwrap().to_string()).collect());
        needs.insert(job, list.unwrap_or_default());
    }
    let env = workflow["env"]
        .as_mapping()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.as_str().unwrap().to_string(), v.as_str().unwrap().to_string()))
        .collect();
    (needs, env)
}

/// Runs one workflow; the artifacts land in `artifacts/<name>/`. Returns success and the log.
fn run_act(repo: &CiRepository, file: &str, artifacts: &Path) -> (bool, String) {
    let (_, env) = read_workflow(repo, file);
    // The values, filed the way the workflow reads them: secrets as secrets, the rest as variables.
    let (mut secrets, mut vars) = (String::new(), String::new());
    for (name, source) in &env {
        let value = &repo.environment[name];
        if source == &format!("${{{{ secrets.{name} }}}}") {
            secrets.push_str(&format!("{name}={value}\n"));
        } else {
            assert_eq!(source, &format!("${{{{ vars.{name} }}}}"));
            vars.push_str(&format!("{name}={value}\n"));
        }
    }
    let (secret_file, var_file) = (repo.scratch.path().join("secrets.env"), repo.scratch.path().join("vars.env"));
    std::fs::write(&secret_file, secrets).unwrap();
    std::fs::write(&var_file, vars).unwrap();
    std::fs::create_dir_all(artifacts).unwrap();
    let actions = repository().join("tests/support/ci-actions");
    let output = repo
        .engine(&act())
        .args(["workflow_dispatch", "-W", file, "-P", "ubuntu-latest=-self-hosted"])
        .arg("--secret-file")
        .arg(&secret_file)
        .arg("--var-file")
        .arg(&var_file)
        .arg("--env")
        .arg(format!("RUNNER_TEST_ARTIFACTS={}", artifacts.display()))
        .arg("--local-repository")
        .arg(format!("actions/upload-artifact@v4={}", actions.join("upload-artifact").display()))
        .arg("--local-repository")
        .arg(format!("actions/download-artifact@v4={}", actions.join("download-artifact").display()))
        .output()
        .expect("act starts");
    let log = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    (output.status.success(), log)
}

/// `job -> its JSON report`, for the jobs that left one.
fn reports(artifacts: &Path) -> BTreeMap<String, Value> {
    JOBS.iter()
        .filter_map(|job| {
            let file = artifacts.join(format!("runner-report-{job}")).join(format!("{job}.json"));
            let text = std::fs::read_to_string(file).ok()?;
            Some((job.to_string(), serde_json::from_str(&text).unwrap()))
        })
        .collect()
}

#[test]
fn ext_act_runs_the_exported_up_then_destroy_workflow_of_local_on_s3() {
    let repo = CiRepository::new(false);
    repo.export(&["github-actions", "-o", ".github/workflows/up.yml"]);
    repo.export(&["github-actions", "--operation", "destroy", "-o", ".github/workflows/destroy.yml"]);
    repo.commit();
    let secret_values = ["local-dev-passphrase", "local-dev-fake-token", crate::object_store::SECRET_KEY];
    for file in [".github/workflows/up.yml", ".github/workflows/destroy.yml"] {
        let text = std::fs::read_to_string(repo.workspace.path(file)).unwrap();
        assert!(secret_values.iter().all(|secret| !text.contains(secret)), "a secret value in {file}:\n{text}");
    }

    let artifacts = repo.scratch.path().join("up-artifacts");
    let (succeeded, log) = run_act(&repo, ".github/workflows/up.yml", &artifacts);
    assert!(succeeded, "act up failed:\n{log}");
    let up = reports(&artifacts);
    assert_eq!(up.len(), JOBS.len(), "reports: {:?}\n{log}", up.keys());
    for (job, report) in &up {
        let entry = project_entry(report);
        assert_eq!(entry["result"], "succeeded", "{job}: {entry}");
        assert!(entry["changes"]["created"].as_u64().unwrap() > 0, "{job}: {entry}");
    }
    let (needs, _) = read_workflow(&repo, ".github/workflows/up.yml");
    assert_needs_ended_first(&needs, &up);
    let stacks = repo.stacks();
    assert_eq!(stacks.len(), JOBS.len(), "{stacks:?}");
    assert!(stacks.values().all(|&resources| resources > 0), "{stacks:?}");
    // The jobs that need the cluster ran with its kubeconfig, re-derived in their own workspace.
    let calls = repo.calls();
    for project in ["kubernetes/certmgr", "kubernetes/applications/demo"] {
        let run = calls.iter().find(|call| call.starts_with("up ") && call.contains(&format!("--only {project} ")));
        assert!(run.is_some_and(|call| call.ends_with("kubeconfig=yes")), "{project}: {calls:#?}");
    }
    assert!(log.contains("6 of 6 reported projects succeeded"), "{log}");

    let artifacts = repo.scratch.path().join("destroy-artifacts");
    let (succeeded, log) = run_act(&repo, ".github/workflows/destroy.yml", &artifacts);
    assert!(succeeded, "act destroy failed:\n{log}");
    let destroy = reports(&artifacts);
    assert_eq!(destroy.len(), JOBS.len(), "{log}");
    for (job, report) in &destroy {
        let entry = project_entry(report);
        assert_eq!(entry["result"], "succeeded", "{job}: {entry}");
        assert!(entry["changes"]["deleted"].as_u64().unwrap() > 0, "{job}: {entry}");
    }
    let (needs, _) = read_workflow(&repo, ".github/workflows/destroy.yml");
    assert!(needs["infrastructure-network"].contains(&"infrastructure-cluster".to_string()), "{needs:?}");
    assert_needs_ended_first(&needs, &destroy);
    let stacks = repo.stacks();
    assert!(stacks.values().all(|&resources| resources == 0), "resources left: {stacks:?}");
}

#[test]
fn ext_act_a_failing_project_skips_its_dependents_and_the_summary_names_it() {
    let repo = CiRepository::new(true);
    repo.export(&["github-actions", "-o", ".github/workflows/up.yml"]);
    repo.commit();
    let artifacts = repo.scratch.path().join("artifacts");
    let (succeeded, log) = run_act(&repo, ".github/workflows/up.yml", &artifacts);
    assert!(!succeeded, "a failed project must fail the workflow:\n{log}");
    let reports = reports(&artifacts);
    assert_eq!(project_entry(&reports["infrastructure-network"])["result"], "failed");
    // The independent branch finished; what needs the network never started.
    for job in ["infrastructure-registry", "utility-demo-image"] {
        assert_eq!(project_entry(&reports[job])["result"], "succeeded", "{job}");
    }
    for job in ["infrastructure-cluster", "kubernetes-certmgr", "kubernetes-applications-demo"] {
        assert!(!reports.contains_key(job), "{job} ran after its upstream failed:\n{log}");
        assert!(!repo.calls().iter().any(|call| call.contains(&format!("--only {} ", job.replace('-', "/")))));
    }
    let summary: String = log.lines().filter(|line| line.contains("/summary")).collect::<Vec<_>>().join("\n");
    assert!(summary.contains("`infrastructure/network` failed"), "{summary}");
    assert!(summary.contains("undefined_on_purpose"), "the summary names Pulumi's error:\n{summary}");
    assert!(summary.contains("2 of 3 reported projects succeeded, 1 failed; 3 did not run"), "{summary}");
}

#[test]
fn ext_act_an_affected_only_workflow_runs_the_changed_project_and_its_dependents_only() {
    let repo = CiRepository::new(false);
    repo.export(&["github-actions", "-o", ".github/workflows/up.yml"]);
    repo.export(&["github-actions", "--affected", "-o", ".github/workflows/affected.yml"]);
    repo.commit();
    let (succeeded, log) = run_act(&repo, ".github/workflows/up.yml", &repo.scratch.path().join("up"));
    assert!(succeeded, "act up failed:\n{log}");

    // A change to the registry: it and what depends on it, nothing upstream or beside it.
    let file = "projects/local/infrastructure/registry/Pulumi.yaml";
    let program = std::fs::read_to_string(repo.workspace.path(file)).unwrap();
    repo.workspace.file(file, program.replace("value: local-dev", "value: local-dev-2"));
    repo.git(&["commit", "-qam", "registry namespace"]);
    std::fs::remove_file(repo.calls_file()).unwrap();
    let artifacts = repo.scratch.path().join("affected");
    let (succeeded, log) = run_act(&repo, ".github/workflows/affected.yml", &artifacts);
    assert!(succeeded, "act affected failed:\n{log}");
    let reports = reports(&artifacts);
    let ran: Vec<&str> = reports.keys().map(String::as_str).collect();
    // The cluster was not selected: its job is skipped, and certmgr, which needs it, still runs.
    assert_eq!(
        ran,
        ["infrastructure-registry", "kubernetes-applications-demo", "kubernetes-certmgr", "utility-demo-image"],
        "{log}"
    );
    for (job, report) in &reports {
        assert_eq!(project_entry(report)["result"], "succeeded", "{job}");
    }
    let calls = repo.calls();
    assert!(
        !calls
            .iter()
            .any(|call| call.contains("--only infrastructure/network ")
                || call.contains("--only infrastructure/cluster ")),
        "{calls:#?}"
    );
    let (needs, _) = read_workflow(&repo, ".github/workflows/affected.yml");
    let needs = needs
        .into_iter()
        .filter(|(job, _)| reports.contains_key(job))
        .map(|(job, list)| (job, list.into_iter().filter(|need| reports.contains_key(need)).collect()))
        .collect();
    assert_needs_ended_first(&needs, &reports);
}

#[test]
fn ext_act_an_affected_only_workflow_skips_what_a_failed_selected_upstream_feeds() {
    let repo = CiRepository::new(false);
    repo.export(&["github-actions", "--affected", "-o", ".github/workflows/affected.yml"]);
    repo.commit();
    // The change breaks the network: it, the cluster, certmgr and the demo are selected.
    let file = "projects/local/infrastructure/network/Pulumi.yaml";
    let program = std::fs::read_to_string(repo.workspace.path(file)).unwrap();
    repo.workspace.file(file, format!("{program}  broken: ${{undefined_on_purpose}}\n"));
    repo.git(&["commit", "-qam", "break the network"]);
    let artifacts = repo.scratch.path().join("affected");
    let (succeeded, log) = run_act(&repo, ".github/workflows/affected.yml", &artifacts);
    assert!(!succeeded, "a failed project must fail the workflow:\n{log}");
    let reports = reports(&artifacts);
    assert_eq!(reports.keys().collect::<Vec<_>>(), ["infrastructure-network"], "{log}");
    assert_eq!(project_entry(&reports["infrastructure-network"])["result"], "failed");
    let calls = repo.calls();
    for project in
        ["infrastructure/cluster", "kubernetes/certmgr", "kubernetes/applications/demo", "infrastructure/registry"]
    {
        assert!(!calls.iter().any(|call| call.contains(&format!("--only {project} "))), "{project}: {calls:#?}");
    }
}

#[test]
fn ext_act_a_drift_workflow_checks_every_project_and_fails_in_its_summary() {
    let repo = CiRepository::with_a_file_that_can_drift();
    repo.export(&["github-actions", "-o", ".github/workflows/up.yml"]);
    repo.export(&["github-actions", "--operation", "drift", "-o", ".github/workflows/drift.yml"]);
    repo.commit();
    let (succeeded, log) = run_act(&repo, ".github/workflows/up.yml", &repo.scratch.path().join("up-artifacts"));
    assert!(succeeded, "act up failed:\n{log}");
    let file = repo.drift_file.clone().unwrap();
    std::fs::write(&file, "changed by hand").unwrap();

    let artifacts = repo.scratch.path().join("drift-artifacts");
    let (succeeded, log) = run_act(&repo, ".github/workflows/drift.yml", &artifacts);
    assert!(!succeeded, "drift must fail the workflow:\n{log}");
    let reports = reports(&artifacts);
    // The drifted network's step passed with a warning, so its dependents were checked too.
    assert_eq!(reports.len(), JOBS.len(), "{:?}\n{log}", reports.keys());
    for (job, report) in &reports {
        let entry = project_entry(report);
        assert_eq!(entry["result"], "succeeded", "{job}: {entry}");
        let drifted = !entry["resources"].as_array().unwrap().is_empty();
        assert_eq!(drifted, job == "infrastructure-network", "{job}: {entry}");
    }
    let summary: String = log.lines().filter(|line| line.contains("/summary")).collect::<Vec<_>>().join("\n");
    assert!(summary.contains("6 of 6 reported projects succeeded, 0 failed; 1 drifted"), "{summary}");
    assert!(summary.contains("`infrastructure/network` drifted"), "{summary}");
    assert!(summary.contains("drift found in 1 of 6 projects: infrastructure/network"), "{summary}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "changed by hand");
}
