use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::provider::Provider;
use crate::pulumi::{ChildEnvironment, YamlProgram};

/// One resource plugin a provider's programs need: installed, or how to install it.
pub(crate) struct PluginFinding {
    pub check: String,
    pub ok: bool,
    pub detail: String,
}

/// The resource plugins the provider's Pulumi YAML programs use (the package of each resource
/// type, `kubernetes` for `kubernetes:core/v1:Namespace` and `pulumi:providers:kubernetes`),
/// each looked for in Pulumi's plugin folder (`PULUMI_HOME`, else `~/.pulumi`). Pulumi downloads
/// a missing plugin on the first `up`; where releases cannot be reached (this machine, an
/// air-gapped runner) that `up` fails on it instead, after the projects before it ran.
pub(crate) fn plugin_findings(provider: &Provider, environment: &ChildEnvironment, root: &Path) -> Vec<PluginFinding> {
    let packages: BTreeSet<String> =
        provider.projects.iter().flat_map(|project| yaml_packages(&provider.dir_of(project))).collect();
    let Some(plugins) = plugin_folder(environment) else { return Vec::new() };
    packages
        .into_iter()
        .map(|package| {
            let installed = installed_versions(&plugins, &package);
            let ok = !installed.is_empty();
            let detail = if ok {
                format!("resource plugin {} installed", installed.join(", "))
            } else if package == "kubernetes" && root.join("scripts/install-kubernetes-provider.sh").is_file() {
                "not installed: `bash scripts/install-kubernetes-provider.sh` builds and installs it (about 13 minutes, once)"
                    .to_string()
            } else {
                format!("not installed: `pulumi plugin install resource {package}`, or Pulumi downloads it on the first `up`")
            };
            PluginFinding { check: format!("{package} plugin"), ok, detail }
        })
        .collect()
}

/// The packages of the resource types a YAML program declares (`Pulumi.yaml`, `Main.yaml`).
fn yaml_packages(folder: &Path) -> BTreeSet<String> {
    let Some(program) = YamlProgram::load(folder) else { return BTreeSet::new() };
    program
        .resources()
        .filter_map(|(_, resource)| resource.get("type").and_then(serde_norway::Value::as_str).and_then(package_of))
        .collect()
}

/// `kubernetes` of `kubernetes:core/v1:Namespace` and of `pulumi:providers:kubernetes`; none for
/// what the engine itself provides (`pulumi:index:Stash`, `pulumi:pulumi:StackReference`).
fn package_of(resource_type: &str) -> Option<String> {
    let mut parts = resource_type.split(':');
    match (parts.next()?, parts.next(), parts.next()) {
        ("pulumi", Some("providers"), Some(package)) if !package.is_empty() => Some(package.to_string()),
        ("pulumi", _, _) => None,
        (package, Some(_), _) if !package.is_empty() => Some(package.to_string()),
        _ => None,
    }
}

fn plugin_folder(environment: &ChildEnvironment) -> Option<PathBuf> {
    match environment.get("PULUMI_HOME") {
        Some(home) => Some(PathBuf::from(home).join("plugins")),
        None => Some(PathBuf::from(environment.get("HOME")?).join(".pulumi/plugins")),
    }
}

/// `kubernetes-4.25.0` for each complete `resource-kubernetes-v4.25.0` folder (one Pulumi is not
/// still writing: no `.partial` marker beside it).
fn installed_versions(plugins: &Path, package: &str) -> Vec<String> {
    let prefix = format!("resource-{package}-v");
    let Ok(entries) = std::fs::read_dir(plugins) else { return Vec::new() };
    let mut versions: Vec<String> = entries
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let version = name.strip_prefix(&prefix)?.to_string();
            let partial = plugins.join(format!("{name}.partial")).exists();
            (!partial).then(|| format!("{package}-{version}"))
        })
        .collect();
    versions.sort();
    versions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_package_of_each_kind_of_type() {
        assert_eq!(package_of("kubernetes:core/v1:Namespace").as_deref(), Some("kubernetes"));
        assert_eq!(package_of("kubernetes:yaml/v2:ConfigGroup").as_deref(), Some("kubernetes"));
        assert_eq!(package_of("pulumi:providers:kubernetes").as_deref(), Some("kubernetes"));
        assert_eq!(package_of("aws:s3/bucket:Bucket").as_deref(), Some("aws"));
        assert_eq!(package_of("pulumi:index:Stash"), None);
        assert_eq!(package_of("pulumi:pulumi:StackReference"), None);
        assert_eq!(package_of("nocolon"), None);
        assert_eq!(package_of(":x"), None);
    }

    #[test]
    fn a_plugin_is_installed_only_once_complete() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("resource-kubernetes-v4.25.0")).unwrap();
        std::fs::create_dir_all(dir.path().join("resource-kubernetes-v4.26.0")).unwrap();
        std::fs::write(dir.path().join("resource-kubernetes-v4.26.0.partial"), "").unwrap();
        std::fs::create_dir_all(dir.path().join("resource-kubernetes-extra-v1.0.0")).unwrap();
        assert_eq!(installed_versions(dir.path(), "kubernetes"), ["kubernetes-4.25.0"]);
        assert!(installed_versions(dir.path(), "aws").is_empty());
    }
}
