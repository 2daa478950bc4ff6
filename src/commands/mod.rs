mod history_command;
mod loaded_provider;
mod providers_command;
mod run_command;
mod show_command;
mod stack_check;
mod status_command;
mod validate_command;

pub use history_command::history;
pub use loaded_provider::LoadedProvider;
pub use providers_command::list_providers;
pub use run_command::run;
pub use show_command::show;
pub use stack_check::StackCheck;
pub use status_command::status;
pub use validate_command::validate;
