mod environment_file;
mod line_index;
mod repository_root;
mod stack_config;
mod stack_config_edit;
#[cfg(test)]
mod stack_config_edit_tests;
mod stack_config_writer;
mod text_file;
mod yaml_positions;

pub use environment_file::{EnvironmentEntry, EnvironmentFile};
pub use line_index::{LineIndex, TextPosition};
pub use repository_root::{normalize as normalize_path, RepositoryRoot, RootLayout};
pub use stack_config::{StackConfig, StackConfigWarning};
pub use stack_config_edit::StackConfigEdit;
pub use stack_config_writer::{add_stack_config_values, write_atomically, write_atomically_unflushed};
pub use text_file::read_text;
