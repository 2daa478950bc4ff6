use std::path::PathBuf;

use clap::{ArgGroup, Args, Subcommand};

use super::arguments::StackArguments;

const PKO_AFTER_HELP: &str = "\
Every project becomes a `Stack` (pulumi.com/v1) named `<stack>-<project path>` (at most 42
characters: longer names are shortened with a hash, and the mapping printed), ordered by
`spec.prerequisites`. Secret values (the passphrase, declared secrets, `*TOKEN*`-like names)
are read from one Kubernetes Secret, whose template with `${NAME}` placeholders starts the stream.

Examples:
  runner export pko --provider aws --stack prod --namespace infra \\
      --git-url https://github.com/acme/infra.git --git-branch main > stacks.yaml
  envsubst < stacks.yaml | kubectl apply --server-side -f -
  runner export check stacks.yaml        check a (hand-edited) stream against the operator's rules";

#[derive(Debug, Args)]
pub struct ExportArguments {
    #[command(subcommand)]
    pub target: ExportTarget,
}

#[derive(Debug, Subcommand)]
pub enum ExportTarget {
    /// One `Stack` resource of the Pulumi Kubernetes Operator per project, as a YAML stream on stdout.
    #[command(after_help = PKO_AFTER_HELP)]
    Pko(Box<PkoExportArguments>),
    /// Check a YAML stream (`-` for stdin) against the rules the operator enforces but the API server does not.
    Check(CheckExportArguments),
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("revision").required(true).multiple(false).args(["git_branch", "git_commit"])))]
pub struct PkoExportArguments {
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
    #[arg(long, value_name = "DURATION", default_value = "24h", value_parser = humantime::parse_duration)]
    pub prerequisite_window: std::time::Duration,

    /// Write the stream to this file instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CheckExportArguments {
    /// The YAML stream to check; `-` reads stdin.
    pub file: PathBuf,
}
