use super::StackSettings;

/// `runner config set`, validated: one value for the stack a run would read it from.
#[derive(Debug)]
pub(crate) struct ConfigSetSettings {
    pub stack: StackSettings,
    pub key: String,
    /// `None`: read from stdin (a secret is never taken from the command line).
    pub value: Option<String>,
    pub secret: bool,
    /// The project whose declared secret this is: it goes to the provider's secrets project.
    pub project: Option<String>,
    /// Wait for the runner's stack lock instead of refusing while another command holds it.
    pub wait: bool,
}
