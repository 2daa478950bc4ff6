//! The keys `aws configure` writes, read as the AWS SDK (and so Pulumi's `s3://` driver) reads
//! them when no key is in the environment: the profile `AWS_PROFILE` names (else `default`) in
//! the shared credentials file, then in the config file, with the region the config file gives
//! it. A profile's `credential_process` is run; profiles that sign in some other way (SSO, an
//! assumed role) are named, not followed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::token_cache::{cached_token, AccessToken};
use crate::backend::store::object_store_error::ObjectStoreError;
use crate::backend::RunEnvironment;
use crate::cancel::{Cancellation, ChildProcess};

/// What the AWS SDK gives a `credential_process` before it gives up.
const CREDENTIAL_PROCESS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// No `Debug`: it holds the secret key.
pub(crate) struct AwsProfile {
    pub access_key: String,
    pub secret_key: String,
    pub session_token: Option<String>,
}

/// The two shared files and the profile asked for, read once for a client's region and keys.
pub(crate) struct AwsSharedFiles {
    credentials_file: Option<PathBuf>,
    config_file: Option<PathBuf>,
    credentials: BTreeMap<String, BTreeMap<String, String>>,
    config: BTreeMap<String, BTreeMap<String, String>>,
    /// `AWS_PROFILE`, else `AWS_DEFAULT_PROFILE`, when set.
    named: Option<String>,
}

impl AwsSharedFiles {
    pub(crate) fn read(environment: &dyn RunEnvironment) -> Self {
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

    /// The config file's `region` for the profile, wherever the keys come from: the SDK reads
    /// it after `AWS_REGION`.
    pub(crate) fn region(&self) -> Option<String> {
        self.config_section().and_then(|keys| keys.get("region")).cloned()
    }

    /// The profile's keys; `Ok(None)` when neither file has the profile and none was asked for
    /// by name.
    pub(crate) fn keys(&self, environment: &dyn RunEnvironment) -> Result<Option<AwsProfile>, ObjectStoreError> {
        let profile = self.profile();
        let config_section = self.config_section();
        let section =
            self.credentials.get(profile).filter(|keys| keys.contains_key("aws_access_key_id")).or(config_section);
        let Some(section) = section else {
            return match &self.named {
                Some(named) => Err(ObjectStoreError::InvalidCredentials(format!(
                    "the AWS profile `{named}` is in neither `{}` nor `{}`",
                    shown(self.credentials_file.as_deref()),
                    shown(self.config_file.as_deref())
                ))),
                None => Ok(None),
            };
        };
        match (section.get("aws_access_key_id"), section.get("aws_secret_access_key")) {
            (Some(access_key), Some(secret_key)) => Ok(Some(AwsProfile {
                access_key: access_key.clone(),
                secret_key: secret_key.clone(),
                session_token: section.get("aws_session_token").cloned(),
            })),
            _ => match section.get("credential_process") {
                Some(command) => credential_process(profile, command, environment).map(Some),
                None => Err(ObjectStoreError::InvalidCredentials(format!(
                    "the AWS profile `{profile}` has neither `aws_access_key_id` with `aws_secret_access_key` nor `credential_process` (the runner does not follow SSO or role profiles): export its keys with `aws configure export-credentials --profile {profile} --format env`"
                ))),
            },
        }
    }
}

impl AwsProfile {
    /// The keys of the profile the environment names, from its shared files.
    pub(crate) fn from_environment(environment: &dyn RunEnvironment) -> Result<Option<Self>, ObjectStoreError> {
        AwsSharedFiles::read(environment).keys(environment)
    }
}

/// The profile's `credential_process`, run as the AWS SDK runs it (`sh -c`, the run's
/// environment) and read as it reads it (`Version` 1, the keys, `Expiration`). Its answer is kept
/// like a token, so a run asks once however many projects it reads.
fn credential_process(
    profile: &str,
    command: &str,
    environment: &dyn RunEnvironment,
) -> Result<AwsProfile, ObjectStoreError> {
    let failed = |why: String| {
        ObjectStoreError::InvalidCredentials(format!("the `credential_process` of the AWS profile `{profile}` {why}"))
    };
    let answer = cached_token(&["aws-credential-process", command], || {
        let output = ChildProcess::new("sh")
            .args(["-c", command])
            .env_clear()
            .envs(environment.vars())
            .timeout(CREDENTIAL_PROCESS_TIMEOUT)
            .output_blocking(&Cancellation::process());
        if !output.success() {
            return Err(failed(format!("failed ({}): {}", output.end.describe(), output.stderr_reason())));
        }
        let value = String::from_utf8_lossy(&output.stdout).into_owned();
        let expiration = serde_json::from_str::<serde_json::Value>(&value)
            .ok()
            .and_then(|answer| answer["Expiration"].as_str().map(str::to_string))
            .and_then(|stamp| OffsetDateTime::parse(&stamp, &Rfc3339).ok());
        let expires_in = expiration
            .map(|end| (end - OffsetDateTime::now_utc()).whole_seconds())
            .and_then(|seconds| u64::try_from(seconds).ok())
            .map(std::time::Duration::from_secs);
        Ok(AccessToken { value, expires_in })
    })?;
    let answer: serde_json::Value = serde_json::from_str(&answer).unwrap_or_default();
    let field = |name: &str| answer[name].as_str().filter(|value| !value.is_empty()).map(str::to_string);
    match (answer["Version"].as_i64(), field("AccessKeyId"), field("SecretAccessKey")) {
        (Some(1), Some(access_key), Some(secret_key)) => {
            Ok(AwsProfile { access_key, secret_key, session_token: field("SessionToken") })
        }
        _ => Err(failed("printed no JSON with `Version` 1, `AccessKeyId` and `SecretAccessKey`".to_string())),
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
