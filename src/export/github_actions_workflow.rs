use serde_norway::{Mapping, Value};

use super::ci_pipeline::{CiJob, CiPipeline, CI_REPORT_DIR};
use crate::plan::Operation;

/// `runner export github-actions`: the pipeline as one GitHub Actions workflow.
pub(crate) struct GitHubActionsWorkflow;

impl GitHubActionsWorkflow {
    pub(crate) fn render(pipeline: &CiPipeline) -> String {
        let mut workflow = Mapping::new();
        workflow.insert(
            "name".into(),
            format!("runner {} {} {}", pipeline.options.operation.as_str(), pipeline.provider, pipeline.stack).into(),
        );
        workflow.insert("on".into(), triggers(pipeline.options.operation));
        workflow.insert("permissions".into(), map([("contents", "read".into())]));
        workflow.insert(
            "concurrency".into(),
            map([("group", pipeline.concurrency_group().into()), ("cancel-in-progress", false.into())]),
        );
        // `bash -eo pipefail`, not GitHub's default `bash -e`: the summary's `merge | tee` must
        // fail when the merge does.
        workflow.insert("defaults".into(), map([("run", map([("shell", "bash".into())]))]));
        let mut environment = Mapping::new();
        for variable in &pipeline.variables {
            let source = if variable.secret { "secrets" } else { "vars" };
            environment.insert(variable.name.clone().into(), format!("${{{{ {source}.{} }}}}", variable.name).into());
        }
        if !environment.is_empty() {
            workflow.insert("env".into(), Value::Mapping(environment));
        }
        let mut jobs = Mapping::new();
        if let Some(command) = pipeline.affected_command() {
            let mut steps = checkout(pipeline, true);
            steps.push(step(
                Some("affected"),
                "Projects a change affects",
                format!("echo \"projects=$({command})\" >> \"$GITHUB_OUTPUT\""),
            ));
            let mut job = Mapping::new();
            job.insert("runs-on".into(), "ubuntu-latest".into());
            job.insert("outputs".into(), map([("projects", "${{ steps.affected.outputs.projects }}".into())]));
            job.insert("steps".into(), Value::Sequence(steps));
            jobs.insert("affected".into(), Value::Mapping(job));
        }
        for job in &pipeline.jobs {
            jobs.insert(job.id.clone().into(), project_job(pipeline, job));
        }
        jobs.insert("summary".into(), summary_job(pipeline));
        workflow.insert("jobs".into(), Value::Mapping(jobs));
        let mut text = String::new();
        for line in pipeline.title("github-actions") {
            text.push_str(&format!("# {line}\n"));
        }
        text.push_str(&serde_norway::to_string(&Value::Mapping(workflow)).expect("plain YAML values serialise"));
        text
    }
}

fn project_job(pipeline: &CiPipeline, job: &CiJob) -> Value {
    let mut value = Mapping::new();
    value.insert("name".into(), job.project.as_str().into());
    value.insert("runs-on".into(), "ubuntu-latest".into());
    let affected = pipeline.options.affected.is_some();
    let mut needs: Vec<Value> = Vec::new();
    if affected {
        needs.push("affected".into());
    }
    needs.extend(job.needs.iter().map(|need| Value::from(need.as_str())));
    if !needs.is_empty() {
        value.insert("needs".into(), Value::Sequence(needs));
    }
    if affected {
        value.insert("if".into(), affected_condition(pipeline, job).into());
    }
    let mut steps = checkout(pipeline, false);
    if job.needs_kubeconfig {
        steps.push(step(None, "Kubeconfig of the cluster, from its stack's outputs", pipeline.kubeconfig_command()));
    }
    let run = match pipeline.passing_exit_code() {
        // GitHub has no per-exit-code `continue-on-error`: the step says drift as a warning and
        // passes, so dependents are checked too; the summary job fails the run on it.
        Some(code) => format!(
            "status=0\n{} || status=$?\nif [ \"$status\" -eq {code} ]; then\n  echo '::warning title=drift in {}::the summary job fails the run'\n  exit 0\nfi\nexit \"$status\"\n",
            pipeline.run_command(job),
            job.project
        ),
        None => pipeline.run_command(job),
    };
    steps.push(step(None, &format!("runner {} {}", pipeline.options.operation.as_str(), job.project), run));
    let mut upload = Mapping::new();
    upload.insert("name".into(), "Keep the JSON report".into());
    upload.insert("if".into(), "${{ !cancelled() }}".into());
    upload.insert("uses".into(), "actions/upload-artifact@v4".into());
    upload.insert(
        "with".into(),
        map([
            ("name", format!("runner-report-{}", job.id).into()),
            ("path", pipeline.report_file(job).into()),
            ("if-no-files-found", "ignore".into()),
        ]),
    );
    steps.push(Value::Mapping(upload));
    value.insert("steps".into(), Value::Sequence(steps));
    Value::Mapping(value)
}

/// GitHub skips a job whose needs were skipped unless its `if:` says otherwise: a job runs when
/// it is selected and every need either succeeded or was skipped for not being selected (a
/// selected need that was skipped had a failure upstream, which must skip this one too).
fn affected_condition(pipeline: &CiPipeline, job: &CiJob) -> String {
    let selected = |project: &str| format!("contains(fromJSON(needs.affected.outputs.projects), '{project}')");
    let mut parts =
        vec!["!cancelled()".to_string(), "needs.affected.result == 'success'".into(), selected(job.project.as_str())];
    for need in &job.needs {
        let upstream = pipeline.jobs.iter().find(|other| &other.id == need).expect("needs name jobs");
        parts.push(format!(
            "(needs.{need}.result == 'success' || (needs.{need}.result == 'skipped' && !{}))",
            selected(upstream.project.as_str())
        ));
    }
    format!("${{{{ {} }}}}", parts.join(" && "))
}

fn summary_job(pipeline: &CiPipeline) -> Value {
    let mut job = Mapping::new();
    job.insert("name".into(), "summary".into());
    job.insert("runs-on".into(), "ubuntu-latest".into());
    job.insert("needs".into(), Value::Sequence(pipeline.jobs.iter().map(|job| Value::from(job.id.as_str())).collect()));
    job.insert("if".into(), "${{ always() }}".into());
    let mut steps = checkout(pipeline, false);
    let mut download = Mapping::new();
    download.insert("name".into(), "The projects' JSON reports".into());
    download.insert("uses".into(), "actions/download-artifact@v4".into());
    download.insert(
        "with".into(),
        map([("pattern", "runner-report-*".into()), ("path", CI_REPORT_DIR.into()), ("merge-multiple", true.into())]),
    );
    steps.push(Value::Mapping(download));
    steps.push(step(
        None,
        "One summary of every project",
        // In the job's log too, where a summary page is not at hand.
        format!("{} | tee -a \"$GITHUB_STEP_SUMMARY\"", pipeline.merge_command("markdown")),
    ));
    job.insert("steps".into(), Value::Sequence(steps));
    Value::Mapping(job)
}

/// The checkout, then (unless `--no-setup`) a pinned `pulumi` and the runner, cached between
/// jobs and runs so no job builds them from scratch.
fn checkout(pipeline: &CiPipeline, history: bool) -> Vec<Value> {
    let mut checkout = Mapping::new();
    checkout.insert("uses".into(), "actions/checkout@v4".into());
    if history {
        // `--affected` compares with the merge base: it needs the history.
        checkout.insert("with".into(), map([("fetch-depth", 0.into())]));
    }
    let mut steps = vec![Value::Mapping(checkout)];
    if pipeline.options.setup {
        let mut cache = Mapping::new();
        cache.insert("uses".into(), "actions/cache@v4".into());
        cache.insert(
            "with".into(),
            map([
                ("path", "~/.cache/runner\n~/.cargo/bin/runner\n".into()),
                (
                    "key",
                    "runner-tools-${{ runner.os }}-${{ hashFiles('Cargo.lock', 'src/**', 'scripts/install-pulumi.sh') }}"
                        .into(),
                ),
            ]),
        );
        steps.push(Value::Mapping(cache));
        steps.push(step(
            None,
            "Install pulumi (pinned) and runner",
            "bash scripts/install-pulumi.sh | tail -n 1 >> \"$GITHUB_PATH\"\ncommand -v runner >/dev/null || cargo install --locked --path .\n".into(),
        ));
    }
    steps
}

fn triggers(operation: Operation) -> Value {
    let mut on = Mapping::new();
    match operation {
        Operation::Up => {
            on.insert("push".into(), map([("branches", Value::Sequence(vec!["main".into()]))]));
        }
        Operation::Preview => {
            on.insert("pull_request".into(), Value::Mapping(Mapping::new()));
        }
        Operation::Drift => {
            on.insert("schedule".into(), Value::Sequence(vec![map([("cron", "0 6 * * *".into())])]));
        }
        Operation::Refresh | Operation::Destroy => {}
    }
    on.insert("workflow_dispatch".into(), Value::Mapping(Mapping::new()));
    Value::Mapping(on)
}

fn step(id: Option<&str>, name: &str, run: String) -> Value {
    let mut step = Mapping::new();
    if let Some(id) = id {
        step.insert("id".into(), id.into());
    }
    step.insert("name".into(), name.into());
    step.insert("run".into(), run.into());
    Value::Mapping(step)
}

fn map<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Mapping(entries.into_iter().map(|(key, value)| (Value::from(key), value)).collect())
}
