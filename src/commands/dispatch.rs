use crate::cli::{Command, Settings};
use crate::error::Result;
use crate::exit_status::ExitStatus;

/// Runs a validated command. It lives here, not in `cli/`, so `cli` (arguments -> settings)
/// stays below `commands` (settings -> work) and the two never import each other.
pub(crate) fn execute(command: Command, settings: &Settings) -> Result<ExitStatus> {
    match command {
        Command::Providers => super::list_providers(settings),
        Command::Show(show) => super::show(settings, &show),
        Command::Validate(stack) => super::validate(settings, &stack),
        Command::Run(run) => super::run(settings, &run),
        Command::Status(stack) => super::status(settings, &stack),
        Command::History(history) => super::history(settings, &history),
        Command::Doctor(provider) => super::doctor(settings, &provider),
        Command::Outputs(outputs) => super::outputs(settings, &outputs),
        Command::Completions(shell) => super::completions(shell),
        Command::Unlock(stack, force) => super::unlock(settings, &stack, force),
        Command::ConfigSet(request) => super::config_set(settings, &request),
        Command::Timeline(timeline) => super::timeline(settings, &timeline),
        Command::Export(export) => super::export(settings, &export),
        Command::Kubeconfig(stack) => super::kubeconfig::kubeconfig(settings, &stack),
        Command::ReportMerge(format, inputs, expected) => super::report_merge::report_merge(format, &inputs, &expected),
    }
}
