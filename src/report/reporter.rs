use crate::execute::ExecutionEvent;

/// A consumer of execution events. Reporters print or write; they never touch processes.
pub trait Reporter: Send {
    fn on_event(&mut self, event: &ExecutionEvent);

    /// How a fault of this reporter is named at the end of the run.
    fn name(&self) -> &'static str {
        "reporter"
    }

    /// Called once after the last event: what the reporter could not write, said in full (the
    /// run then ends in failure, whatever its projects did).
    fn finish(&mut self) -> Result<(), String> {
        Ok(())
    }
}
