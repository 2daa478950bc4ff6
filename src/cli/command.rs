use super::arguments::{Arguments, CommandArguments};
use super::{HistorySettings, OutputStyle, ProviderSettings, RunSettings, Settings, ShowSettings, StackSettings};
use crate::config::RepositoryRoot;
use crate::error::Result;
use crate::plan::Operation;

/// A validated command, ready to execute.
#[derive(Debug)]
pub(crate) enum Command {
    Providers,
    Show(ShowSettings),
    Validate(StackSettings),
    Run(RunSettings),
    Status(StackSettings),
    History(HistorySettings),
    Doctor(ProviderSettings),
    Outputs(super::OutputsSettings),
    Completions(clap_complete::Shell),
    /// The stack, and `--force`.
    Unlock(StackSettings, bool),
    ConfigSet(super::ConfigSetSettings),
    Timeline(crate::cli::TimelineSettings),
    Export(super::ExportSettings),
    Kubeconfig(StackSettings),
    /// `runner report merge`: the format and the reports.
    ReportMerge(super::MergeFormat, Vec<std::path::PathBuf>, Vec<String>),
}

impl Command {
    /// Turns parsed arguments into settings; reads only what validation needs (the environment file).
    pub(crate) fn from_arguments(arguments: Arguments) -> Result<(Settings, Command)> {
        // Completions need no repository.
        if let CommandArguments::Completions(completions) = &arguments.command {
            let root = RepositoryRoot::unchecked(&std::env::current_dir().unwrap_or_default());
            let style = OutputStyle::detect(arguments.global.progress);
            return Ok((Settings { root, style }, Command::Completions(completions.shell)));
        }
        let root = match &arguments.global.root {
            Some(dir) => RepositoryRoot::at(dir)?,
            None => RepositoryRoot::discover(&std::env::current_dir().unwrap_or_default())?,
        };
        let style = OutputStyle::detect(arguments.global.progress);
        let command = match arguments.command {
            CommandArguments::Providers => Command::Providers,
            CommandArguments::Show(show) => Command::Show(ShowSettings::from_arguments(show)),
            CommandArguments::Validate(stack) => Command::Validate(StackSettings::from_arguments(stack, &root)?),
            CommandArguments::Up(run) => Command::Run(RunSettings::from_arguments(run, Operation::Up, &root)?),
            CommandArguments::Preview(run) => {
                Command::Run(RunSettings::from_arguments(run, Operation::Preview, &root)?)
            }
            CommandArguments::Refresh(run) => {
                Command::Run(RunSettings::from_arguments(run, Operation::Refresh, &root)?)
            }
            CommandArguments::Destroy(run) => {
                Command::Run(RunSettings::from_arguments(run, Operation::Destroy, &root)?)
            }
            CommandArguments::Drift(run) => Command::Run(RunSettings::from_arguments(run, Operation::Drift, &root)?),
            CommandArguments::Outputs(outputs) => {
                Command::Outputs(super::OutputsSettings::from_arguments(outputs, &root)?)
            }
            CommandArguments::Status(stack) => Command::Status(StackSettings::from_arguments(stack, &root)?),
            CommandArguments::History(history) => Command::History(HistorySettings::from_arguments(history)),
            CommandArguments::Doctor(doctor) => Command::Doctor(ProviderSettings::from_arguments(doctor.provider)),
            CommandArguments::Completions(completions) => Command::Completions(completions.shell),
            CommandArguments::Unlock(unlock) => {
                Command::Unlock(StackSettings::from_arguments(unlock.stack, &root)?, unlock.force)
            }
            CommandArguments::Config(config) => match config.action {
                super::arguments::ConfigAction::Set(set) => Command::ConfigSet(super::ConfigSetSettings {
                    stack: StackSettings::from_arguments(set.stack, &root)?,
                    key: set.key,
                    value: set.value,
                    secret: set.secret,
                    project: set.project,
                    wait: set.wait,
                }),
            },
            CommandArguments::Timeline(timeline) => Command::Timeline(timeline.into()),
            CommandArguments::Export(export) => Command::Export(super::ExportSettings::from_arguments(export, &root)?),
            CommandArguments::Kubeconfig(stack) => Command::Kubeconfig(StackSettings::from_arguments(stack, &root)?),
            CommandArguments::Report(report) => match report.action {
                super::report_arguments::ReportAction::Merge(merge) => {
                    Command::ReportMerge(merge.format, merge.inputs, merge.expect)
                }
            },
        };
        Ok((Settings { root, style }, command))
    }
}
