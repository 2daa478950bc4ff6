//! The passphrase is checked once, before anything runs: a wrong one stops the command with one
//! error naming the stack, instead of projects failing one by one in the middle of a run.

use std::path::Path;

use crate::backend::{PassphraseError, PassphraseKey};
use crate::error::{Result, UserError};
use crate::pulumi::ChildEnvironment;

/// Where the passphrase of a run comes from, for the message that says it is wrong.
pub(crate) fn passphrase_source(environment: &ChildEnvironment, prompted: bool) -> String {
    if prompted {
        return "the passphrase typed".into();
    }
    for key in ["PULUMI_CONFIG_PASSPHRASE", "PULUMI_CONFIG_PASSPHRASE_FILE"] {
        if environment.get(key).is_some() {
            let place = if environment.set_by_file(key) { "`config/pulumi/environment`" } else { "the environment" };
            return format!("`{key}` from {place}");
        }
    }
    "no passphrase".into()
}

/// The run's passphrase: typed at a prompt, else `PULUMI_CONFIG_PASSPHRASE`, else the file
/// `PULUMI_CONFIG_PASSPHRASE_FILE` names.
pub(crate) fn run_passphrase(environment: &ChildEnvironment, prompted: Option<&str>) -> Option<String> {
    if let Some(typed) = prompted {
        return Some(typed.to_string());
    }
    if let Some(passphrase) = environment.vars().get("PULUMI_CONFIG_PASSPHRASE") {
        return Some(passphrase.clone());
    }
    let file = environment.get("PULUMI_CONFIG_PASSPHRASE_FILE")?;
    std::fs::read_to_string(file).ok().map(|text| text.trim_end_matches(['\n', '\r']).to_string())
}

/// Whether `passphrase` opens the stack file's `encryptionsalt` (what every stack of the run was
/// sealed with). A file with no salt yet, or none of Pulumi's passphrase form, is not refused:
/// `pulumi` makes the salt with this passphrase.
pub(crate) fn passphrase_opens(stack_file: &Path, passphrase: &str) -> bool {
    let Ok(text) = std::fs::read_to_string(stack_file) else { return true };
    let Ok(document) = serde_norway::from_str::<serde_norway::Value>(&text) else { return true };
    let Some(salt) = document.get("encryptionsalt").and_then(serde_norway::Value::as_str) else { return true };
    !matches!(PassphraseKey::open(salt, passphrase), Err(PassphraseError::WrongPassphrase))
}

/// Stops with `WrongPassphrase` when the run's passphrase does not open the stack file.
pub(crate) fn check_passphrase(
    stack: &str,
    stack_file: &Path,
    environment: &ChildEnvironment,
    prompted: Option<&str>,
) -> Result<()> {
    let Some(passphrase) = run_passphrase(environment, prompted) else { return Ok(()) };
    if passphrase_opens(stack_file, &passphrase) {
        return Ok(());
    }
    Err(UserError::WrongPassphrase {
        stack: stack.to_string(),
        file: stack_file.to_path_buf(),
        source_name: passphrase_source(environment, prompted.is_some()),
    })
}

/// Asks until what is typed opens the stack file (three tries): a wrong passphrase is said at
/// the prompt, not by the projects that fail with it. `up` and `outputs --show-secrets` ask.
pub(crate) fn ask_passphrase(
    prompter: &crate::prompt::TerminalPrompter,
    stack: &str,
    stack_file: &std::path::Path,
) -> Result<String> {
    const TRIES: usize = 3;
    for attempt in 1..=TRIES {
        let typed = prompter.secret("Passphrase of the local Pulumi backend (PULUMI_CONFIG_PASSPHRASE)")?;
        if crate::commands::shared::passphrase_check::passphrase_opens(stack_file, &typed) {
            return Ok(typed);
        }
        if attempt < TRIES {
            crate::text::stderr_line!("that passphrase does not open stack `{stack}`; try again");
        }
    }
    Err(UserError::WrongPassphrase {
        stack: stack.to_string(),
        file: stack_file.to_path_buf(),
        source_name: "the passphrase typed".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written by the real `pulumi config set --secret k` (v3.259.0) with passphrase `pw`.
    const STACK_FILE: &str = "encryptionsalt: v1:vX76qIDhlhw=:v1:3Q8rc+XmVFpzYrj6:hVXZuopwAZjzEkI5XpdTkldruXSjnQ==\nconfig:\n  p:plain: visible\n";

    #[test]
    fn every_source_of_a_wrong_passphrase_is_refused_and_the_right_one_passes() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("Pulumi.dev.yaml");
        std::fs::write(&file, STACK_FILE).unwrap();
        let passphrase_file = dir.path().join("passphrase");
        std::fs::write(&passphrase_file, "wrong\n").unwrap();
        let shown_file = passphrase_file.display().to_string();
        type Case<'a> = (Vec<(&'a str, &'a str)>, Option<&'a str>, bool);
        let cases: Vec<Case> = vec![
            (vec![("PULUMI_CONFIG_PASSPHRASE", "pw")], None, true),
            (vec![("PULUMI_CONFIG_PASSPHRASE", "wrong")], None, false),
            (vec![("PULUMI_CONFIG_PASSPHRASE_FILE", &shown_file)], None, false),
            (vec![("PULUMI_CONFIG_PASSPHRASE", "wrong")], Some("pw"), true),
            (vec![], Some("wrong"), false),
            (vec![], None, true),
        ];
        for (vars, typed, ok) in cases {
            let environment = ChildEnvironment::from_vars(&vars);
            let result = check_passphrase("dev", &file, &environment, typed);
            assert_eq!(result.is_ok(), ok, "{vars:?} {typed:?}");
            if let Err(err) = result {
                let text = err.chain().to_string();
                assert!(text.contains("stack `dev`") && !text.contains("wrong"), "{text}");
            }
        }
        std::fs::write(&file, "config: {}\n").unwrap();
        let environment = ChildEnvironment::from_vars(&[("PULUMI_CONFIG_PASSPHRASE", "anything")]);
        assert!(check_passphrase("dev", &file, &environment, None).is_ok(), "no salt yet: pulumi makes it");
    }
}
