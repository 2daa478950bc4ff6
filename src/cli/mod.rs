mod arguments;
mod command;
mod output_style;
mod settings;
mod timeline_settings;

pub use arguments::{Arguments, ReportTarget, ShowFormat, TimelineFormat};
pub use command::Command;
pub use output_style::OutputStyle;
pub use settings::{HistorySettings, ProviderSettings, RunSettings, Settings, ShowSettings, StackSettings};
pub use timeline_settings::TimelineSettings;
