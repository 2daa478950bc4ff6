use std::io::IsTerminal;

use super::LoadedProvider;
use crate::cli::{ConfigSetSettings, Settings};
use crate::config::{add_stack_config_values, StackConfig};
use crate::error::{Result, UserError};
use crate::exit_status::ExitStatus;
use crate::history::StackLock;
use crate::provider::ProjectPath;
use crate::pulumi::SecretStore;
use crate::pulumi::{Backend, ChildEnvironment};

/// `runner config set`: writes one value where a run reads it, with the backend, passphrase and
/// config file the runner itself would use, so the command works exactly as printed in hints.
pub(crate) fn config_set(settings: &Settings, request: &ConfigSetSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &request.stack.provider)?;
    if let Some(project) = &request.project {
        if loaded.graph.node_of(&ProjectPath::new(project)).is_none() {
            return Err(UserError::Usage(format!(
                "unknown project `{project}` in provider `{}`",
                loaded.provider.name
            )));
        }
    }
    let stack = &request.stack.stack;
    let environment = ChildEnvironment::build(std::env::vars(), &request.stack.environment, &settings.root);
    let backend = Backend::from_environment(&environment);
    if request.secret {
        // Before the value is asked for: what was typed is never dropped for a passphrase problem.
        if backend.is_local()
            && environment.get("PULUMI_CONFIG_PASSPHRASE").is_none()
            && environment.get("PULUMI_CONFIG_PASSPHRASE_FILE").is_none()
        {
            return Err(UserError::Usage(
                "the local backend needs `PULUMI_CONFIG_PASSPHRASE` (or `_FILE`) to encrypt the secret: set it in `config/pulumi/environment` or the environment".into(),
            ));
        }
        if backend.uses_passphrase() {
            let file = settings.root.stack_config_file(stack);
            crate::commands::shared::passphrase_check::check_passphrase(stack, &file, &environment, None)?;
        }
    }
    let value = match &request.value {
        Some(_) if request.secret => {
            return Err(UserError::Usage(
                "a secret is read from stdin, never from the command line: drop the value".into(),
            ))
        }
        Some(value) => value.clone(),
        None => read_value(&request.key, request.secret)?,
    };
    // One writer per stack: a run or another `config set` stores into the same stack file and
    // stack, and a write between their read and their write would be lost.
    let command = format!("runner config set {} --provider {} --stack {stack}", request.key, loaded.provider.name);
    let _lock = StackLock::acquire(&settings.root.state_dir(), stack, &command, request.wait)?;
    if !request.secret {
        let path = settings.root.stack_config_file(stack);
        let existing = std::fs::read_to_string(&path).ok();
        if existing.as_deref().is_some_and(|text| !text.trim().is_empty()) {
            let config = StackConfig::load(&path)?;
            if config.contains(&request.key) {
                return Err(UserError::Usage(format!(
                    "`{}` is already set in `{}`: edit it there",
                    request.key,
                    crate::error::shown_path(&path)
                )));
            }
        }
        add_stack_config_values(&path, existing.as_deref(), &[(request.key.clone(), value)])?;
        crate::text::stdout_line!("`{}` set in `{}`", request.key, crate::error::shown_path(&path));
        return Ok(ExitStatus::Success);
    }
    if let Some(dir) = backend.local_dir() {
        std::fs::create_dir_all(dir).map_err(|err| UserError::Unwritable { path: dir.to_path_buf(), source: err })?;
    }
    let store = SecretStore::locate(&settings.root, &loaded.provider, stack, &backend, request.project.is_some())?
        .ok_or_else(|| {
            UserError::Usage(format!("provider `{}` has no project to keep secrets in", loaded.provider.name))
        })?;
    let pulumi = crate::commands::shared::pulumi_location::find_pulumi(&environment)?;
    // `pulumi config set` needs the stack: it is made in the project that keeps the secrets,
    // which may be none of those named on the command line, so it is said, not done silently.
    let (holder, holder_dir, exists) = store.holder(&backend);
    if exists != Some(true) {
        crate::text::stderr_line!(
            "note: creating stack `{stack}` of project `{holder}` ({}) to keep the secret",
            crate::error::shown_path(holder_dir)
        );
    }
    let mask = crate::secrets::SecretMask::new([value.clone()]);
    store.store(&pulumi, &environment, &backend, &request.key, &value).map_err(|err| match err {
        UserError::Internal(message) => UserError::Internal(mask.apply(&message)),
        other => other,
    })?;
    crate::text::stdout_line!("secret `{}` stored encrypted for stack `{stack}`", request.key);
    Ok(ExitStatus::Success)
}

/// All of stdin, one trailing line end dropped (a PEM key is many lines, and kept whole); in a
/// terminal, asked for (without echo for a secret). Empty input is refused, never stored.
fn read_value(key: &str, secret: bool) -> Result<String> {
    if std::io::stdin().is_terminal() {
        let prompt = format!("Value of `{key}`");
        let answer = if secret {
            dialoguer::Password::new().with_prompt(prompt).interact()
        } else {
            dialoguer::Input::<String>::new().with_prompt(prompt).interact_text()
        };
        return answer
            .map_err(|dialoguer::Error::IO(source)| UserError::InputUnreadable { input: "the value", source });
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
        .map_err(|source| UserError::InputUnreadable { input: "stdin", source })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| UserError::Usage(format!("the value of `{key}` on stdin is not UTF-8")))?;
    let value = without_one_line_end(&text);
    if value.is_empty() {
        return Err(UserError::Usage(format!("no value for `{key}` on stdin")));
    }
    Ok(value.to_string())
}

/// `echo value |` adds one line end that is no part of the value; anything before it is.
fn without_one_line_end(text: &str) -> &str {
    text.strip_suffix("\r\n").or_else(|| text.strip_suffix('\n')).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_line_end_is_dropped_and_the_rest_kept() {
        for (input, value) in [
            ("v\n", "v"),
            ("v\r\n", "v"),
            ("v", "v"),
            ("a\nb\n\n", "a\nb\n"),
            ("-----BEGIN K-----\nAAA\n-----END K-----\n", "-----BEGIN K-----\nAAA\n-----END K-----"),
            ("\n", ""),
        ] {
            assert_eq!(super::without_one_line_end(input), value, "{input:?}");
        }
    }
}
