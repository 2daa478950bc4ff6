use serde_norway::{Mapping, Value};

use super::ci_pipeline::{CiJob, CiPipeline};

/// The affected job's list of selected project paths, one a line, handed to every job.
const AFFECTED_FILE: &str = ".runner-ci/affected.txt";
const SUMMARY_FILE: &str = ".runner-ci/summary.xml";

/// `runner export gitlab-ci`: the pipeline as one `.gitlab-ci.yml`.
pub(crate) struct GitLabCiPipeline;

impl GitLabCiPipeline {
    pub(crate) fn render(pipeline: &CiPipeline) -> String {
        let mut root = Mapping::new();
        root.insert("stages".into(), Value::Sequence(vec!["runner".into()]));
        if pipeline.options.setup {
            let mut default = Mapping::new();
            default.insert(
                "before_script".into(),
                Value::Sequence(vec![
                    "export RUNNER_CACHE_DIR=\"$CI_PROJECT_DIR/.runner-ci/cache\"".into(),
                    "export PATH=\"$(bash scripts/install-pulumi.sh | tail -n 1):$RUNNER_CACHE_DIR/bin:$PATH\"".into(),
                    "command -v runner >/dev/null || cargo install --locked --path . --root \"$RUNNER_CACHE_DIR\""
                        .into(),
                ]),
            );
            // Pulumi and the runner are built once, then restored in every job.
            default.insert(
                "cache".into(),
                map([("key", "runner-tools".into()), ("paths", Value::Sequence(vec![".runner-ci/cache/".into()]))]),
            );
            root.insert("default".into(), Value::Mapping(default));
        }
        if let Some(command) = pipeline.affected_command() {
            let mut job = Mapping::new();
            job.insert("stage".into(), "runner".into());
            job.insert("variables".into(), map([("GIT_DEPTH", "0".into())]));
            job.insert(
                "script".into(),
                Value::Sequence(vec![
                    "mkdir -p .runner-ci".into(),
                    format!("{command} | jq -r '.[]' > {AFFECTED_FILE}").into(),
                    format!("cat {AFFECTED_FILE}").into(),
                ]),
            );
            job.insert("artifacts".into(), map([("paths", Value::Sequence(vec![AFFECTED_FILE.into()]))]));
            root.insert("affected".into(), Value::Mapping(job));
        }
        for job in &pipeline.jobs {
            root.insert(job.id.clone().into(), project_job(pipeline, job));
        }
        root.insert("summary".into(), summary_job(pipeline));
        let mut text = String::new();
        for line in pipeline.title("gitlab-ci") {
            text.push_str(&format!("# {line}\n"));
        }
        text.push_str("# GitLab hands CI/CD variables to every job: mark the secrets masked (and protected).\n");
        text.push_str(&serde_norway::to_string(&Value::Mapping(root)).expect("plain YAML values serialise"));
        text
    }
}

fn project_job(pipeline: &CiPipeline, job: &CiJob) -> Value {
    let mut value = Mapping::new();
    value.insert("stage".into(), "runner".into());
    let mut needs = Vec::new();
    if pipeline.options.affected.is_some() {
        needs.push(need("affected", true));
    }
    // A failed need skips this job (GitLab's `on_success`); reports stay with their own jobs.
    needs.extend(job.needs.iter().map(|id| need(id, false)));
    value.insert("needs".into(), Value::Sequence(needs));
    // One job per Pulumi stack at a time, across pipelines.
    value.insert("resource_group".into(), format!("{}-{}", pipeline.concurrency_group(), job.id).into());
    let mut script: Vec<Value> = Vec::new();
    if pipeline.options.affected.is_some() {
        // Not selected: done at once, so its dependents still run (a failure would skip them).
        script.push(
            format!(
                "if ! grep -qxF '{}' {AFFECTED_FILE}; then echo 'not affected by the change'; exit 0; fi",
                job.project
            )
            .into(),
        );
    }
    script.push("mkdir -p .runner-ci/reports".into());
    if job.needs_kubeconfig {
        script.push(pipeline.kubeconfig_command().into());
    }
    script.push(pipeline.run_command(job).into());
    value.insert("script".into(), Value::Sequence(script));
    if let Some(code) = pipeline.passing_exit_code() {
        // A warning, not a failure: dependents are still checked, the summary job fails on it.
        value.insert("allow_failure".into(), map([("exit_codes", Value::Sequence(vec![u64::from(code).into()]))]));
    }
    value.insert(
        "artifacts".into(),
        map([("when", "always".into()), ("paths", Value::Sequence(vec![pipeline.report_file(job).into()]))]),
    );
    Value::Mapping(value)
}

fn summary_job(pipeline: &CiPipeline) -> Value {
    let mut job = Mapping::new();
    // After every job, failed and skipped ones included, with the artifacts of all: `needs`
    // on jobs that were skipped would keep it from running at all.
    job.insert("stage".into(), ".post".into());
    job.insert("when".into(), "always".into());
    job.insert(
        "script".into(),
        Value::Sequence(vec![
            "mkdir -p .runner-ci/reports".into(),
            format!("{} > {SUMMARY_FILE}", pipeline.merge_command("junit")).into(),
        ]),
    );
    job.insert(
        "artifacts".into(),
        map([
            ("when", "always".into()),
            ("paths", Value::Sequence(vec![SUMMARY_FILE.into()])),
            ("reports", map([("junit", SUMMARY_FILE.into())])),
        ]),
    );
    Value::Mapping(job)
}

fn need(job: &str, artifacts: bool) -> Value {
    map([("job", job.into()), ("artifacts", artifacts.into())])
}

fn map<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Mapping(entries.into_iter().map(|(key, value)| (Value::from(key), value)).collect())
}
