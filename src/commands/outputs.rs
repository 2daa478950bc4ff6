use std::fmt::Write;

use super::LoadedProvider;
use crate::cli::{OutputsSettings, Settings};
use crate::commands::shared::stack_outputs::{display_value, OutputReader};
use crate::error::{Result, UserError};
use crate::exit_status::ExitStatus;
use crate::plan::{ExecutionPlan, Operation};
use crate::pulumi::{Backend, ChildEnvironment};

/// `runner outputs`: every selected project's stack outputs, in plan order, on stdout.
pub(crate) fn outputs(settings: &Settings, outputs: &OutputsSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &outputs.stack.provider)?;
    let mut environment = ChildEnvironment::build(std::env::vars(), &outputs.stack.environment, &settings.root);
    let backend = Backend::from_environment(&environment);
    let selected = super::select_with_affected(settings, &loaded, &outputs.selection, Some(&outputs.stack.stack))?;
    let mut typed = None;
    if outputs.show_secrets && backend.uses_passphrase() {
        use crate::commands::shared::passphrase_check::{ask_passphrase, check_passphrase, run_passphrase};
        let file = crate::commands::shared_stack_file(&settings.root, &loaded.provider, &outputs.stack.stack)?;
        if run_passphrase(&environment, None).is_none() {
            if !outputs.interactive {
                return Err(UserError::Usage(format!(
                    "`--show-secrets` needs the passphrase of stack `{}`: set `PULUMI_CONFIG_PASSPHRASE` or `PULUMI_CONFIG_PASSPHRASE_FILE` in `config/pulumi/environment` or the environment, or run it in a terminal to be asked",
                    outputs.stack.stack
                )));
            }
            let prompter = crate::prompt::TerminalPrompter::new(settings.style.color);
            let passphrase = ask_passphrase(&prompter, &outputs.stack.stack, &file)?;
            environment.set("PULUMI_CONFIG_PASSPHRASE", passphrase.clone());
            typed = Some(passphrase);
        } else {
            // The prompt only returns a passphrase that opens the stack file.
            check_passphrase(&outputs.stack.stack, &file, &environment, None)?;
        }
    }
    let pulumi = crate::commands::shared::pulumi_location::find_pulumi(&environment)?;
    let plan = ExecutionPlan::new(&loaded.graph, Operation::Up, &selected);
    let projects: Vec<_> = plan.order.iter().map(|&node| loaded.graph.project(node)).collect();
    let mask = crate::commands::run::run_secret_mask::run_secret_mask(&environment, &loaded.provider, typed.as_deref());
    let reader = OutputReader {
        pulumi: &pulumi,
        provider: &loaded.provider,
        stack: &outputs.stack.stack,
        environment: &environment,
        backend: &backend,
        show_secrets: outputs.show_secrets,
        mask: &mask,
    };
    let results = reader.read_all(&projects);
    let mut out = String::new();
    let mut failed = 0;
    for result in &results {
        if let Err(message) = &result.outputs {
            failed += 1;
            crate::text::stderr_line!("error: `{}`: {}", result.project, crate::error::ErrorChain(message));
        }
    }
    if outputs.json {
        let object: serde_json::Map<String, serde_json::Value> = results
            .iter()
            .filter_map(|result| {
                let values = result.outputs.as_ref().ok().filter(|_| result.deployed)?;
                Some((result.project.clone(), serde_json::Value::Object(values.clone())))
            })
            .collect();
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&object).unwrap_or_default());
    } else {
        for result in &results {
            let Ok(values) = &result.outputs else { continue };
            if !result.deployed {
                let _ = writeln!(out, "{}  (not deployed on stack `{}`)", result.project, outputs.stack.stack);
                continue;
            }
            if values.is_empty() {
                let _ = writeln!(out, "{}  (no outputs)", result.project);
                continue;
            }
            let _ = writeln!(out, "{}", result.project);
            let width = values.keys().map(String::len).max().unwrap_or(0);
            for (name, value) in values {
                let _ = writeln!(out, "  {name:width$}  {}", display_value(value));
            }
        }
    }
    super::write_data(out.as_bytes())?;
    // A stack that is not there is a result of its own, and no success: a script reading
    // outputs from the wrong stack must not go on with nothing.
    let not_deployed = results.iter().filter(|result| result.outputs.is_ok() && !result.deployed).count();
    if not_deployed > 0 {
        crate::text::stderr_line!(
            "{} of {} not deployed on stack `{}`",
            not_deployed,
            crate::text::counted(results.len(), "project"),
            outputs.stack.stack
        );
    }
    Ok(if failed > 0 || not_deployed > 0 { ExitStatus::Failure } else { ExitStatus::Success })
}
