mod language_hosts;
mod preflight_report;
mod program_presence;
mod provider_checks;
mod pulumi_lock_check;
mod writable_probe;

pub(crate) use language_hosts::language_host_problem;
pub(crate) use preflight_report::{Preflight, PreflightInput};
pub(crate) use program_presence::program_problem;
pub(crate) use provider_checks::provider_checks;
pub(crate) use pulumi_lock_check::{settle_pulumi_locks, with_prerequisites};
pub(crate) use writable_probe::WritableProbe;
