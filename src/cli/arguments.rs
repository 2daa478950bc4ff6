use super::report_target::{parse_report_target, ReportTarget};
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::plan::Operation;

const AFTER_HELP: &str = "\
Examples:
  runner providers                              list the provider definitions
  runner show --provider aws                    draw the order, run nothing
  runner validate --provider local --stack dev  check config and projects
  runner up --provider local --stack dev        deploy along the graph
  runner up --provider aws --stack dev --resume continue after a failure
  runner -p aws -s dev up                       MARA's order and names work

  runner refresh --provider aws --stack prod --non-interactive \\
      --report junit=report.xml
  runner up --provider aws --stack dev \\
      --only kubernetes/prometheus --with-dependencies
  runner preview --provider aws --stack dev --affected \\
      --expect-no-changes --report markdown=preview.md
  runner drift --provider aws --stack prod --report markdown=drift.md
  runner outputs --provider aws --stack dev --json \\
      --only infrastructure/aws/eks

MARA's names: `down`, `show-execution`, `list-providers`.
Exit codes: 0 success, 1 a project failed, 2 usage or configuration error,
3 changes found (`drift`, or `--expect-no-changes`), 130 interrupted.
Files: providers/<name>.toml, config/pulumi/environment,
config/pulumi/Pulumi.<stack>.yaml.";

const COMPLETIONS_HELP: &str = "\
Install (then open a new shell):
  bash  runner completions bash \\
          > ~/.local/share/bash-completion/completions/runner
  zsh   echo 'source <(runner completions zsh)' >> ~/.zshrc
        (after its `compinit`)
  fish  runner completions fish > ~/.config/fish/completions/runner.fish

The script only registers `runner` as its own completer: providers, stacks
and project paths are read from the repository you are in when you press
TAB, so the script never goes stale. It calls `runner` as it was invoked
here: by name from PATH, or by the full path of `./target/release/runner`.";

/// Deploy a web of Pulumi projects as one unit: ordered as a dependency graph, run in parallel.
#[derive(Debug, Parser)]
#[command(name = "runner", version, about, after_help = AFTER_HELP, propagate_version = true)]
pub(crate) struct Arguments {
    #[command(flatten)]
    pub global: super::global_arguments::GlobalArguments,

    #[command(subcommand)]
    pub command: CommandArguments,
}

#[derive(Debug, Subcommand)]
pub(crate) enum CommandArguments {
    /// List the provider definitions in `providers/` (and the built-in ones in a MARA checkout).
    #[command(alias = "list-providers")]
    Providers,
    /// Draw the execution order of a provider's projects, grouped by phase; nothing runs.
    #[command(alias = "show-execution")]
    Show(ShowArguments),
    /// Check the environment file, stack configuration, provider and projects; changes nothing.
    Validate(StackArguments),
    /// Deploy: `pulumi up` on every project, dependencies first.
    Up(RunArguments),
    /// Show what `up` would change: `pulumi preview` on every project.
    Preview(RunArguments),
    /// Reconcile state with the real resources: `pulumi refresh` on every project.
    Refresh(RunArguments),
    /// Tear down: `pulumi destroy` on every project, dependents first; a terminal asks for the stack name.
    #[command(alias = "down")]
    Destroy(RunArguments),
    /// Find changes made outside Pulumi: `pulumi refresh --preview-only` on every project; exit 3 on drift.
    Drift(RunArguments),
    /// Print every project's stack outputs; secrets as `[secret]` unless `--show-secrets`.
    Outputs(OutputsArguments),
    /// The last result of every project of a stack, from the run history.
    Status(StackArguments),
    /// The runs recorded in `.runner/history/`, newest last.
    History(HistoryArguments),
    /// Check the programs, backend and passphrase a provider needs, and say how to fix what is missing.
    Doctor(DoctorArguments),
    /// Draw where the time of a run went: an SVG (or Mermaid gantt) with a bar per project and attempt.
    Timeline(TimelineArguments),
    /// Print the script that makes a shell complete `runner`'s commands, providers, stacks and project paths.
    #[command(after_help = COMPLETIONS_HELP)]
    Completions(CompletionsArguments),
    /// Remove the Pulumi locks a runner that died left on a stack (only once their holder is gone).
    Unlock(UnlockArguments),
    /// Set stack configuration the way a run reads it: `runner config set [--secret] KEY [--project P]`.
    Config(ConfigArguments),
    /// Write the graph for another engine: `runner export pko` for the Pulumi Kubernetes Operator.
    Export(super::export_arguments::ExportArguments),
    /// Install the kubeconfig of the cluster projects from their stack outputs, as their hook does (for CI jobs).
    Kubeconfig(StackArguments),
    /// Work with JSON reports: `runner report merge` makes one summary of a pipeline's jobs.
    Report(super::report_arguments::ReportArguments),
}

#[derive(Debug, Args)]
pub(crate) struct ConfigArguments {
    #[command(subcommand)]
    pub action: ConfigAction,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ConfigAction {
    /// Set one key: plain values go to `config/pulumi/Pulumi.<stack>.yaml`, secrets through
    /// `pulumi config set --secret` with the backend and passphrase a run uses (value on stdin).
    Set(ConfigSetArguments),
}

#[derive(Debug, Args)]
pub(crate) struct ConfigSetArguments {
    #[command(flatten)]
    pub stack: StackArguments,

    /// The configuration key, e.g. `aws:region`.
    pub key: String,

    /// The value; read from stdin when absent (always, for a secret).
    pub value: Option<String>,

    /// Store the value encrypted.
    #[arg(long)]
    pub secret: bool,

    /// The project whose declared secret this is (it goes where that project's secrets live).
    #[arg(long, value_name = "PROJECT")]
    pub project: Option<String>,

    /// While a run (or another `config set`) holds the stack, wait for it instead of refusing.
    #[arg(long)]
    pub wait: bool,
}

#[derive(Debug, Args)]
pub(crate) struct DoctorArguments {
    #[command(flatten)]
    pub provider: ProviderArguments,
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArguments {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub(crate) struct HistoryArguments {
    /// Only runs of this stack.
    #[arg(long, short = 's', value_name = "NAME")]
    pub stack: Option<String>,

    /// How many runs to list.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub(crate) struct ProviderArguments {
    /// Provider definition to use: a name from `runner providers`.
    #[arg(long, short = 'p', value_name = "NAME")]
    pub provider: String,

    /// Folder holding the provider's projects, overriding its `projects_root`.
    #[arg(long, value_name = "DIR")]
    pub projects_root: Option<PathBuf>,
}

/// The selection flags are shared with the commands that run projects; `show` only draws, so
/// it says so in its own words.
#[derive(Debug, Args)]
#[command(
    mut_arg("only", |arg| arg.help("Draw only these projects (paths as `runner show` prints them); may be repeated")),
    mut_arg("with_dependencies", |arg| arg.help("Draw everything the selected projects depend on too")),
    mut_arg("with_dependents", |arg| arg.help("Draw everything that depends on the selected projects too")),
    mut_arg("exclude", |arg| arg.help("Leave these projects out of the drawing; may be repeated")),
    mut_arg("from", |arg| arg.help("Draw this project and everything downstream of it")),
    mut_arg("affected", |arg| arg.help(
        "Draw only projects a git change affects, and their dependents: changes since REF (default: the merge base \
         with the remote's default branch, else `HEAD~1`) plus uncommitted ones"
    )),
)]
pub(crate) struct ShowArguments {
    #[command(flatten)]
    pub provider: ProviderArguments,

    /// How many projects the run would start at once, as `up -j N` takes it; the tree's header counts with it.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub parallelism: u16,

    /// Output format: `tree` for people, `json` for scripts, `dot` or `mermaid` for diagrams.
    ///
    /// The tree wraps to the terminal's width; piped, to `COLUMNS` when set, else 100 columns.
    #[arg(long, value_enum, default_value_t = ShowFormat::Tree)]
    pub format: ShowFormat,

    /// Operation to plan; `destroy` shows the reverse order.
    #[arg(long, value_enum, default_value_t = Operation::Up)]
    pub operation: Operation,

    #[command(flatten)]
    pub selection: SelectionArguments,

    /// Concurrency limit of a pool the drawing assumes, overriding the provider's `[pools]`: `--pool aws=2`; may be repeated.
    #[arg(long, value_name = "POOL=N", value_parser = parse_pool_limit)]
    pub pool: Vec<(String, usize)>,

    /// Accepted for MARA's `runner -p P -s S show-execution`; the plan does not depend on the stack.
    #[arg(long, short = 's', value_name = "NAME", hide = true)]
    pub stack: Option<String>,

    /// Expected durations from FILE instead of the history: a `--report json` file, or any JSON
    /// `{"projects": [{"project": PATH, "duration": SECONDS}]}`. Hidden: `benches/run.sh` plans
    /// its generated graphs with their scripted durations through it.
    #[arg(long, value_name = "FILE", hide = true)]
    pub durations: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct TimelineArguments {
    /// Run id from `runner history`; the latest run by default.
    #[arg(value_name = "RUN")]
    pub run: Option<String>,

    /// `svg`: a self-contained picture; `mermaid`: a gantt chart for Markdown.
    #[arg(long, value_enum, default_value_t = TimelineFormat::Svg)]
    pub format: TimelineFormat,

    /// Write to this file instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TimelineFormat {
    Svg,
    Mermaid,
}

/// Which projects to run; by default all of them.
#[derive(Debug, Args, Default)]
pub(crate) struct SelectionArguments {
    /// Run only these projects (paths as `runner show` prints them); may be repeated.
    #[arg(long, value_name = "PROJECT", num_args = 1..)]
    pub only: Vec<String>,

    /// Add everything the selected projects depend on.
    #[arg(long)]
    pub with_dependencies: bool,

    /// Add everything that depends on the selected projects.
    #[arg(long)]
    pub with_dependents: bool,

    /// Leave these projects out; may be repeated.
    #[arg(long, value_name = "PROJECT", num_args = 1..)]
    pub exclude: Vec<String>,

    /// Start at this project: it and everything downstream of it.
    #[arg(long, value_name = "PROJECT")]
    pub from: Option<String>,

    /// Only projects a git change affects, and their dependents: changes since REF (default: the
    /// merge base with the remote's default branch, else `HEAD~1`) plus uncommitted ones.
    #[arg(long, value_name = "REF", num_args = 0..=1, default_missing_value = "")]
    pub affected: Option<String>,

    /// Run dependents even when nothing they read changed since their last successful `up`.
    #[arg(long)]
    pub no_skip_unchanged: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ShowFormat {
    Tree,
    Dot,
    Mermaid,
    Json,
}

#[derive(Debug, Args)]
pub(crate) struct StackArguments {
    #[command(flatten)]
    pub provider: ProviderArguments,

    /// Stack name shared by every project; defaults to `PULUMI_STACK` from the environment file.
    #[arg(long, short = 's', value_name = "NAME")]
    pub stack: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct UnlockArguments {
    #[command(flatten)]
    pub stack: StackArguments,

    /// Also remove locks whose holder may still run (another host, a live process), after
    /// printing who held each one and since when.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub(crate) struct RunArguments {
    #[command(flatten)]
    pub stack: StackArguments,

    /// How many projects may run at once; 1 reproduces MARA's one-after-another order.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub parallelism: u16,

    /// On the first failure, start nothing new and cancel running projects.
    #[arg(long)]
    pub fail_fast: bool,

    /// Stream each project's Pulumi output, prefixed with its path.
    #[arg(long, short = 'v')]
    pub verbose: bool,

    /// Write a report when the run ends: `json=FILE`, `junit=FILE` or `markdown=FILE`; may be repeated.
    #[arg(long, value_name = "KIND=FILE", value_parser = parse_report_target)]
    pub report: Vec<ReportTarget>,

    /// Never prompt; fail at once when something is missing. Implied by `CI` or a non-terminal stdin.
    #[arg(long)]
    pub non_interactive: bool,

    /// Answer yes to confirmations (required for `destroy` without a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Run only what failed, was skipped or cancelled in the last run of this stack, and what depends on it.
    #[arg(long, conflicts_with_all = ["only", "from", "exclude", "affected"])]
    pub resume: bool,

    /// Wait for another runner working on the same stack instead of failing at once.
    #[arg(long)]
    pub wait: bool,

    /// Operate on this resource URN only (repeatable); needs a single project (`--only P`).
    #[arg(long, value_name = "URN")]
    pub target: Vec<String>,

    /// Any resource change (or drift) fails the run with exit code 3, so a CI job can gate on it.
    #[arg(long)]
    pub expect_no_changes: bool,

    #[command(flatten)]
    pub selection: SelectionArguments,

    /// Concurrency limit of a pool, overriding the provider's `[pools]`: `--pool aws=2`; may be repeated.
    #[arg(long, value_name = "POOL=N", value_parser = parse_pool_limit)]
    pub pool: Vec<(String, usize)>,
}

#[derive(Debug, Args)]
pub(crate) struct OutputsArguments {
    #[command(flatten)]
    pub stack: StackArguments,

    /// One JSON object: project path -> its outputs.
    #[arg(long)]
    pub json: bool,

    /// Print secret outputs in clear text instead of `[secret]`.
    #[arg(long)]
    pub show_secrets: bool,

    #[command(flatten)]
    pub selection: SelectionArguments,
}

/// Why a `--pool-limit` value is refused; clap prints it after the value.
#[derive(Debug, thiserror::Error)]
enum PoolLimitError {
    #[error("`{0}` is not `POOL=N`: write e.g. `aws=2`")]
    NoLimit(String),
    #[error("`{limit}` in `{text}` is not a number of projects")]
    NotANumber { limit: String, text: String },
    #[error("`{0}` needs a pool name and a limit from 1 to 10000")]
    OutOfRange(String),
}

fn parse_pool_limit(text: &str) -> Result<(String, usize), PoolLimitError> {
    let (name, limit) = text.split_once('=').ok_or_else(|| PoolLimitError::NoLimit(text.to_string()))?;
    let limit: usize =
        limit.parse().map_err(|_| PoolLimitError::NotANumber { limit: limit.to_string(), text: text.to_string() })?;
    if name.is_empty() || !(1..=10_000).contains(&limit) {
        return Err(PoolLimitError::OutOfRange(text.to_string()));
    }
    Ok((name.to_string(), limit))
}
