use std::collections::{BTreeSet, HashMap, HashSet};

use crate::provider::ProjectPath;

/// Which projects of an `up` may be skipped, and what each one's fingerprint compares. A skip
/// itself is proven from the backend (`ProjectCli::deployed_fingerprint`): this rule only narrows
/// where the proof is asked for, and never stands in for it.
#[derive(Debug, Default)]
pub(crate) struct UnchangedRule {
    /// In the run only as dependents, and allowed to be skipped (no `--no-skip-unchanged`, no
    /// `always_run`, no unfinished `up` recorded here).
    pub candidates: HashSet<ProjectPath>,
    /// The upstream output names a project's program reads, where the runner can see them.
    pub reads: HashMap<ProjectPath, BTreeSet<String>>,
    /// The upstream projects a project's program references, where known: only their outputs
    /// are compared.
    pub referenced: HashMap<ProjectPath, BTreeSet<ProjectPath>>,
}

impl UnchangedRule {
    pub(crate) fn new(candidates: HashSet<ProjectPath>, reads: HashMap<ProjectPath, BTreeSet<String>>) -> Self {
        Self { candidates, reads, referenced: HashMap::new() }
    }

    /// Whether `project` may be skipped at all: a dependent, with an upstream to compare.
    pub(crate) fn may_skip(&self, project: &ProjectPath, upstream: &[ProjectPath]) -> bool {
        self.candidates.contains(project) && !upstream.is_empty()
    }

    /// The upstream projects whose outputs `project`'s fingerprint holds: those its program
    /// references, or every one when it references none of them (they are read some other way).
    /// The same for the `up` that records a fingerprint and the run that compares it.
    pub(crate) fn compared_upstream(&self, project: &ProjectPath, upstream: &[ProjectPath]) -> Vec<ProjectPath> {
        let referenced: Vec<ProjectPath> = match self.referenced.get(project) {
            Some(read) => upstream.iter().filter(|path| read.contains(*path)).cloned().collect(),
            None => Vec::new(),
        };
        let mut compared = if referenced.is_empty() { upstream.to_vec() } else { referenced };
        compared.sort();
        compared
    }

    pub(crate) fn reads(&self, project: &ProjectPath) -> Option<&BTreeSet<String>> {
        self.reads.get(project)
    }

    /// Shown after the result: `app unchanged: outputs of network are the same`.
    pub(crate) fn reason(compared: &[ProjectPath]) -> String {
        let names: Vec<&str> = compared.iter().map(ProjectPath::as_str).collect();
        format!("outputs of {} are the same", names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_upstream_projects_a_program_references_are_compared() {
        let (net, cluster, app) = (ProjectPath::new("net"), ProjectPath::new("cluster"), ProjectPath::new("app"));
        let mut rule = UnchangedRule::new([app.clone()].into(), HashMap::new());
        let both = [net.clone(), cluster.clone()];
        assert_eq!(rule.compared_upstream(&app, &both), [cluster.clone(), net.clone()]);
        rule.referenced.insert(app.clone(), [cluster.clone()].into());
        assert_eq!(rule.compared_upstream(&app, &both), std::slice::from_ref(&cluster));
        rule.referenced.insert(app.clone(), [ProjectPath::new("elsewhere")].into());
        assert_eq!(rule.compared_upstream(&app, &both), [cluster.clone(), net.clone()], "none of its dependencies");
        assert!(rule.may_skip(&app, &both));
        assert!(!rule.may_skip(&app, &[]), "a root has nothing to compare");
        assert!(!rule.may_skip(&net, &both), "not a candidate");
        assert_eq!(UnchangedRule::reason(&[cluster, net]), "outputs of cluster, net are the same");
    }
}
