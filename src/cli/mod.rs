mod arguments;
mod command;
mod completion_context;
mod config_set_settings;
mod export_arguments;
mod export_settings;
mod global_arguments;
#[cfg(test)]
#[path = "help_text_tests.rs"]
mod help_text_tests;
mod mara_command_line;
mod output_style;
mod report_arguments;
mod report_target;
mod settings;
mod shell_completion;
mod timeline_settings;

pub(crate) use arguments::{Arguments, ShowFormat, TimelineFormat};
pub(crate) use command::Command;
pub(crate) use config_set_settings::ConfigSetSettings;
pub(crate) use export_settings::{CiExportSettings, CiSystem, ExportSettings, PkoExportSettings};
pub(crate) use mara_command_line::reorder_mara_options;
pub(crate) use output_style::OutputStyle;
pub(crate) use report_arguments::MergeFormat;
pub(crate) use report_target::ReportTarget;
pub(crate) use settings::{
    HistorySettings, OutputsSettings, ProviderSettings, RunSettings, Settings, ShowSettings, StackSettings,
};
pub(crate) use shell_completion::ShellCompletion;
pub(crate) use timeline_settings::TimelineSettings;
