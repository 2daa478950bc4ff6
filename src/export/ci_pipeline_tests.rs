use std::path::Path;

use super::*;
use crate::config::RepositoryRoot;
use crate::export::{GitHubActionsWorkflow, GitLabCiPipeline};
use crate::provider::ProviderCatalog;

/// Values that must never reach a pipeline file, whatever the options.
const SECRET_VALUES: &[&str] = &["correct-horse-battery", "hunter2-hunter2", "ghp_abcdef0123"];

fn environment(backend: Option<&str>) -> EnvironmentFile {
    let mut text = String::from(
        "PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=correct-horse-battery\nLOCAL_DEMO_API_KEY=hunter2-hunter2\nGH_PAT=ghp_abcdef0123\nAWS_REGION=eu-west-1\n",
    );
    if let Some(url) = backend {
        text.push_str(&format!("PULUMI_BACKEND_URL={url}\n"));
    }
    EnvironmentFile::parse(Path::new("config/pulumi/environment"), &text).unwrap()
}

fn shipped(name: &str) -> (Provider, ProjectGraph) {
    let root = RepositoryRoot::at(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    let provider = ProviderCatalog::new(root).load(name, None).unwrap();
    let graph = ProjectGraph::build(&provider).unwrap();
    (provider, graph)
}

fn pipeline(name: &str, operation: Operation, affected: Option<&str>, setup: bool) -> Result<CiPipeline> {
    let (provider, graph) = shipped(name);
    let rule = SecretRule::new(provider.plain_environment.iter().cloned());
    let options = CiOptions { operation, setup, affected: affected.map(str::to_string) };
    CiPipeline::build(&provider, &graph, "dev", &environment(Some("s3://state?region=eu-west-1")), &rule, options)
}

#[test]
fn local_github_actions_up() {
    insta::assert_snapshot!(GitHubActionsWorkflow::render(&pipeline("local", Operation::Up, None, true).unwrap()));
}

#[test]
fn local_github_actions_destroy_affected_no_setup() {
    let pipeline = pipeline("local", Operation::Destroy, Some(""), false).unwrap();
    insta::assert_snapshot!(GitHubActionsWorkflow::render(&pipeline));
}

#[test]
fn local_gitlab_ci_up() {
    insta::assert_snapshot!(GitLabCiPipeline::render(&pipeline("local", Operation::Up, None, true).unwrap()));
}

#[test]
fn local_gitlab_ci_preview_affected_no_setup() {
    let pipeline = pipeline("local", Operation::Preview, Some("origin/main"), false).unwrap();
    insta::assert_snapshot!(GitLabCiPipeline::render(&pipeline));
}

#[test]
fn local_github_actions_drift_lets_drift_pass_to_the_summary() {
    insta::assert_snapshot!(GitHubActionsWorkflow::render(&pipeline("local", Operation::Drift, None, false).unwrap()));
}

#[test]
fn local_gitlab_ci_drift_lets_drift_pass_to_the_summary() {
    insta::assert_snapshot!(GitLabCiPipeline::render(&pipeline("local", Operation::Drift, None, false).unwrap()));
}

#[test]
fn only_drift_lets_an_exit_code_pass() {
    for operation in [Operation::Up, Operation::Preview, Operation::Refresh, Operation::Destroy, Operation::Drift] {
        let pipeline = pipeline("local", operation, None, false).unwrap();
        let github = GitHubActionsWorkflow::render(&pipeline);
        let gitlab = GitLabCiPipeline::render(&pipeline);
        let drift = operation == Operation::Drift;
        assert_eq!(pipeline.passing_exit_code(), drift.then_some(3), "{operation:?}");
        assert_eq!(github.contains("|| status=$?"), drift, "{operation:?}\n{github}");
        assert_eq!(gitlab.contains("allow_failure"), drift, "{operation:?}\n{gitlab}");
    }
}

#[test]
fn needs_are_the_graph_edges_and_destroy_reverses_them() {
    for name in ["local", "aws", "digitalocean", "linode"] {
        let (_, graph) = shipped(name);
        let up = pipeline(name, Operation::Up, None, true).unwrap();
        let destroy = pipeline(name, Operation::Destroy, None, true).unwrap();
        let needs =
            |pipeline: &CiPipeline, id: &str| pipeline.jobs.iter().find(|job| job.id == id).unwrap().needs.clone();
        for project in graph.projects() {
            let id = job_id(&project.path);
            for dependency in &project.depends_on {
                let dependency = job_id(dependency);
                assert!(needs(&up, &id).contains(&dependency), "{name}: up `{id}` needs `{dependency}`");
                assert!(needs(&destroy, &dependency).contains(&id), "{name}: destroy `{dependency}` needs `{id}`");
                assert!(!needs(&destroy, &id).contains(&dependency), "{name}: destroy `{id}` waits for no dependency");
            }
        }
        assert_eq!(up.jobs.len(), graph.len());
    }
}

#[test]
fn kubeconfig_is_re_derived_where_the_cluster_is_needed() {
    let up = pipeline("local", Operation::Up, None, true).unwrap();
    let with: Vec<&str> = up.jobs.iter().filter(|job| job.needs_kubeconfig).map(|job| job.project.as_str()).collect();
    assert_eq!(with, ["kubernetes/certmgr", "kubernetes/applications/demo"]);
    let text = GitHubActionsWorkflow::render(&up);
    assert_eq!(text.matches("runner kubeconfig --provider local --stack dev").count(), 2, "{text}");
    assert!(!text.contains("download-artifact@v4\n      with:\n        name: runner-report-infrastructure-cluster"));
}

#[test]
fn a_backend_on_this_machine_is_refused_naming_pulumi_backend_url() {
    let (provider, graph) = shipped("local");
    let rule = SecretRule::default();
    for backend in [None, Some("file://~/.pulumi"), Some("file:///srv/state"), Some("")] {
        let options = CiOptions { operation: Operation::Up, setup: true, affected: None };
        let error = CiPipeline::build(&provider, &graph, "dev", &environment(backend), &rule, options).unwrap_err();
        assert_eq!(error.exit_status(), crate::exit_status::ExitStatus::Usage, "{backend:?}");
        assert!(error.to_string().contains("`PULUMI_BACKEND_URL`"), "{backend:?}: {error}");
    }
}

#[test]
fn no_secret_value_is_ever_written_and_secrets_are_ci_secrets() {
    for name in ["local", "aws", "digitalocean", "linode"] {
        for operation in [Operation::Up, Operation::Preview, Operation::Refresh, Operation::Destroy, Operation::Drift] {
            for (affected, setup) in [(None, true), (Some(""), false)] {
                let pipeline = pipeline(name, operation, affected, setup).unwrap();
                for text in [GitHubActionsWorkflow::render(&pipeline), GitLabCiPipeline::render(&pipeline)] {
                    for secret in SECRET_VALUES {
                        assert!(!text.contains(secret), "{name} {operation:?}: {secret} leaked:\n{text}");
                    }
                }
                let github = GitHubActionsWorkflow::render(&pipeline);
                for secret in ["PULUMI_CONFIG_PASSPHRASE", "LOCAL_DEMO_API_KEY", "GH_PAT"] {
                    assert!(github.contains(&format!("{secret}: ${{{{ secrets.{secret} }}}}")), "{secret}:\n{github}");
                }
                for plain in ["AWS_REGION", "PULUMI_BACKEND_URL"] {
                    assert!(github.contains(&format!("{plain}: ${{{{ vars.{plain} }}}}")), "{plain}:\n{github}");
                }
            }
        }
    }
}

#[test]
fn a_name_that_is_not_one_shell_word_is_refused_before_anything_is_written() {
    let (provider, graph) = shipped("local");
    let rule = SecretRule::default();
    let shared = environment(Some("s3://state"));
    let options = || CiOptions { operation: Operation::Up, setup: true, affected: Some(String::new()) };
    for hostile in ["a b", "a'b", "$(id)", "a;b", "`id`", "a\"b", "-rf", "", "a|b", "a&b", "x\ny"] {
        let error = CiPipeline::build(&provider, &graph, hostile, &shared, &rule, options()).unwrap_err();
        assert!(error.to_string().starts_with("stack `"), "{hostile:?}: {error}");
        let mut renamed = provider.clone();
        renamed.projects[0].path = ProjectPath::new(hostile);
        let graph = ProjectGraph::build(&renamed);
        if let Ok(graph) = graph {
            let error = CiPipeline::build(&renamed, &graph, "dev", &shared, &rule, options()).unwrap_err();
            assert!(error.to_string().starts_with("project `"), "{hostile:?}: {error}");
        }
    }
    for fine in ["dev", "prod.eu-1", "team_a"] {
        assert!(CiPipeline::build(&provider, &graph, fine, &shared, &rule, options()).is_ok(), "{fine}");
    }
}

#[test]
fn an_environment_name_no_ci_system_takes_is_refused() {
    let (provider, graph) = shipped("local");
    for name in ["GITHUB_TOKEN", "github_pat"] {
        let text = format!("PULUMI_BACKEND_URL=s3://state\n{name}=x\n");
        let environment = EnvironmentFile::parse(Path::new("config/pulumi/environment"), &text).unwrap();
        let options = CiOptions { operation: Operation::Up, setup: true, affected: None };
        let error = CiPipeline::build(&provider, &graph, "dev", &environment, &SecretRule::default(), options);
        assert!(error.unwrap_err().to_string().contains(&format!("`{name}`")), "{name}");
    }
}
