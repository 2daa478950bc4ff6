use std::path::PathBuf;

use super::output_style::ProgressMode;

/// The options every command takes.
#[derive(Debug, clap::Args)]
pub(crate) struct GlobalArguments {
    /// Repository root (the folder holding `providers/`, or a MARA checkout); found from the current folder upward by default.
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// How a run shows progress: `auto` redraws live lines on a terminal unless `CI` is set; `plain` writes timestamped lines, never a redraw; `live` redraws on a terminal even in CI.
    #[arg(long, global = true, value_enum, default_value_t = ProgressMode::Auto, value_name = "MODE")]
    pub progress: ProgressMode,
}
