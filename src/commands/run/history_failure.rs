use std::sync::{Arc, Mutex};

use crate::exit_status::ExitStatus;

/// A run whose record could not be written never ends in success: the warning names why, and
/// exit code 1 says the record is incomplete even if every project succeeded.
pub fn with_history_error(status: ExitStatus, error: &Arc<Mutex<Option<String>>>) -> ExitStatus {
    let Some(error) = error.lock().ok().and_then(|error| error.clone()) else { return status };
    crate::text::stderr_line!(
        "warning: the run history could not be written ({error}): `status`, `history` and `--resume` do not know this run"
    );
    match status {
        ExitStatus::Success => ExitStatus::Failure,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_error_turns_success_into_failure_and_keeps_worse() {
        let error = Arc::new(Mutex::new(Some("disk full".to_string())));
        assert_eq!(with_history_error(ExitStatus::Success, &error), ExitStatus::Failure);
        assert_eq!(with_history_error(ExitStatus::Interrupted, &error), ExitStatus::Interrupted);
        assert_eq!(with_history_error(ExitStatus::Success, &Arc::default()), ExitStatus::Success);
    }
}
