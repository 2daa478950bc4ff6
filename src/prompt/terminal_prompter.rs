use dialoguer::theme::{ColorfulTheme, SimpleTheme, Theme};
use dialoguer::{Input, Password, Select};

use crate::error::{Result, UserError};
use crate::provider::{ConfigKey, ValueKind};

/// Asks one clear question at a time on the terminal. Only used when the run is interactive.
/// While it lives, Ctrl-C restores the terminal before the runner exits.
pub(crate) struct TerminalPrompter {
    theme: Box<dyn Theme>,
    _interrupt: super::PromptInterruptGuard,
}

impl TerminalPrompter {
    pub(crate) fn new(color: bool) -> Self {
        let theme: Box<dyn Theme> = if color { Box::new(ColorfulTheme::default()) } else { Box::new(SimpleTheme) };
        Self { theme, _interrupt: super::PromptInterruptGuard::install() }
    }

    /// The answer must be typed exactly (a stack name before `destroy`); anything else is a no.
    pub(crate) fn typed_confirmation(&self, prompt: &str, expected: &str) -> Result<bool> {
        let answer = Input::<String>::with_theme(self.theme.as_ref())
            .with_prompt(prompt)
            .allow_empty(true)
            .interact_text()
            .map_err(prompt_error)?;
        Ok(answer.trim() == expected)
    }

    /// A configuration value: choices as a list, integers and booleans re-asked until they parse.
    pub(crate) fn config_value(&self, key: &ConfigKey, default: Option<&str>) -> Result<String> {
        let prompt = format!("{} ({})", key.prompt, key.key);
        if key.secret {
            return self.secret(&prompt);
        }
        if !key.choices.is_empty() {
            let selected = default.and_then(|d| key.choices.iter().position(|choice| choice == d)).unwrap_or(0);
            let index = Select::with_theme(self.theme.as_ref())
                .with_prompt(prompt)
                .items(&key.choices)
                .default(selected)
                .interact()
                .map_err(prompt_error)?;
            return Ok(key.choices[index].clone());
        }
        let kind = key.kind;
        let mut input = Input::<String>::with_theme(self.theme.as_ref())
            .with_prompt(prompt)
            .validate_with(move |text: &String| check_kind(kind, text));
        if let Some(default) = default {
            input = input.default(default.to_string());
        }
        let answer = input.interact_text().map_err(prompt_error)?;
        Ok(normalize_kind(kind, &answer))
    }

    /// A secret: no echo, typed twice.
    pub(crate) fn secret(&self, prompt: &str) -> Result<String> {
        Password::with_theme(self.theme.as_ref())
            .with_prompt(prompt)
            .with_confirmation("Repeat it", "the two entries differ; try again")
            .interact()
            .map_err(prompt_error)
    }
}

/// What the prompt says under a value of the wrong kind.
#[derive(Debug, thiserror::Error)]
enum KindError {
    #[error("a value is required")]
    Required,
    #[error("enter a whole number")]
    NotWhole,
    #[error("enter `true` or `false`")]
    NotBoolean,
}

fn check_kind(kind: ValueKind, text: &str) -> std::result::Result<(), KindError> {
    match kind {
        ValueKind::String if text.trim().is_empty() => Err(KindError::Required),
        ValueKind::String => Ok(()),
        ValueKind::Integer => text.trim().parse::<i64>().map(|_| ()).map_err(|_| KindError::NotWhole),
        ValueKind::Boolean => parse_bool(text).map(|_| ()).ok_or(KindError::NotBoolean),
    }
}

fn normalize_kind(kind: ValueKind, text: &str) -> String {
    match kind {
        ValueKind::Boolean => parse_bool(text).unwrap_or_default().to_string(),
        _ => text.trim().to_string(),
    }
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "y" => Some(true),
        "false" | "no" | "n" => Some(false),
        _ => None,
    }
}

/// Ctrl-C in a prompt reading keys one by one arrives as an interrupted read, not a signal: the
/// prompt may have hidden the cursor, so it is shown again before the runner exits with 130.
fn prompt_error(err: dialoguer::Error) -> UserError {
    let dialoguer::Error::IO(io) = err;
    if io.kind() == std::io::ErrorKind::Interrupted {
        super::restore_terminal();
        return UserError::Interrupted;
    }
    UserError::InputUnreadable { input: "the answer from the terminal", source: io }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_checked() {
        assert!(check_kind(ValueKind::Integer, "3").is_ok());
        assert!(check_kind(ValueKind::Integer, "three").is_err());
        assert!(check_kind(ValueKind::Boolean, "yes").is_ok());
        assert!(check_kind(ValueKind::Boolean, "maybe").is_err());
        assert!(check_kind(ValueKind::String, " ").is_err());
        assert_eq!(normalize_kind(ValueKind::Boolean, "Y"), "true");
    }
}
