//! `runner up|preview|refresh|destroy|drift`: the preflight, the run and its report.
pub(crate) mod backend_resume;
pub(crate) mod changes;
pub(crate) mod configuration_gate;
pub(crate) mod destroy_confirmation;
pub(crate) mod destroy_guard;
pub(crate) mod history_failure;
pub(crate) mod kubeconfig_record;
pub(crate) mod lock_recovery;
pub(crate) mod outcome;
pub(crate) mod preflight_gate;
pub(crate) mod run_command;
pub(crate) mod run_context;
pub(crate) mod run_secret_mask;
pub(crate) mod signals;
pub(crate) mod stack_takeover;
pub(crate) mod unchanged_skip;
