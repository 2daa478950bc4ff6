use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::write_atomically;
use crate::error::UserError;
use crate::execute::{DigestSalt, SeenInputs};
use crate::provider::ProjectPath;

/// `.runner/last-seen/<stack>.json`, next to the success index: what each project's last
/// successful `up` saw, as digests salted with the repository's `.runner/salt`, so no value
/// (a secret output, an environment entry) is kept in plain text. Written under the stack's lock.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeenIndex {
    /// By `provider/project`.
    projects: BTreeMap<String, SeenInputs>,
}

fn index_file(state_dir: &Path, stack: &str) -> PathBuf {
    state_dir.join("last-seen").join(format!("{stack}.json"))
}

fn key(provider: &str, project: &ProjectPath) -> String {
    format!("{provider}/{project}")
}

impl SeenIndex {
    /// A stack's index; empty when there is none or it cannot be read (everything then runs).
    pub fn load(state_dir: &Path, stack: &str) -> Self {
        std::fs::read(index_file(state_dir, stack))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    pub fn save(&self, state_dir: &Path, stack: &str) -> crate::error::Result<()> {
        let file = index_file(state_dir, stack);
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|err| UserError::Unwritable { path: dir.to_path_buf(), source: err })?;
        }
        let mut json = serde_json::to_vec_pretty(self).map_err(|err| UserError::Internal(err.to_string()))?;
        json.push(b'\n');
        write_atomically(&file, &json)
    }

    pub fn of_provider(&self, provider: &str, projects: &[ProjectPath]) -> HashMap<ProjectPath, SeenInputs> {
        projects
            .iter()
            .filter_map(|project| Some((project.clone(), self.projects.get(&key(provider, project))?.clone())))
            .collect()
    }

    pub fn record(&mut self, provider: &str, project: &ProjectPath, seen: SeenInputs) {
        self.projects.insert(key(provider, project), seen);
    }
}

/// The repository's salt, `.runner/salt`: made once from the system's random source.
pub fn repository_salt(state_dir: &Path) -> crate::error::Result<DigestSalt> {
    let file = state_dir.join("salt");
    if let Ok(text) = std::fs::read_to_string(&file) {
        if text.trim().len() >= 32 {
            return Ok(DigestSalt::new(text.trim().as_bytes().to_vec()));
        }
    }
    let mut bytes = [0u8; 32];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
        .map_err(|_| UserError::Internal("the system's random source failed".into()))?;
    let text: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    std::fs::create_dir_all(state_dir)
        .map_err(|err| UserError::Unwritable { path: state_dir.to_path_buf(), source: err })?;
    write_atomically(&file, format!("{text}\n").as_bytes())?;
    Ok(DigestSalt::new(text.into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_salt_is_made_once_and_differs_between_repositories() {
        let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let first = repository_salt(one.path()).unwrap();
        assert_eq!(repository_salt(one.path()).unwrap(), first);
        assert_ne!(repository_salt(two.path()).unwrap(), first);
    }

    #[test]
    fn records_round_trip_per_provider() {
        let dir = tempfile::tempdir().unwrap();
        let mut index = SeenIndex::default();
        let seen = SeenInputs { inputs: Some("d".into()), ..Default::default() };
        index.record("local", &ProjectPath::new("a"), seen.clone());
        index.save(dir.path(), "dev").unwrap();
        let loaded = SeenIndex::load(dir.path(), "dev");
        assert_eq!(loaded.of_provider("local", &[ProjectPath::new("a")])[&ProjectPath::new("a")], seen);
        assert!(loaded.of_provider("aws", &[ProjectPath::new("a")]).is_empty());
    }
}
