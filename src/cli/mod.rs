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

pub use arguments::{Arguments, ShowFormat, TimelineFormat};
pub use command::Command;
pub use config_set_settings::ConfigSetSettings;
pub use export_settings::{CiExportSettings, CiSystem, ExportSettings, PkoExportSettings};
pub use mara_command_line::reorder_mara_options;
pub use output_style::OutputStyle;
pub use report_arguments::MergeFormat;
pub use report_target::ReportTarget;
pub use settings::{
    HistorySettings, OutputsSettings, ProviderSettings, RunSettings, Settings, ShowSettings, StackSettings,
};
pub use shell_completion::ShellCompletion;
pub use timeline_settings::TimelineSettings;
