use dialoguer::theme::{ColorfulTheme, SimpleTheme, Theme};
use dialoguer::{Input, Password, Select};

use crate::error::{Result, UserError};
use crate::provider::{ConfigKey, ValueKind};

/// Asks one clear question at a time on the terminal. Only used when the run is interactive.
pub struct TerminalPrompter {
    theme: Box<dyn Theme>,
}

impl TerminalPrompter {
    pub fn new(color: bool) -> Self {
        let theme: Box<dyn Theme> = if color { Box::new(ColorfulTheme::default()) } else { Box::new(SimpleTheme) };
        Self { theme }
    }

    /// A configuration value: choices as a list, integers and booleans re-asked until they parse.
    pub fn config_value(&self, key: &ConfigKey, default: Option<&str>) -> Result<String> {
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
    pub fn secret(&self, prompt: &str) -> Result<String> {
        Password::with_theme(self.theme.as_ref())
            .with_prompt(prompt)
            .with_confirmation("Repeat it", "the two entries differ; try again")
            .interact()
            .map_err(prompt_error)
    }
}

fn check_kind(kind: ValueKind, text: &str) -> std::result::Result<(), String> {
    match kind {
        ValueKind::String if text.trim().is_empty() => Err("a value is required".into()),
        ValueKind::String => Ok(()),
        ValueKind::Integer => text.trim().parse::<i64>().map(|_| ()).map_err(|_| "enter a whole number".into()),
        ValueKind::Boolean => parse_bool(text).map(|_| ()).ok_or_else(|| "enter `true` or `false`".into()),
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

fn prompt_error(err: dialoguer::Error) -> UserError {
    UserError::Usage(format!("cannot read the answer from the terminal: {err}"))
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
