use std::path::PathBuf;

use clap::{ArgGroup, Args, Subcommand};

use super::arguments::StackArguments;
use crate::plan::Operation;

const PKO_AFTER_HELP: &str = "\
Every project becomes a `Stack` (pulumi.com/v1) named `<stack>-<project path>`
(at most 42 characters: longer names are shortened with a hash, and the
mapping printed), ordered by `spec.prerequisites`. Secret values (the
passphrase, declared secrets, `*TOKEN*`-like names) are read from one
Kubernetes Secret, whose template with `${NAME}` placeholders starts the
stream.

Examples:
  runner export pko --provider aws --stack prod --namespace infra \\
      --git-url https://github.com/acme/infra.git --git-branch main \\
      > stacks.yaml
  envsubst < stacks.yaml | kubectl apply --server-side -f -
  runner export check stacks.yaml    check a (hand-edited) stream against
                                     the operator's rules";

#[derive(Debug, Args)]
pub(crate) struct ExportArguments {
    #[command(subcommand)]
    pub target: ExportTarget,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ExportTarget {
    /// One `Stack` resource of the Pulumi Kubernetes Operator per project, as a YAML stream on stdout.
    #[command(after_help = PKO_AFTER_HELP)]
    Pko(Box<PkoExportArguments>),
    /// A GitHub Actions workflow with one job per project, whose `needs` follow the graph.
    #[command(after_help = CI_AFTER_HELP)]
    GithubActions(CiExportArguments),
    /// A `.gitlab-ci.yml` with one job per project, whose `needs` follow the graph.
    #[command(after_help = CI_AFTER_HELP)]
    GitlabCi(CiExportArguments),
    /// Check a YAML stream (`-` for stdin) against the rules the operator enforces but the API server does not.
    Check(CheckExportArguments),
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("revision").required(true).multiple(false).args(["git_branch", "git_commit"])))]
pub(crate) struct PkoExportArguments {
    #[command(flatten)]
    pub stack: StackArguments,

    /// Kubernetes namespace of every Stack and of the Secret (the operator finds prerequisites only there).
    #[arg(long, short = 'n', value_name = "NAMESPACE", default_value = "default")]
    pub namespace: String,

    /// Repository the operator clones: `https://HOST/OWNER/REPO.git` or `git@HOST:OWNER/REPO.git`.
    #[arg(long, value_name = "URL")]
    pub git_url: String,

    /// Branch to deploy (exactly one of `--git-branch` and `--git-commit`).
    #[arg(long, value_name = "BRANCH")]
    pub git_branch: Option<String>,

    /// Commit to deploy (exactly one of `--git-branch` and `--git-commit`).
    #[arg(long, value_name = "SHA")]
    pub git_commit: Option<String>,

    /// Destroy each stack's resources when its Stack resource is deleted.
    #[arg(long)]
    pub destroy_on_finalize: bool,

    /// Name of the Kubernetes Secret holding every secret value; default `<stack>-runner-secrets`.
    #[arg(long, value_name = "NAME")]
    pub secret_name: Option<String>,

    /// `succeededWithinDuration` of a dependency the project gives no `prerequisites` window for.
    #[arg(long, value_name = "DURATION", default_value = "24h", value_parser = crate::text::parse_duration)]
    pub prerequisite_window: std::time::Duration,

    /// Write the stream to this file instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

const CI_AFTER_HELP: &str = "\
Each job runs one project through the whole lifecycle (`runner <operation>
--only P --non-interactive`) and keeps its JSON report; a last job merges
them. The backend must be shared (`PULUMI_BACKEND_URL` in the environment
file, not `file://`); the environment file's names come from the CI system,
secrets as CI secrets. Values never enter the file.

Examples:
  runner export github-actions --provider aws --stack prod \\
      -o .github/workflows/deploy.yml
  runner export gitlab-ci --provider aws --stack prod \\
      --operation preview --affected
  runner export github-actions --provider aws --stack prod \\
      --check .github/workflows/deploy.yml";

#[derive(Debug, Args)]
pub(crate) struct CiExportArguments {
    #[command(flatten)]
    pub stack: StackArguments,

    /// The operation every job runs; `destroy` reverses the `needs`.
    #[arg(long, value_enum, default_value_t = Operation::Up)]
    pub operation: Operation,

    /// A first job selects the projects a git change affects (and their dependents); the others
    /// end at once. Changes since REF, by default the merge base with the remote's default branch.
    #[arg(long, value_name = "REF", num_args = 0..=1, default_missing_value = "")]
    pub affected: Option<String>,

    /// No setup steps: the CI machines already have `pulumi` and `runner` on PATH.
    #[arg(long)]
    pub no_setup: bool,

    /// Write the pipeline to this file instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE", conflicts_with = "check")]
    pub output: Option<PathBuf>,

    /// Exit 1 when FILE differs from what the export writes now (a pipeline gone stale).
    #[arg(long, value_name = "FILE")]
    pub check: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct CheckExportArguments {
    /// The YAML stream to check; `-` reads stdin.
    pub file: PathBuf,
}
