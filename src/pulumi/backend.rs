use std::path::{Path, PathBuf};

use super::ChildEnvironment;

/// Where Pulumi keeps state. A file backend can be inspected directly, which saves processes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Backend {
    pub url: String,
    local_dir: Option<PathBuf>,
    organization: String,
}

impl Backend {
    pub(crate) fn from_environment(env: &ChildEnvironment) -> Self {
        let url = env.get("PULUMI_BACKEND_URL").unwrap_or("https://api.pulumi.com").to_string();
        let local_dir = url.strip_prefix("file://").map(|rest| {
            let rest = rest.split('?').next().unwrap_or(rest);
            if rest.starts_with('~') {
                std::env::var_os("HOME")
                    .map(PathBuf::from)
                    .unwrap_or_default()
                    .join(rest.trim_start_matches(['~', '/']))
            } else {
                PathBuf::from(rest)
            }
        });
        let organization = env.get("PULUMI_ORGANIZATION").unwrap_or("organization").to_string();
        Self { url, local_dir, organization }
    }

    pub(crate) fn is_local(&self) -> bool {
        self.local_dir.is_some()
    }

    /// `organization/<project>/<stack>`: unambiguous on every backend, and no `stack select` needed.
    pub(crate) fn qualified_stack(&self, project_name: &str, stack: &str) -> String {
        format!("{}/{project_name}/{stack}", self.organization)
    }

    pub(crate) fn organization(&self) -> &str {
        &self.organization
    }

    /// `Some(exists)` on a file backend, `None` where only Pulumi can tell.
    pub(crate) fn stack_exists(&self, project_name: &str, stack: &str) -> Option<bool> {
        let dir = self.local_dir.as_ref()?.join(".pulumi").join("stacks").join(project_name);
        Some(["json", "json.gz"].iter().any(|ext| dir.join(format!("{stack}.{ext}")).is_file()))
    }

    /// Lock files left for a stack on a file backend.
    pub(crate) fn lock_files(&self, project_name: &str, stack: &str) -> Vec<PathBuf> {
        let Some(root) = &self.local_dir else { return Vec::new() };
        let candidates = [
            root.join(".pulumi/locks").join(&self.organization).join(project_name).join(stack),
            root.join(".pulumi/locks").join(project_name).join(stack),
        ];
        let mut files = Vec::new();
        for dir in candidates {
            if let Ok(entries) = std::fs::read_dir(&dir) {
                files.extend(
                    entries.filter_map(|entry| entry.ok()).map(|entry| entry.path()).filter(|path| path.is_file()),
                );
            }
        }
        files
    }

    /// Every backend but the Pulumi Cloud service encrypts with a passphrase by default, one salt
    /// per stack file: a file shared by several stacks then decrypts in all of them. The service
    /// keys each stack separately.
    pub(crate) fn uses_passphrase(&self) -> bool {
        !(self.url.starts_with("https://") || self.url.starts_with("http://"))
    }

    pub(crate) fn local_dir(&self) -> Option<&Path> {
        self.local_dir.as_deref()
    }
}
