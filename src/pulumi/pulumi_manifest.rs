use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_norway::Value;

/// The parts of a project's `Pulumi.yaml` the runner needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PulumiManifest {
    pub name: String,
    pub runtime: String,
    /// MARA's projects point at a shared config folder with `config: ../../config/pulumi`.
    pub config_dir: Option<PathBuf>,
}

/// Why a project's `Pulumi.yaml` cannot be used; the cause kept as `source()`.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ManifestError {
    #[error("no `Pulumi.yaml` in `{}`", crate::error::shown_path(.0))]
    Missing(PathBuf),
    #[error("cannot read `{}`", crate::error::shown_path(.0))]
    Unreadable(PathBuf, #[source] std::io::Error),
    #[error("`{}` is not valid", crate::error::shown_path(.0))]
    Invalid(PathBuf, #[source] serde_norway::Error),
    #[error("`{}` has no `name`", crate::error::shown_path(.0))]
    Unnamed(PathBuf),
}

#[derive(Deserialize)]
struct RawManifest {
    name: Option<String>,
    runtime: Option<Value>,
    config: Option<Value>,
    #[serde(rename = "stackConfigDir")]
    stack_config_dir: Option<String>,
}

impl PulumiManifest {
    pub(crate) fn load(project_dir: &Path) -> Result<Self, ManifestError> {
        let path = ["Pulumi.yaml", "Pulumi.yml"]
            .iter()
            .map(|name| project_dir.join(name))
            .find(|path| path.is_file())
            .ok_or_else(|| ManifestError::Missing(project_dir.to_path_buf()))?;
        let text = std::fs::read_to_string(&path).map_err(|err| ManifestError::Unreadable(path.clone(), err))?;
        Self::parse(&path, &text, project_dir)
    }

    pub(crate) fn parse(path: &Path, text: &str, project_dir: &Path) -> Result<Self, ManifestError> {
        let raw: RawManifest =
            serde_norway::from_str(text).map_err(|err| ManifestError::Invalid(path.to_path_buf(), err))?;
        let name = raw
            .name
            .filter(|name| !name.trim().is_empty())
            .ok_or_else(|| ManifestError::Unnamed(path.to_path_buf()))?;
        let runtime = match raw.runtime {
            Some(Value::String(runtime)) => runtime,
            Some(Value::Mapping(map)) => map.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
            _ => String::new(),
        };
        let config_dir = match (raw.stack_config_dir, raw.config) {
            (Some(dir), _) | (None, Some(Value::String(dir))) => {
                Some(crate::config::normalize_path(&project_dir.join(dir)))
            }
            _ => None,
        };
        Ok(Self { name, runtime, config_dir })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_mara_manifest_with_config_folder() {
        let text = "name: aws-vpc\nruntime:\n  name: python\n  options:\n    virtualenv: ../../../venv\nconfig: ../../../../../config/pulumi\ndescription: VPC standup\n";
        let manifest =
            PulumiManifest::parse(Path::new("Pulumi.yaml"), text, Path::new("/r/pulumi/python/infrastructure/aws/vpc"))
                .unwrap();
        assert_eq!(manifest.name, "aws-vpc");
        assert_eq!(manifest.runtime, "python");
        assert_eq!(manifest.config_dir, Some(PathBuf::from("/r/config/pulumi")));
    }

    #[test]
    fn reads_yaml_runtime_string() {
        let manifest =
            PulumiManifest::parse(Path::new("Pulumi.yaml"), "name: net\nruntime: yaml\n", Path::new("/p")).unwrap();
        assert_eq!(manifest.runtime, "yaml");
        assert_eq!(manifest.config_dir, None);
    }

    #[test]
    fn a_name_is_required() {
        assert!(PulumiManifest::parse(Path::new("Pulumi.yaml"), "runtime: yaml\n", Path::new("/p")).is_err());
    }
}
