//! `doctor`'s per-provider checks: cloud credentials and each project's program.

use crate::provider::Provider;
use crate::pulumi::{ChildEnvironment, PulumiManifest};

/// One check: its name, whether it passed, and what was found or how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProviderCheck {
    pub check: String,
    pub ok: bool,
    pub detail: String,
}

/// Credentials the provider's cloud needs (by `infra_type`), then a program in every project.
pub(crate) fn provider_checks(provider: &Provider, environment: &ChildEnvironment) -> Vec<ProviderCheck> {
    let mut checks = Vec::new();
    let set = |name: &str| environment.get(name).is_some_and(|value| !value.is_empty());
    let credentials: Option<(&[&str], &str)> =
        match provider.infra_type.as_deref().map(str::to_ascii_uppercase).as_deref() {
            Some("AWS") => Some((
                &["AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE"],
                "set `AWS_PROFILE` (or `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`) in `config/pulumi/environment`",
            )),
            Some("DO") => Some((&["DIGITALOCEAN_TOKEN"], "set `DIGITALOCEAN_TOKEN` in `config/pulumi/environment`")),
            Some("LKE") => Some((&["LINODE_TOKEN"], "set `LINODE_TOKEN` in `config/pulumi/environment`")),
            _ => None,
        };
    if let Some((names, fix)) = credentials {
        let found: Vec<&str> = names.iter().copied().filter(|name| set(name)).collect();
        let home_credentials = environment.get("HOME").is_some_and(|home| {
            names.contains(&"AWS_PROFILE") && std::path::Path::new(home).join(".aws/credentials").is_file()
        });
        checks.push(ProviderCheck {
            check: "cloud credentials".into(),
            ok: !found.is_empty() || home_credentials,
            detail: match (found.first(), home_credentials) {
                (Some(name), _) => format!("`{name}` is set"),
                (None, true) => "`~/.aws/credentials` exists".into(),
                (None, false) => format!(
                    "none of {} is set: {fix}",
                    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                ),
            },
        });
    }
    let missing: Vec<String> = provider
        .projects
        .iter()
        .filter_map(|project| {
            let dir = provider.dir_of(project);
            let manifest = PulumiManifest::load(&dir).ok()?;
            super::program_problem(&dir, &manifest.runtime).map(|problem| format!("`{}`: {problem}", project.path))
        })
        .collect();
    let hostless: Vec<String> = provider
        .projects
        .iter()
        .filter_map(|project| {
            let manifest = PulumiManifest::load(&provider.dir_of(project)).ok()?;
            super::language_host_problem(&manifest.runtime, environment)
                .map(|problem| format!("`{}`: {problem}", project.path))
        })
        .collect();
    checks.push(ProviderCheck {
        check: "language hosts".into(),
        ok: hostless.is_empty(),
        detail: hostless.first().cloned().unwrap_or_else(|| "every project's runtime has its language host".into()),
    });
    checks.push(ProviderCheck {
        check: "programs".into(),
        ok: missing.is_empty(),
        detail: if missing.is_empty() {
            match provider.projects.len() {
                1 => "the project has a program for its runtime".to_string(),
                count => format!("each of the {} has a program for its runtime", crate::text::counted(count, "project")),
            }
        } else {
            format!(
                "{} of {} {} only a manifest, e.g. {} (point `projects_root` or `--projects-root` at the checkout holding the programs)",
                missing.len(),
                crate::text::counted(provider.projects.len(), "project"),
                if missing.len() == 1 { "has" } else { "have" },
                missing[0]
            )
        },
    });
    checks
}
