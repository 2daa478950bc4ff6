mod terminal_prompter;
mod terminal_restore;

pub(crate) use terminal_prompter::TerminalPrompter;
pub(crate) use terminal_restore::{restore_terminal, PromptInterruptGuard, QuietKeyboard};
