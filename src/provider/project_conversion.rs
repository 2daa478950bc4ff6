use std::path::Path;
use std::time::Duration;

use toml::Spanned;

use super::provider_file::{GateFile, HookFile, PrerequisiteFile, ProjectFile, RetryFile};
use super::{
    FailureHint, GateCheck, HookSpec, KubernetesKind, KubernetesObject, Phase, Prerequisite, Project, ProjectPath,
    ReadinessGate, RetryPatterns, RetryPolicy, SecretSpec,
};
use crate::config::RepositoryRoot;
use crate::error::{Location, Result, UserError};

const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(300);

/// Turns one `[[project]]` table into a `Project`. Each refusal names the line of the offending
/// key and its TOML path (`ready[1].timeout`), so a user with several gates knows which one.
pub(super) struct ProjectConversion<'a> {
    pub root: &'a RepositoryRoot,
    /// Where the `[[project]]` table starts.
    pub origin: &'a Location,
    /// `path:line` of a byte offset in the file.
    pub at: &'a dyn Fn(usize) -> Location,
}

impl ProjectConversion<'_> {
    pub(super) fn convert(&self, raw: ProjectFile) -> Result<Project> {
        let raw_path = raw.path.get_ref();
        let path = ProjectPath::new(raw_path);
        if path.as_str().is_empty() && !ProjectPath::escapes_root(raw_path) {
            return Err(UserError::InvalidFile {
                location: (self.at)(raw.path.span().start),
                message: format!("`path = \"{raw_path}\"` names no folder under the projects root"),
            });
        }
        if ProjectPath::escapes_root(raw_path) {
            return Err(UserError::PathEscapesRoot {
                location: (self.at)(raw.path.span().start),
                project: raw_path.clone(),
            });
        }
        let mut depends_on = Vec::new();
        let mut dependency_origins = Vec::new();
        for dependency in &raw.depends_on {
            depends_on.push(ProjectPath::new(dependency.get_ref()));
            dependency_origins.push((self.at)(dependency.span().start));
        }
        let on_success = raw
            .on_success
            .into_iter()
            .enumerate()
            .map(|(index, hook)| self.hook(&path, index, hook))
            .collect::<Result<Vec<_>>>()?;
        let retry = raw.retry.map(|retry| self.retry(&path, retry)).transpose()?;
        let ready = raw
            .ready
            .into_iter()
            .enumerate()
            .map(|(index, gate)| self.gate(&path, index, gate))
            .collect::<Result<Vec<_>>>()?;
        let prerequisites = raw
            .prerequisites
            .into_iter()
            .enumerate()
            .map(|(index, prerequisite)| self.prerequisite(&path, index, prerequisite))
            .collect::<Result<Vec<_>>>()?;
        if let Some(dir) = &raw.dir {
            if ProjectPath::escapes_root(dir.get_ref()) {
                return Err(UserError::PathEscapesRoot {
                    location: (self.at)(dir.span().start),
                    project: dir.get_ref().clone(),
                });
            }
        }
        let mut failure_hints = Vec::new();
        for hint in raw.failure_hints {
            for (key, value) in [("contains", &hint.contains), ("hint", &hint.hint)] {
                if value.get_ref().trim().is_empty() {
                    return Err(self.invalid(
                        value.span().start,
                        format!(
                            "`failure_hints` of `{path}`: `{key}` is empty; a hint needs both `contains` and `hint`"
                        ),
                    ));
                }
            }
            failure_hints.push(FailureHint { contains: hint.contains.into_inner(), hint: hint.hint.into_inner() });
        }
        let project = Project {
            provides_cluster: raw.provides_cluster,
            needs_cluster: raw.needs_cluster.unwrap_or(raw.phase == Phase::Kubernetes),
            pool: raw.pool,
            show_outputs: raw.show_outputs,
            failure_hints,
            dir: raw.dir.map(|dir| ProjectPath::new(dir.get_ref()).to_string()),
            only_as_prerequisite: raw.only_as_prerequisite,
            retry,
            ready,
            targets: raw.targets,
            target_dependents: raw.target_dependents,
            refresh: raw.refresh,
            always_run: raw.always_run,
            mock_outputs: raw
                .mock_outputs
                .iter()
                .map(|(name, value)| (name.clone(), serde_json::to_value(value).unwrap_or_default()))
                .collect(),
            prerequisites,
            description: raw.description.unwrap_or_else(|| path.short_name().to_string()),
            phase: raw.phase,
            secrets: raw
                .secrets
                .into_iter()
                .map(|secret| SecretSpec {
                    prompt: secret.prompt.unwrap_or_else(|| secret.key.clone()),
                    key: secret.key,
                    default_env: secret.default_env,
                })
                .collect(),
            path,
            depends_on,
            dependency_origins,
            on_success,
            origin: self.origin.clone(),
        };
        check_cluster_marks(&project, self.origin)?;
        Ok(project)
    }

    fn invalid(&self, offset: usize, message: String) -> UserError {
        UserError::InvalidFile { location: (self.at)(offset), message }
    }

    /// `"30s"` as a duration, or an error at the value naming `key`.
    fn duration(&self, path: &ProjectPath, key: &str, text: &Spanned<String>) -> Result<Duration> {
        crate::text::parse_duration(text.get_ref()).map_err(|_| {
            self.invalid(
                text.span().start,
                format!(
                    "`{key} = \"{}\"` of `{path}` is not a duration; {}",
                    text.get_ref(),
                    crate::text::DURATION_SHAPES
                ),
            )
        })
    }

    fn hook(&self, path: &ProjectPath, index: usize, hook: Spanned<HookFile>) -> Result<HookSpec> {
        Ok(match hook.into_inner() {
            HookFile::Kubeconfig(hook) => {
                HookSpec::Kubeconfig { output: hook.output, switch_context: hook.switch_context }
            }
            HookFile::Command(hook) => {
                let key = format!("on_success[{index}].command");
                if hook.argv.get_ref().is_empty() {
                    let message = format!("`{key}.argv` of `{path}` is empty: name a program");
                    return Err(self.invalid(hook.argv.span().start, message));
                }
                let timeout = match &hook.timeout {
                    Some(text) => self.duration(path, &format!("{key}.timeout"), text)?,
                    None => DEFAULT_HOOK_TIMEOUT,
                };
                HookSpec::Command { argv: hook.argv.into_inner(), timeout }
            }
        })
    }

    fn retry(&self, path: &ProjectPath, retry: Spanned<RetryFile>) -> Result<RetryPolicy> {
        let retry = retry.into_inner();
        let attempts = *retry.attempts.get_ref();
        if attempts == 0 || attempts > 100 {
            return Err(self.invalid(
                retry.attempts.span().start,
                format!("`retry.attempts = {attempts}` of `{path}` must be between 1 and 100"),
            ));
        }
        let backoff = match &retry.backoff {
            Some(text) => self.duration(path, "retry.backoff", text)?,
            None => RetryPolicy::default().backoff,
        };
        let on = RetryPatterns::compile(retry.on.iter().map(|pattern| pattern.get_ref().as_str())).map_err(
            |(index, reason)| {
                let pattern = &retry.on[index];
                self.invalid(
                    pattern.span().start,
                    format!(
                        "`retry.on[{index}] = \"{}\"` of `{path}` is not a valid regular expression: {reason}",
                        pattern.get_ref()
                    ),
                )
            },
        )?;
        Ok(RetryPolicy { attempts, backoff, on })
    }

    fn gate(&self, path: &ProjectPath, index: usize, gate: Spanned<GateFile>) -> Result<ReadinessGate> {
        let start = gate.span().start;
        let gate = gate.into_inner();
        let key = format!("ready[{index}]");
        let ca_file_at = gate.ca_file.as_ref().map(|file| file.span().start);
        let kubernetes_only = gate.namespace.as_ref().or(gate.context.as_ref()).map(|text| text.span().start);
        if let Some(kubernetes) = gate.kubernetes {
            let other_checks = [
                gate.command.as_ref().map(|argv| argv.span()),
                gate.http.as_ref().map(|url| url.span()),
                gate.tcp.as_ref().map(|address| address.span()),
            ];
            if let Some(other) = other_checks.into_iter().flatten().next() {
                return Err(self.invalid(
                    other.start,
                    format!("`{key}` of `{path}` needs exactly one of `command`, `http`, `tcp` or `kubernetes`"),
                ));
            }
            if let Some(offset) = ca_file_at {
                return Err(self.invalid(offset, format!("`{key}.ca_file` of `{path}` applies to `http` gates only")));
            }
            let check = self.kubernetes_check(path, &key, kubernetes, gate.namespace, gate.context)?;
            return self.timed_gate(path, &key, check, gate.timeout, gate.interval);
        }
        if let Some(offset) = kubernetes_only {
            return Err(self.invalid(
                offset,
                format!("`{key}.namespace` and `{key}.context` of `{path}` apply to `kubernetes` gates only"),
            ));
        }
        let check = match (gate.command, gate.http, gate.tcp) {
            (Some(argv), None, None) if !argv.get_ref().is_empty() => GateCheck::Command(argv.into_inner()),
            (Some(argv), None, None) => {
                return Err(self.invalid(argv.span().start, format!("`{key}.command` of `{path}` is empty: name a program")))
            }
            (None, Some(url), None) => {
                let text = url.get_ref();
                let scheme_ok = ["http://", "https://"].iter().any(|scheme| {
                    text.get(..scheme.len()).is_some_and(|prefix| prefix.eq_ignore_ascii_case(scheme))
                });
                if !scheme_ok || reqwest::Url::parse(text).is_err() {
                    return Err(self.invalid(
                        url.span().start,
                        format!("`{key}.http = \"{text}\"` of `{path}` is not an `http://` or `https://` URL"),
                    ));
                }
                let ca_file = gate.ca_file.map(|file| self.root.resolve(Path::new(file.get_ref())));
                GateCheck::Http { url: url.into_inner(), expect_body: gate.expect_body, ca_file }
            }
            (None, None, Some(address)) if address.get_ref().contains(':') => GateCheck::Tcp(address.into_inner()),
            (None, None, Some(address)) => {
                return Err(self.invalid(
                    address.span().start,
                    format!("`{key}.tcp = \"{}\"` of `{path}` is not `host:port`", address.get_ref()),
                ))
            }
            _ => {
                return Err(self.invalid(
                    start,
                    format!(
                        "`{key}` of `{path}` needs exactly one of `command = [...]`, `http = \"http(s)://...\"`, `tcp = \"host:port\"` or `kubernetes = \"kind/name\"`"
                    ),
                ))
            }
        };
        if let (Some(offset), false) = (ca_file_at, matches!(check, GateCheck::Http { .. })) {
            return Err(self.invalid(offset, format!("`{key}.ca_file` of `{path}` applies to `http` gates only")));
        }
        self.timed_gate(path, &key, check, gate.timeout, gate.interval)
    }

    fn timed_gate(
        &self,
        path: &ProjectPath,
        key: &str,
        check: GateCheck,
        timeout: Option<Spanned<String>>,
        interval: Option<Spanned<String>>,
    ) -> Result<ReadinessGate> {
        let timeout = match &timeout {
            Some(text) => self.duration(path, &format!("{key}.timeout"), text)?,
            None => ReadinessGate::DEFAULT_TIMEOUT,
        };
        let interval = match &interval {
            Some(text) => self.duration(path, &format!("{key}.interval"), text)?,
            None => ReadinessGate::DEFAULT_INTERVAL,
        };
        Ok(ReadinessGate { check, timeout, interval })
    }

    /// `kubernetes = "service/webhook"`, with `namespace` for the namespaced kinds only.
    fn kubernetes_check(
        &self,
        path: &ProjectPath,
        key: &str,
        object: Spanned<String>,
        namespace: Option<Spanned<String>>,
        context: Option<Spanned<String>>,
    ) -> Result<GateCheck> {
        let text = object.get_ref();
        let known = KubernetesKind::NAMES.iter().map(|(_, names)| names.join(" or ")).collect::<Vec<_>>().join(", ");
        let (kind, name) = match text.split_once('/') {
            Some((kind, name)) if !name.is_empty() && !name.contains('/') => (kind, name),
            _ => {
                return Err(self.invalid(
                    object.span().start,
                    format!("`{key}.kubernetes = \"{text}\"` of `{path}` is not `kind/name` (kinds: {known})"),
                ))
            }
        };
        let Some(kind) = KubernetesKind::from_name(kind) else {
            return Err(self.invalid(
                object.span().start,
                format!(
                    "`{key}.kubernetes = \"{text}\"` of `{path}` names no kind a gate can wait for (kinds: {known})"
                ),
            ));
        };
        let namespace = match (kind.namespaced(), namespace) {
            (true, Some(namespace)) => Some(namespace.into_inner()),
            (true, None) => Some("default".to_string()),
            (false, Some(namespace)) => {
                return Err(self.invalid(
                    namespace.span().start,
                    format!("`{key}.namespace` of `{path}`: a {} is not namespaced", kind.name()),
                ))
            }
            (false, None) => None,
        };
        let object = KubernetesObject { kind, name: name.to_string(), namespace };
        Ok(GateCheck::Kubernetes { object, context: context.map(Spanned::into_inner) })
    }

    fn prerequisite(&self, path: &ProjectPath, index: usize, raw: PrerequisiteFile) -> Result<Prerequisite> {
        Ok(Prerequisite {
            project: ProjectPath::new(raw.project.get_ref()),
            succeeded_within: self.duration(
                path,
                &format!("prerequisites[{index}].succeeded_within"),
                &raw.succeeded_within,
            )?,
        })
    }
}

/// The cluster rule is only meaningful one way: infrastructure provides, kubernetes needs.
pub(super) fn check_cluster_marks(project: &Project, location: &Location) -> Result<()> {
    if project.provides_cluster && project.phase == Phase::Kubernetes {
        return Err(UserError::InvalidFile {
            location: location.clone(),
            message: format!(
                "`provides_cluster = true` on `{}`, a kubernetes-phase project: mark the infrastructure project that makes the cluster usable",
                project.path
            ),
        });
    }
    if project.needs_cluster && project.phase == Phase::Infrastructure {
        return Err(UserError::InvalidFile {
            location: location.clone(),
            message: format!(
                "`needs_cluster = true` on `{}`: only kubernetes-phase projects wait for the cluster",
                project.path
            ),
        });
    }
    Ok(())
}
