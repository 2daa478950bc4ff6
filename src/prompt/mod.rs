mod terminal_prompter;
mod terminal_restore;

pub use terminal_prompter::TerminalPrompter;
pub use terminal_restore::{restore_terminal, PromptInterruptGuard, QuietKeyboard};
