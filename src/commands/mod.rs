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

pub(crate) use affected::affected_selection::{select_with_affected, select_with_seeds};
pub(crate) use completions::completions;
pub(crate) use config::config_set;
pub(crate) use dependency_lint::undeclared_references;
pub(crate) use dispatch::execute;
pub(crate) use doctor::doctor_command::doctor;
pub(crate) use doctor::python_runtime_check::python_runtime_findings;
pub(crate) use export::export_command::export;
pub(crate) use history::history;
pub(crate) use outputs::outputs;
pub(crate) use providers::list_providers;
pub(crate) use run::configuration_gate::{
    check_shared_secrets, config_set_command, gather_configuration, PendingConfiguration,
};
pub(crate) use run::preflight_gate::{missing_problem, preflight_and_gather};
pub(crate) use run::run_command::run;
pub(crate) use shared::data_output::write_data;
pub(crate) use shared::input_files::InputFiles;
pub(crate) use shared::loaded_provider::LoadedProvider;
pub(crate) use shared::planned_run::planned;
pub(crate) use shared::shared_stack_file::shared_stack_file;
pub(crate) use shared::stack_check::StackCheck;
pub(crate) use show::show;
pub(crate) use status::status;
pub(crate) use timeline::timeline;
pub(crate) use unlock::{unlock, unlock_command};
pub(crate) use validate::validate;
