mod arguments;
mod command;
mod output_style;
mod settings;

pub use arguments::{Arguments, ReportTarget, ShowFormat};
pub use command::Command;
pub use output_style::OutputStyle;
pub use settings::{
    HistorySettings, OutputsSettings, ProviderSettings, RunSettings, Settings, ShowSettings, StackSettings,
};
