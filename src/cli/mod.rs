mod arguments;
mod command;
mod export_arguments;
mod export_settings;
mod output_style;
mod settings;

pub use arguments::{Arguments, ReportTarget, ShowFormat};
pub use command::Command;
pub use export_settings::{ExportSettings, PkoExportSettings};
pub use output_style::OutputStyle;
pub use settings::{HistorySettings, ProviderSettings, RunSettings, Settings, ShowSettings, StackSettings};
