//! One file per simple command (`show.rs`, `status.rs`...), one folder per command with parts
//! (`run/`, `doctor/`, `affected/`, `export/`), and `shared/` for what several commands use.
//! `dispatch.rs` turns the parsed `Command` into the call of its file.

pub(crate) mod affected;
mod completions;
mod config;
mod dependency_lint;
mod dispatch;
pub(crate) mod doctor;
mod drift_status;
pub(crate) mod export;
mod history;
mod kubeconfig;
mod outputs;
mod providers;
mod report_merge;
pub(crate) mod run;
pub(crate) mod shared;
mod show;
mod status;
mod timeline;
mod unlock;
mod validate;

pub use affected::affected_selection::{select_with_affected, select_with_seeds};
pub use completions::completions;
pub use config::config_set;
pub use dependency_lint::undeclared_references;
pub use dispatch::execute;
pub use doctor::doctor_command::doctor;
pub use doctor::python_runtime_check::python_runtime_findings;
pub use export::export_command::export;
pub use history::history;
pub use outputs::outputs;
pub use providers::list_providers;
pub use run::configuration_gate::{
    check_shared_secrets, config_set_command, gather_configuration, PendingConfiguration,
};
pub use run::preflight_gate::{missing_problem, preflight_and_gather};
pub use run::run_command::run;
pub use shared::data_output::write_data;
pub use shared::input_files::InputFiles;
pub use shared::loaded_provider::LoadedProvider;
pub use shared::planned_run::planned;
pub use shared::shared_stack_file::shared_stack_file;
pub use shared::stack_check::StackCheck;
pub use show::show;
pub use status::status;
pub use timeline::timeline;
pub use unlock::{unlock, unlock_command};
pub use validate::validate;
