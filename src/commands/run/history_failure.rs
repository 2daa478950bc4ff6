use crate::exit_status::ExitStatus;

/// A run whose record or logs could not be written never ends in success: each warning names
/// what is missing and why, and exit code 1 says the record is incomplete even if every project
/// succeeded.
pub(crate) fn with_unwritten(status: ExitStatus, unwritten: &[String]) -> ExitStatus {
    if unwritten.is_empty() {
        return status;
    }
    for what in unwritten {
        crate::text::stderr_line!("warning: {what}");
    }
    match status {
        ExitStatus::Success => ExitStatus::Failure,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unwritten_record_turns_success_into_failure_and_keeps_worse() {
        let unwritten = ["the run history could not be written (disk full)".to_string()];
        assert_eq!(with_unwritten(ExitStatus::Success, &unwritten), ExitStatus::Failure);
        assert_eq!(with_unwritten(ExitStatus::Interrupted, &unwritten), ExitStatus::Interrupted);
        assert_eq!(with_unwritten(ExitStatus::Success, &[]), ExitStatus::Success);
    }
}
