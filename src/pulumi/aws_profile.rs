//! The keys `aws configure` writes, read as the AWS SDK (and so Pulumi's `s3://` driver) reads
//! them when no key is in the environment: the profile `AWS_PROFILE` names (else `default`) in
//! the shared credentials file, then in the config file, with the region the config file gives
//! it. Profiles that sign in some other way (SSO, an assumed role, `credential_process`) are named,
//! not followed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::object_store_error::ObjectStoreError;
use super::ChildEnvironment;

/// No `Debug`: it holds the secret key.
pub struct AwsProfile {
    pub access_key: String,
    pub secret_key: String,
    pub session_token: Option<String>,
}

/// The two shared files and the profile asked for, as read once.
struct SharedFiles {
    credentials_file: Option<PathBuf>,
    config_file: Option<PathBuf>,
    credentials: BTreeMap<String, BTreeMap<String, String>>,
    config: BTreeMap<String, BTreeMap<String, String>>,
    /// `AWS_PROFILE`, else `AWS_DEFAULT_PROFILE`, when set.
    named: Option<String>,
}

impl SharedFiles {
    fn read(environment: &ChildEnvironment) -> Self {
        let home = environment.get("HOME").map(PathBuf::from);
        let file = |variable: &str, default: &str| {
            environment.get(variable).map(PathBuf::from).or_else(|| home.as_ref().map(|home| home.join(default)))
        };
        let credentials_file = file("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials");
        let config_file = file("AWS_CONFIG_FILE", ".aws/config");
        Self {
            credentials: credentials_file.as_deref().map(read_ini).unwrap_or_default(),
            config: config_file.as_deref().map(read_ini).unwrap_or_default(),
            credentials_file,
            config_file,
            named: environment
                .get("AWS_PROFILE")
                .or_else(|| environment.get("AWS_DEFAULT_PROFILE"))
                .map(str::to_string),
        }
    }

    fn profile(&self) -> &str {
        self.named.as_deref().unwrap_or("default")
    }

    /// The config file names every profile but `default` `[profile NAME]`.
    fn config_section(&self) -> Option<&BTreeMap<String, String>> {
        let profile = self.profile();
        self.config
            .get(&format!("profile {profile}"))
            .or_else(|| self.config.get(profile).filter(|_| profile == "default"))
    }
}

impl AwsProfile {
    /// `Ok(None)` when neither file has the profile and none was asked for by name.
    pub fn from_environment(environment: &ChildEnvironment) -> Result<Option<Self>, ObjectStoreError> {
        let files = SharedFiles::read(environment);
        let profile = files.profile();
        let config_section = files.config_section();
        let section =
            files.credentials.get(profile).filter(|keys| keys.contains_key("aws_access_key_id")).or(config_section);
        let Some(section) = section else {
            return match &files.named {
                Some(named) => Err(ObjectStoreError::InvalidCredentials(format!(
                    "the AWS profile `{named}` is in neither `{}` nor `{}`",
                    shown(files.credentials_file.as_deref()),
                    shown(files.config_file.as_deref())
                ))),
                None => Ok(None),
            };
        };
        match (section.get("aws_access_key_id"), section.get("aws_secret_access_key")) {
            (Some(access_key), Some(secret_key)) => Ok(Some(Self {
                access_key: access_key.clone(),
                secret_key: secret_key.clone(),
                session_token: section.get("aws_session_token").cloned(),
            })),
            _ => Err(ObjectStoreError::InvalidCredentials(format!(
                "the AWS profile `{profile}` has no `aws_access_key_id` with `aws_secret_access_key` (the runner does not follow SSO, role or `credential_process` profiles): export its keys with `aws configure export-credentials --profile {profile} --format env`"
            ))),
        }
    }

    /// The config file's `region` for the profile, wherever the keys come from: the SDK reads
    /// it after `AWS_REGION`.
    pub fn region(environment: &ChildEnvironment) -> Option<String> {
        SharedFiles::read(environment).config_section().and_then(|keys| keys.get("region")).cloned()
    }
}

fn shown(path: Option<&Path>) -> String {
    path.map_or_else(|| "~/.aws/...".to_string(), |path| path.display().to_string())
}

/// Sections of an AWS INI file, their keys lowercased; a file that cannot be read has none.
fn read_ini(path: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut sections: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|rest| rest.strip_suffix(']')) {
            let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
            current = Some(name.clone());
            sections.entry(name).or_default();
        } else if let (Some(section), Some((key, value))) = (&current, line.split_once('=')) {
            let entry = sections.entry(section.clone()).or_default();
            entry.insert(key.trim().to_ascii_lowercase(), value.trim().to_string());
        }
    }
    sections
}

#[cfg(test)]
#[path = "aws_profile_tests.rs"]
mod tests;
