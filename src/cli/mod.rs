mod arguments;
mod command;
mod mara_command_line;
mod output_style;
mod settings;

pub use arguments::{Arguments, ReportTarget, ShowFormat};
pub use command::Command;
pub use mara_command_line::reorder_mara_options;
pub use output_style::OutputStyle;
pub use settings::{HistorySettings, ProviderSettings, RunSettings, Settings, ShowSettings, StackSettings};
