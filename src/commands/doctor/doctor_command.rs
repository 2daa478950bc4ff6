use std::io::Write;

use crate::cancel::{Cancellation, ChildProcess, QUERY_TIMEOUT};
use crate::cli::{ProviderSettings, Settings};
use crate::commands::LoadedProvider;
use crate::config::EnvironmentFile;
use crate::error::Result;
use crate::exit_status::ExitStatus;
use crate::provider::HookSpec;
use crate::pulumi::{Backend, ChildEnvironment, PulumiManifest};

/// The oldest `pulumi` the runner is tested with (see `scripts/install-pulumi.sh`).
const MINIMUM_PULUMI: (u64, u64, u64) = (3, 259, 0);

/// One finding: what was checked, whether it is fine, and how to fix it when it is not.
struct Finding {
    check: String,
    ok: bool,
    detail: String,
}

/// `runner doctor --provider P`: programs, backend and passphrase, each with its fix.
pub(crate) fn doctor(settings: &Settings, provider: &ProviderSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, provider)?;
    let file = EnvironmentFile::load(&settings.root.environment_file())?;
    let environment = ChildEnvironment::build(std::env::vars(), &file, &settings.root);
    let path = environment.get("PATH").unwrap_or_default().to_string();
    let find = |program: &str| which::which_in(program, Some(&path), settings.root.path()).ok();
    let mut findings = Vec::new();

    // The `pulumi` every other command uses.
    let pulumi_found = crate::commands::shared::pulumi_location::find_pulumi(&environment).ok();
    match pulumi_found.clone() {
        Some(pulumi) => {
            let version = ChildProcess::new(&pulumi)
                .arg("version")
                .env("PULUMI_SKIP_UPDATE_CHECK", "true")
                .timeout(QUERY_TIMEOUT)
                .output_blocking(&Cancellation::process())
                .stdout_text()
                .trim()
                .to_string();
            let ok = parse_version(&version).is_some_and(|found| found >= MINIMUM_PULUMI);
            findings.push(Finding {
                check: "pulumi".into(),
                ok,
                detail: if ok {
                    format!("{version} at {}", pulumi.display())
                } else {
                    format!("`{}` reports `{version}`; run `scripts/install-pulumi.sh` and put the folder it prints first on PATH", pulumi.display())
                },
            });
        }
        None => findings.push(Finding {
            check: "pulumi".into(),
            ok: false,
            detail: if settings.root.is_mara_checkout() {
                "not on PATH: install Pulumi (https://www.pulumi.com/docs/install/, or the runner repository's `scripts/install-pulumi.sh`) and put its folder on PATH".into()
            } else {
                format!("not on PATH; {}", crate::commands::shared::pulumi_location::pulumi_missing_hint(&environment))
            },
        }),
    }

    let mut runtimes: Vec<String> = loaded
        .provider
        .projects
        .iter()
        .filter_map(|project| PulumiManifest::load(&loaded.provider.dir_of(project)).ok())
        .map(|manifest| manifest.runtime)
        .filter(|runtime| !runtime.is_empty())
        .collect();
    runtimes.sort();
    runtimes.dedup();
    for runtime in runtimes {
        let (program, fix) = match runtime.as_str() {
            "yaml" => ("pulumi-language-yaml", "it is built next to `pulumi` by `scripts/install-pulumi.sh`"),
            "python" => ("python3", "install Python 3 (and each project's virtualenv)"),
            "nodejs" => ("node", "install Node.js"),
            "go" => ("go", "install Go"),
            "dotnet" => ("dotnet", "install the .NET SDK"),
            "java" => ("java", "install a JDK"),
            _ => continue,
        };
        findings.push(Finding {
            check: format!("{runtime} runtime"),
            ok: find(program).is_some(),
            detail: match find(program) {
                Some(found) => format!("`{program}` at {}", found.display()),
                None => format!("`{program}` not on PATH: {fix}"),
            },
        });
    }

    findings.extend(
        crate::commands::python_runtime_findings(
            &loaded.provider,
            settings.root.path(),
            pulumi_found.as_deref(),
            &find,
        )
        .into_iter()
        .map(|found| Finding { check: found.check, ok: found.ok, detail: found.detail }),
    );

    findings.extend(
        super::plugin_check::plugin_findings(&loaded.provider, &environment, settings.root.path())
            .into_iter()
            .map(|found| Finding { check: found.check, ok: found.ok, detail: found.detail }),
    );

    let uses_kubeconfig = loaded
        .provider
        .projects
        .iter()
        .any(|project| project.on_success.iter().any(|hook| matches!(hook, HookSpec::Kubeconfig { .. })));
    if uses_kubeconfig {
        findings.push(Finding {
            check: "kubectl".into(),
            ok: find("kubectl").is_some(),
            detail: match find("kubectl") {
                Some(found) => format!("at {} (the kubeconfig hook installs contexts for it)", found.display()),
                None => {
                    "not on PATH: the kubeconfig hook still works, but you will want kubectl to use the cluster".into()
                }
            },
        });
    }

    let backend = Backend::from_environment(&environment);
    let backend_ok = match backend.local_dir() {
        Some(dir) => dir.is_dir() || environment.default_backend,
        None => true,
    };
    findings.push(Finding {
        check: "backend".into(),
        ok: backend_ok,
        detail: if environment.default_backend {
            format!("{} (the runner's default; set `PULUMI_BACKEND_URL` to use another)", backend.url)
        } else if backend_ok {
            backend.url.clone()
        } else {
            format!("{} does not exist: create it, or fix `PULUMI_BACKEND_URL`", backend.url)
        },
    });
    if backend.url.starts_with("s3://") {
        for finding in super::s3_backend_check::check_s3_backend(&backend.url, &environment, pulumi_found.as_deref()) {
            findings.push(Finding { check: finding.check.into(), ok: finding.ok, detail: finding.detail });
        }
    }
    for finding in super::object_store_check::check_object_store_backend(&backend.url, &environment) {
        findings.push(Finding { check: finding.check.into(), ok: finding.ok, detail: finding.detail });
    }
    // Every DIY backend encrypts secrets with the passphrase unless a stack names another
    // secrets provider; Pulumi Cloud keeps its own keys.
    if !backend.url.starts_with("https://") && !backend.url.starts_with("http://") {
        let passphrase = environment.get("PULUMI_CONFIG_PASSPHRASE").is_some();
        let passphrase_file = environment.get("PULUMI_CONFIG_PASSPHRASE_FILE");
        let (ok, detail) = match (passphrase, passphrase_file) {
            (true, _) => (true, "`PULUMI_CONFIG_PASSPHRASE` is set".to_string()),
            (false, Some(file)) if std::path::Path::new(file).is_file() => (true, format!("read from `{file}`")),
            (false, Some(file)) => (false, format!("`PULUMI_CONFIG_PASSPHRASE_FILE` names `{file}`, which does not exist")),
            (false, None) => (
                false,
                "not set: put `PULUMI_CONFIG_PASSPHRASE` or `PULUMI_CONFIG_PASSPHRASE_FILE` in `config/pulumi/environment` (a terminal run asks for it)".into(),
            ),
        };
        let (ok, detail) = match ok {
            true => {
                passphrase_opens_stacks(settings, &loaded, &environment).map_or((true, detail), |wrong| (false, wrong))
            }
            false => (ok, detail),
        };
        findings.push(Finding { check: "passphrase".into(), ok, detail });
    }

    findings.extend(
        crate::preflight::provider_checks(&loaded.provider, &environment).into_iter().map(|check| Finding {
            check: check.check,
            ok: check.ok,
            detail: check.detail,
        }),
    );

    let mut out = std::io::stdout().lock();
    let width = findings.iter().map(|f| f.check.len()).max().unwrap_or(0);
    for finding in &findings {
        let mark = if finding.ok { "ok     " } else { "problem" };
        let _ = writeln!(out, "{mark}  {:width$}  {}", finding.check, finding.detail);
    }
    Ok(if findings.iter().all(|f| f.ok) { ExitStatus::Success } else { ExitStatus::Usage })
}

fn parse_version(text: &str) -> Option<(u64, u64, u64)> {
    let mut parts = text.trim().trim_start_matches('v').split(['.', '-', '+']).map(|part| part.parse::<u64>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

/// Why the passphrase is wrong for a stack of the shared configuration folder (the one
/// `PULUMI_STACK` names, else every one there); `None` when it opens them all.
fn passphrase_opens_stacks(
    settings: &Settings,
    loaded: &LoadedProvider,
    environment: &ChildEnvironment,
) -> Option<String> {
    let passphrase = crate::commands::shared::passphrase_check::run_passphrase(environment, None)?;
    let any = crate::commands::shared_stack_file(&settings.root, &loaded.provider, "dev").ok()?;
    let folder = any.parent()?;
    let mut stacks: Vec<String> = match environment.get("PULUMI_STACK") {
        Some(stack) => vec![stack.to_string()],
        None => std::fs::read_dir(folder)
            .ok()?
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                Some(name.strip_prefix("Pulumi.")?.strip_suffix(".yaml")?.to_string())
            })
            .collect(),
    };
    stacks.sort();
    let wrong: Vec<String> = stacks
        .into_iter()
        .filter(|stack| {
            let file = folder.join(format!("Pulumi.{stack}.yaml"));
            !crate::commands::shared::passphrase_check::passphrase_opens(&file, &passphrase)
        })
        .map(|stack| format!("`{stack}`"))
        .collect();
    (!wrong.is_empty()).then(|| {
        format!(
            "{} does not open stack {}: set the passphrase the stack was created with",
            crate::commands::shared::passphrase_check::passphrase_source(environment, false),
            wrong.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::parse_version;

    #[test]
    fn versions_compare_numerically() {
        assert_eq!(parse_version("v3.259.0"), Some((3, 259, 0)));
        assert!(parse_version("v3.1000.0").unwrap() > parse_version("v3.259.0").unwrap());
        assert_eq!(parse_version(""), None);
    }
}
