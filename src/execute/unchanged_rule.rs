use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Mutex;

use super::{DigestSalt, OutputDigests, SeenInputs};
use crate::provider::ProjectPath;

/// When a project of a run need not run: it is there only as a dependent, its own inputs are
/// what its last successful `up` saw, and so are the outputs it reads from its upstream projects.
/// Also the book of what each `up` saw, kept up to date as this run's projects end.
#[derive(Debug)]
pub struct UnchangedRule {
    pub salt: DigestSalt,
    /// In the run only as dependents, and allowed to be skipped (no `--no-skip-unchanged`, no
    /// `always_run`).
    pub candidates: HashSet<ProjectPath>,
    /// The upstream output names a project's program reads, where the runner can see them.
    pub reads: HashMap<ProjectPath, BTreeSet<String>>,
    /// The upstream projects a project's program or deployed state references, where known:
    /// only their outputs are compared.
    pub referenced: HashMap<ProjectPath, BTreeSet<ProjectPath>>,
    seen: Mutex<HashMap<ProjectPath, SeenInputs>>,
}

impl Default for UnchangedRule {
    fn default() -> Self {
        Self::new(DigestSalt::new(Vec::new()), HashSet::new(), HashMap::new(), HashMap::new())
    }
}

impl UnchangedRule {
    pub fn new(
        salt: DigestSalt,
        candidates: HashSet<ProjectPath>,
        reads: HashMap<ProjectPath, BTreeSet<String>>,
        seen: HashMap<ProjectPath, SeenInputs>,
    ) -> Self {
        Self { salt, candidates, reads, referenced: HashMap::new(), seen: Mutex::new(seen) }
    }

    fn seen(&self, project: &ProjectPath) -> Option<SeenInputs> {
        self.seen.lock().ok().and_then(|seen| seen.get(project).cloned())
    }

    fn note(&self, project: &ProjectPath, record: &SeenInputs) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.insert(project.clone(), record.clone());
        }
    }

    fn outputs_of(&self, project: &ProjectPath) -> Option<OutputDigests> {
        self.seen(project).and_then(|record| record.outputs)
    }

    /// Why `project` need not run now, or `None` when it must (or when anything is unknown).
    pub fn skip_reason(&self, project: &ProjectPath, upstream: &[ProjectPath], inputs: Option<&str>) -> Option<String> {
        if !self.candidates.contains(project) || upstream.is_empty() {
            return None;
        }
        let last = self.seen(project)?;
        let referenced: Vec<ProjectPath> = match self.referenced.get(project) {
            Some(read) => upstream.iter().filter(|path| read.contains(*path)).cloned().collect(),
            None => Vec::new(),
        };
        // References to none of its dependencies: they are read some other way.
        let upstream = if referenced.is_empty() { upstream } else { referenced.as_slice() };
        if inputs.is_none() || last.inputs.as_deref() != inputs {
            return None;
        }
        let now: Vec<(String, Option<OutputDigests>)> =
            upstream.iter().map(|path| (path.to_string(), self.outputs_of(path))).collect();
        let changed = last.changed_upstream(
            now.iter().map(|(path, digests)| (path.as_str(), digests.as_ref())),
            self.reads.get(project),
        )?;
        if !changed.is_empty() {
            return None;
        }
        let mut names: Vec<String> = upstream.iter().map(ToString::to_string).collect();
        names.sort();
        // Shown after the result: `app unchanged: outputs of network are the same`.
        Some(format!("outputs of {} are the same", names.join(", ")))
    }

    /// After a successful `up`: what it saw. `fresh` differs between operations, so a secret
    /// output (never visible in the event log) counts as changed by each `up`.
    pub fn record_up(
        &self,
        project: &ProjectPath,
        upstream: &[ProjectPath],
        inputs: Option<String>,
        outputs: Option<&serde_json::Map<String, serde_json::Value>>,
        fresh: &str,
    ) -> SeenInputs {
        let previous = self.outputs_of(project);
        let record = SeenInputs {
            inputs,
            outputs: outputs.map(|outputs| self.salt.output_digests(outputs, previous.as_ref(), fresh)),
            upstream: upstream.iter().filter_map(|path| Some((path.to_string(), self.outputs_of(path)?))).collect(),
        };
        self.note(project, &record);
        record
    }

    /// After a successful `refresh`: the outputs it showed, the rest as the last `up` saw it.
    /// A refresh runs no program, so a secret keeps its digest.
    pub fn record_refresh(
        &self,
        project: &ProjectPath,
        outputs: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> Option<SeenInputs> {
        let mut record = self.seen(project)?;
        let outputs = outputs?;
        record.outputs = Some(self.salt.output_digests(outputs, record.outputs.as_ref(), ""));
        self.note(project, &record);
        Some(record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_upstream_projects_a_program_references_are_compared() {
        let (net, cluster, app) = (ProjectPath::new("net"), ProjectPath::new("cluster"), ProjectPath::new("app"));
        let outputs = |value: &str| serde_json::json!({ "v": value }).as_object().cloned().unwrap();
        let mut rule =
            UnchangedRule::new(DigestSalt::new(b"s".to_vec()), [app.clone()].into(), HashMap::new(), HashMap::new());
        rule.record_up(&net, &[], Some("n".into()), Some(&outputs("1")), "");
        rule.record_up(&cluster, &[], Some("c".into()), Some(&outputs("1")), "");
        let both = [net.clone(), cluster.clone()];
        rule.record_up(&app, &both, Some("a".into()), Some(&outputs("1")), "");
        rule.record_up(&net, &[], Some("n".into()), Some(&outputs("2")), "");
        assert_eq!(rule.skip_reason(&app, &both, Some("a")), None, "net's outputs changed");
        rule.referenced.insert(app.clone(), [cluster.clone()].into());
        assert_eq!(rule.skip_reason(&app, &both, Some("a")).as_deref(), Some("outputs of cluster are the same"));
        assert_eq!(rule.skip_reason(&app, &both, Some("other inputs")), None);
    }
}
