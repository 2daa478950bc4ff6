mod language_hosts;
mod preflight_report;
mod program_presence;
mod provider_checks;
mod pulumi_lock_check;
mod writable_probe;

pub use language_hosts::language_host_problem;
pub use preflight_report::{Preflight, PreflightInput};
pub use program_presence::program_problem;
pub use provider_checks::provider_checks;
pub use pulumi_lock_check::{settle_pulumi_locks, with_prerequisites};
pub use writable_probe::WritableProbe;
