use crate::execute::ExecutionEvent;

/// A consumer of execution events. Reporters print or write; they never touch processes.
pub(crate) trait Reporter: Send {
    fn on_event(&mut self, event: &ExecutionEvent);

    /// How a fault of this reporter is named at the end of the run.
    fn name(&self) -> &'static str {
        "reporter"
    }

    /// Called at least every `TICK` while the run lasts, events or not: a reporter that holds
    /// back writes catches up here, so nothing it was told waits on the next event, which may
    /// be an hour away behind a slow project.
    fn on_tick(&mut self) {}

    /// Called once after the last event: what the reporter could not write, said in full (the
    /// run then ends in failure, whatever its projects did).
    fn finish(&mut self) -> Result<(), String> {
        Ok(())
    }
}
