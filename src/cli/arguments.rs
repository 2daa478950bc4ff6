use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::plan::Operation;

const AFTER_HELP: &str = "\
Examples:
  runner providers                              list the provider definitions
  runner show --provider aws                    draw the execution order before anything runs
  runner validate --provider local --stack dev  check configuration, providers and projects
  runner up --provider local --stack dev        deploy every project, in parallel along the graph
  runner refresh --provider aws --stack prod --non-interactive --report junit=report.xml
  runner up --provider aws --stack dev --resume     continue after a failure, skipping what succeeded
  runner up --provider aws --stack dev --only kubernetes/prometheus --with-dependencies
  runner -p aws -s dev up                       MARA's order and names work too (`down`, `show-execution`, `list-providers`)

Exit codes: 0 success, 1 a project failed, 2 usage or configuration error, 130 interrupted.
Files: providers/<name>.toml, config/pulumi/environment, config/pulumi/Pulumi.<stack>.yaml.";

/// Deploy a web of Pulumi projects as one unit: ordered as a dependency graph, run in parallel.
#[derive(Debug, Parser)]
#[command(name = "runner", version, about, after_help = AFTER_HELP, propagate_version = true)]
pub struct Arguments {
    /// Repository root (the folder holding `providers/`, or a MARA checkout); found from the current folder upward by default.
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,

    #[command(subcommand)]
    pub command: CommandArguments,
}

#[derive(Debug, Subcommand)]
pub enum CommandArguments {
    /// List the provider definitions in `providers/` (and the built-in ones in a MARA checkout).
    #[command(alias = "list-providers")]
    Providers,
    /// Draw the execution order of a provider's projects, grouped by phase.
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
    /// Tear down: `pulumi destroy` on every project, dependents first.
    #[command(alias = "down")]
    Destroy(RunArguments),
    /// The last result of every project of a stack, from the run history.
    Status(StackArguments),
    /// The runs recorded in `.runner/history/`, newest last.
    History(HistoryArguments),
    /// Check the programs, backend and passphrase a provider needs, and say how to fix what is missing.
    Doctor(DoctorArguments),
    /// Print a shell completion script: `runner completions bash > /etc/bash_completion.d/runner`.
    Completions(CompletionsArguments),
}

#[derive(Debug, Args)]
pub struct DoctorArguments {
    #[command(flatten)]
    pub provider: ProviderArguments,
}

#[derive(Debug, Args)]
pub struct CompletionsArguments {
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct HistoryArguments {
    /// Only runs of this stack.
    #[arg(long, short = 's', value_name = "NAME")]
    pub stack: Option<String>,

    /// How many runs to list.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct ProviderArguments {
    /// Provider definition to use: a name from `runner providers`.
    #[arg(long, short = 'p', value_name = "NAME")]
    pub provider: String,

    /// Folder holding the provider's projects, overriding its `projects_root`.
    #[arg(long, value_name = "DIR")]
    pub projects_root: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ShowArguments {
    #[command(flatten)]
    pub provider: ProviderArguments,

    /// Output format: `tree` for people, `json` for scripts, `dot` or `mermaid` for diagrams.
    #[arg(long, value_enum, default_value_t = ShowFormat::Tree)]
    pub format: ShowFormat,

    /// Operation to plan; `destroy` shows the reverse order.
    #[arg(long, value_enum, default_value_t = Operation::Up)]
    pub operation: Operation,

    #[command(flatten)]
    pub selection: SelectionArguments,

    /// Accepted for MARA's `runner -p P -s S show-execution`; the plan does not depend on the stack.
    #[arg(long, short = 's', value_name = "NAME", hide = true)]
    pub stack: Option<String>,
}

/// Which projects to run; by default all of them.
#[derive(Debug, Args, Default)]
pub struct SelectionArguments {
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShowFormat {
    Tree,
    Dot,
    Mermaid,
    Json,
}

#[derive(Debug, Args)]
pub struct StackArguments {
    #[command(flatten)]
    pub provider: ProviderArguments,

    /// Stack name shared by every project; defaults to `PULUMI_STACK` from the environment file.
    #[arg(long, short = 's', value_name = "NAME")]
    pub stack: Option<String>,
}

#[derive(Debug, Args)]
pub struct RunArguments {
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

    /// Write a report when the run ends: `json=FILE` or `junit=FILE`; may be repeated.
    #[arg(long, value_name = "KIND=FILE", value_parser = parse_report_target)]
    pub report: Vec<ReportTarget>,

    /// Never prompt; fail at once when something is missing. Implied by `CI` or a non-terminal stdin.
    #[arg(long)]
    pub non_interactive: bool,

    /// Answer yes to confirmations (required for `destroy` without a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Run only what failed, was skipped or cancelled in the last run of this stack, and what depends on it.
    #[arg(long, conflicts_with_all = ["only", "from", "exclude"])]
    pub resume: bool,

    /// Wait for another runner working on the same stack instead of failing at once.
    #[arg(long)]
    pub wait: bool,

    /// Operate on this resource URN only (repeatable); needs a single project (`--only P`).
    #[arg(long, value_name = "URN")]
    pub target: Vec<String>,

    #[command(flatten)]
    pub selection: SelectionArguments,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportTarget {
    Json(PathBuf),
    Junit(PathBuf),
}

fn parse_report_target(text: &str) -> Result<ReportTarget, String> {
    let (kind, file) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not `KIND=FILE`: write `json=report.json` or `junit=report.xml`"))?;
    if file.is_empty() {
        return Err(format!("`{text}` names no file"));
    }
    match kind {
        "json" => Ok(ReportTarget::Json(file.into())),
        "junit" => Ok(ReportTarget::Junit(file.into())),
        other => Err(format!("unknown report kind `{other}`: use `json` or `junit`")),
    }
}
