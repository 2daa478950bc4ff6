use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::CommandFactory;
use clap_complete::engine::ArgValueCompleter;
use clap_complete::env::{CompleteEnv, EnvCompleter, Shells};

use super::completion_context::{CompletedValue, CompletionContext};
use super::Arguments;
use crate::exit_status::ExitStatus;

/// Dynamic shell completion: the script a shell sources only registers `runner` as its own
/// completer, so providers, stacks and project paths come from the repository at hand each time
/// rather than from a list frozen when the script was written.
pub(crate) struct ShellCompletion;

impl ShellCompletion {
    /// Set by the registered script when the shell asks for completions. Not clap's usual
    /// `COMPLETE`: a variable of that common name in a CI job would stop every run.
    pub(crate) const VARIABLE: &'static str = "RUNNER_COMPLETE";

    /// Answers the shell when it is asking (the variable is set); `None` for an ordinary run.
    /// A completion prints candidates or nothing: never a panic or an error message, which
    /// would land in the middle of the user's command line.
    pub(crate) fn answer(args: &[OsString]) -> Option<ExitStatus> {
        let asked = std::env::var_os(Self::VARIABLE).is_some_and(|value| !value.is_empty() && value != "0");
        if !asked {
            return None;
        }
        let completing = args.iter().any(|arg| arg == "--");
        let current_dir = std::env::current_dir().unwrap_or_default();
        std::panic::set_hook(Box::new(|_| {}));
        let args = args.to_vec();
        let outcome = std::panic::catch_unwind(move || {
            let words: Vec<String> = args
                .iter()
                .skip_while(|arg| *arg != "--")
                .skip(1)
                .map(|word| word.to_string_lossy().into_owned())
                .collect();
            let context = Arc::new(CompletionContext::from_words(&words, &current_dir));
            CompleteEnv::with_factory(move || Self::command(&context))
                .var(Self::VARIABLE)
                .try_complete(args, Some(&current_dir))
        });
        let _ = std::panic::take_hook();
        match outcome {
            Ok(Ok(true)) => Some(ExitStatus::Success),
            Ok(Ok(false)) => None,
            // Registration (`RUNNER_COMPLETE=nonsense runner`) is asked by a person: tell them.
            Ok(Err(err)) if !completing => {
                let _ = err.print();
                Some(ExitStatus::Usage)
            }
            Ok(Err(_)) | Err(_) => Some(ExitStatus::Success),
        }
    }

    /// The command line with completers on every argument that names a provider, a stack or a
    /// project.
    pub(crate) fn command(context: &Arc<CompletionContext>) -> clap::Command {
        // MARA's order, `runner -p aws -s dev up`, is rewritten before clap parses a run; the
        // completer sees the words as typed, so it learns the two options before the verb.
        let mara_order = Arguments::command()
            .arg(clap::Arg::new("provider").short('p').long("provider").hide(true))
            .arg(clap::Arg::new("stack").short('s').long("stack").hide(true));
        with_completers(mara_order, context)
    }

    /// The script that registers `runner` as `shell`'s completer for itself; `completer` is how
    /// the shell will call it (the program as invoked, made absolute when given as a path).
    pub(crate) fn registration(shell: clap_complete::Shell, completer: &OsStr) -> Option<String> {
        let shells = Shells::builtins();
        let env_shell = shells.completer(&shell.to_string())?;
        let mut completer = PathBuf::from(completer);
        if completer.components().count() > 1 {
            completer = std::env::current_dir().unwrap_or_default().join(completer);
        }
        Some(script(env_shell, &completer))
    }
}

fn script(shell: &dyn EnvCompleter, completer: &Path) -> String {
    let mut buffer = Vec::new();
    let completer = completer.to_string_lossy();
    let _ = shell.write_registration(ShellCompletion::VARIABLE, "runner", "runner", &completer, &mut buffer);
    String::from_utf8_lossy(&buffer).into_owned()
}

fn completed_value(id: &str) -> Option<CompletedValue> {
    match id {
        "provider" => Some(CompletedValue::Provider),
        "stack" => Some(CompletedValue::Stack),
        "only" | "exclude" | "from" | "project" => Some(CompletedValue::Project),
        _ => None,
    }
}

fn with_completers(mut command: clap::Command, context: &Arc<CompletionContext>) -> clap::Command {
    let ids: Vec<String> = command.get_arguments().map(|arg| arg.get_id().to_string()).collect();
    for id in ids {
        let Some(value) = completed_value(&id) else { continue };
        let context = Arc::clone(context);
        let completer = ArgValueCompleter::new(move |current: &OsStr| context.complete(value, current));
        command = command.mut_arg(id, |arg| arg.add(completer));
    }
    let names: Vec<String> = command.get_subcommands().map(|sub| sub.get_name().to_string()).collect();
    for name in names {
        command = command.mut_subcommand(name, |sub| with_completers(sub, context));
    }
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the shell would offer for the last word of `line`, through clap's completion engine.
    fn offered(line: &str, dir: &Path) -> Vec<String> {
        let words: Vec<String> = line.split(' ').map(str::to_string).collect();
        let context = Arc::new(CompletionContext::from_words(&words, dir));
        let mut command = ShellCompletion::command(&context);
        let args: Vec<OsString> = words.iter().map(OsString::from).collect();
        let index = args.len() - 1;
        clap_complete::engine::complete(&mut command, args, index, Some(dir))
            .unwrap()
            .iter()
            .map(|candidate| candidate.get_value().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn providers_stacks_and_projects_are_completed_where_they_are_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("config/pulumi")).unwrap();
        std::fs::create_dir_all(dir.path().join("providers")).unwrap();
        std::fs::write(
            dir.path().join("providers/demo.toml"),
            "[[project]]\npath = \"a/b\"\nphase = \"infrastructure\"\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("config/pulumi/Pulumi.dev.yaml"), "").unwrap();
        assert_eq!(offered("runner show --provider ", dir.path()), ["demo"]);
        assert_eq!(offered("runner up -p demo -s ", dir.path()), ["dev"]);
        assert_eq!(offered("runner up -p demo --only ", dir.path()), ["a/b"]);
        assert_eq!(offered("runner config set -p demo --project a", dir.path()), ["a/b"]);
        assert_eq!(offered("runner history --stack d", dir.path()), ["dev"]);
        assert_eq!(offered("runner -p ", dir.path()), ["demo"]);
        assert_eq!(offered("runner -p demo -s ", dir.path()), ["dev"]);
        assert_eq!(offered("runner -p demo -s dev up --only ", dir.path()), ["a/b"]);
    }

    #[test]
    fn every_shell_has_a_registration_script() {
        for shell in [clap_complete::Shell::Bash, clap_complete::Shell::Zsh, clap_complete::Shell::Fish] {
            let script = ShellCompletion::registration(shell, OsStr::new("runner")).unwrap();
            assert!(script.contains(ShellCompletion::VARIABLE), "{shell}: {script}");
        }
    }
}
