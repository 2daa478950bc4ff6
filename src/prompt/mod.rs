mod terminal_prompter;

pub use terminal_prompter::TerminalPrompter;
