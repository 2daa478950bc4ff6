use std::collections::BTreeMap;

use super::{ProjectState, RunRecord};
use crate::plan::Operation;

/// Pulumi's history keeps whole seconds; the runner's record, milliseconds.
const CLOCK_SLACK: f64 = 2.0;

/// What `--resume` continues: every run of one operation on a stack since the last run of
/// another operation changed it, oldest first. A run with `--only` (or a resume) is one of
/// them, so what it left undone adds to what the earlier runs left, as `status` shows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ResumePoint {
    pub operation: Operation,
    pub runs: Vec<RunRecord>,
    /// Every recorded run of the stack, these included: what this working copy did to it.
    pub known: Vec<RunRecord>,
}

/// Where a stack's record stands for `--resume`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ResumeBasis {
    /// The runs to continue: nothing else changed the stack since they started, as far as
    /// this working copy's record knows.
    Continue(ResumePoint),
    /// The last run of the operation, and the later run of another operation that changed the
    /// stack since: its pending work may rest on what that run undid.
    Superseded { last: Box<RunRecord>, by: Box<RunRecord> },
    /// No run of the operation is recorded.
    Nothing,
}

impl ResumeBasis {
    /// From the runs of one provider's stack, oldest first.
    pub(crate) fn of(runs: &[RunRecord], operation: Operation) -> Self {
        let mut chain = Vec::new();
        let mut by = None;
        for run in runs.iter().rev() {
            if run.operation == operation {
                chain.push(run.clone());
            } else if run.operation.mutates() {
                by = Some(run.clone());
                break;
            }
        }
        if !chain.is_empty() {
            chain.reverse();
            return ResumeBasis::Continue(ResumePoint { operation, runs: chain, known: runs.to_vec() });
        }
        let last = runs.iter().rev().find(|run| run.operation == operation);
        match (last, by) {
            (Some(last), Some(by)) => ResumeBasis::Superseded { last: Box::new(last.clone()), by: Box::new(by) },
            _ => ResumeBasis::Nothing,
        }
    }
}

impl ResumePoint {
    /// Each planned project's latest result over the runs, and those that did not succeed
    /// (or never ended): what `--resume` runs again, before what waited on them is added.
    pub(crate) fn unfinished(&self) -> Vec<String> {
        self.latest().into_iter().filter(|(_, state)| state.needs_resume()).map(|(path, _)| path).collect()
    }

    /// The latest planned result of every project the runs planned. A prerequisite's own `up`
    /// inside a run is not planned work: it is left out.
    pub(crate) fn latest(&self) -> BTreeMap<String, ProjectState> {
        let mut latest = BTreeMap::new();
        for run in &self.runs {
            for record in run.projects.iter().filter(|record| record.operation.is_none()) {
                latest.insert(record.project.clone(), record.result);
            }
        }
        latest
    }

    /// When the first of the runs started (seconds since the epoch).
    pub(crate) fn since(&self) -> f64 {
        self.runs.first().map_or(0.0, |run| run.started)
    }

    pub(crate) fn run_ids(&self) -> Vec<&str> {
        self.runs.iter().map(|run| run.run_id.as_str()).collect()
    }

    /// Whether a run of this working copy did what a stack's history shows: `operation` on
    /// one of `projects` (those sharing the stack), from `started` to `ended` (seconds since the
    /// epoch). Any recorded run counts, not only these: whole seconds blur the moment one run
    /// ended and the next began. A record whose runner died has no end, and one it had not yet
    /// saved as started may have started any time after its run did.
    pub(crate) fn explains(
        &self,
        projects: &[&str],
        operation: Option<Operation>,
        started: f64,
        ended: Option<f64>,
    ) -> bool {
        let Some(operation) = operation else { return false };
        self.known.iter().any(|run| {
            let killed = run.ended.is_none();
            run.projects.iter().any(|record| {
                if !projects.contains(&record.project.as_str()) || run.operation_of(record) != operation {
                    return false;
                }
                let from = match record.started {
                    Some(from) => from,
                    None if killed => run.started,
                    None => return false,
                };
                let until = record.ended.unwrap_or(f64::INFINITY);
                started >= from - CLOCK_SLACK && ended.unwrap_or(started) <= until + CLOCK_SLACK
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{ProjectRecord, RunState};

    fn run(id: &str, started: f64, operation: Operation, results: &[(&str, ProjectState)]) -> RunRecord {
        RunRecord {
            run_id: id.into(),
            provider: "local".into(),
            stack: "dev".into(),
            operation,
            state: RunState::Finished,
            pid: 1,
            start_ticks: None,
            host: "h".into(),
            started,
            ended: Some(started + 50.0),
            recovered_locks: Vec::new(),
            pulumi_processes: Vec::new(),
            projects: results
                .iter()
                .map(|(path, result)| ProjectRecord {
                    result: *result,
                    started: Some(started + 1.0),
                    ended: Some(started + 10.0),
                    ..ProjectRecord::pending(path.to_string(), None)
                })
                .collect(),
        }
    }

    use Operation::{Destroy, Drift, Preview, Up};
    use ProjectState::{Cancelled, Failed, Pending, Skipped, Succeeded};

    #[test]
    fn a_later_run_of_another_operation_supersedes_the_one_to_resume() {
        let up = run("1", 100.0, Up, &[("a", Succeeded), ("b", Cancelled), ("c", Pending)]);
        let destroy = run("2", 200.0, Destroy, &[("a", Succeeded), ("b", Succeeded)]);
        let runs = [up.clone(), destroy.clone()];
        assert_eq!(
            ResumeBasis::of(&runs, Up),
            ResumeBasis::Superseded { last: Box::new(up.clone()), by: Box::new(destroy.clone()) }
        );
        // The other way round: a destroy interrupted, then a full up.
        let runs = [destroy.clone(), run("3", 300.0, Up, &[("a", Succeeded)])];
        assert!(matches!(ResumeBasis::of(&runs, Destroy), ResumeBasis::Superseded { .. }));
        assert_eq!(ResumeBasis::of(std::slice::from_ref(&up), Destroy), ResumeBasis::Nothing);
    }

    #[test]
    fn a_dependent_skipped_as_unchanged_is_never_left_to_resume() {
        let up = run("1", 100.0, Up, &[("network", Failed), ("cluster", ProjectState::Unchanged), ("db", Succeeded)]);
        let ResumeBasis::Continue(point) = ResumeBasis::of(&[up], Up) else { panic!() };
        assert_eq!(point.unfinished(), ["network"]);
    }

    #[test]
    fn runs_that_only_look_do_not_supersede_anything() {
        let up = run("1", 100.0, Up, &[("a", Failed)]);
        for looking in [Preview, Drift] {
            let runs = [up.clone(), run("2", 200.0, looking, &[("a", Succeeded)])];
            let ResumeBasis::Continue(point) = ResumeBasis::of(&runs, Up) else { panic!("{looking}") };
            assert_eq!(point.unfinished(), ["a"]);
        }
    }

    #[test]
    fn a_run_with_only_folds_into_what_the_earlier_run_left() {
        let full = run("1", 100.0, Up, &[("certmgr", Failed), ("app", Skipped), ("db", Succeeded)]);
        let only = run("2", 200.0, Up, &[("db", Failed)]);
        let ResumeBasis::Continue(point) = ResumeBasis::of(&[full.clone(), only], Up) else { panic!() };
        assert_eq!(point.unfinished(), ["app", "certmgr", "db"]);
        assert_eq!(point.run_ids(), ["1", "2"]);
        // A later run that fixed it all leaves nothing.
        let fixed = run("3", 300.0, Up, &[("certmgr", Succeeded), ("app", Succeeded), ("db", Succeeded)]);
        let ResumeBasis::Continue(point) = ResumeBasis::of(&[full, fixed], Up) else { panic!() };
        assert!(point.unfinished().is_empty());
    }

    #[test]
    fn a_prerequisites_own_up_is_not_planned_work_but_explains_its_history() {
        let mut destroy = run("1", 100.0, Destroy, &[("app", Failed)]);
        let mut creds = ProjectRecord::pending("creds".into(), Some(Up));
        (creds.result, creds.started, creds.ended) = (Succeeded, Some(101.0), Some(104.0));
        destroy.projects.push(creds);
        let ResumeBasis::Continue(point) = ResumeBasis::of(&[destroy], Destroy) else { panic!() };
        assert_eq!(point.unfinished(), ["app"]);
        assert!(point.explains(&["creds"], Some(Up), 101.0, Some(104.0)));
        assert!(point.explains(&["app"], Some(Destroy), 100.0, Some(110.0)), "whole seconds, a little early");
        assert!(!point.explains(&["app"], Some(Up), 101.0, Some(104.0)), "another operation");
        assert!(!point.explains(&["app"], Some(Destroy), 150.0, Some(160.0)), "after the record ended");
        assert!(!point.explains(&["other"], Some(Destroy), 101.0, Some(104.0)));
        assert!(!point.explains(&["app"], None, 101.0, Some(104.0)), "an import is never the runner's");
        assert_eq!(point.since(), 100.0);
    }

    #[test]
    fn runs_before_the_point_and_killed_runs_explain_their_own_entries() {
        let up = run("1", 100.0, Up, &[("a", Succeeded)]);
        let mut killed = run("2", 200.0, Destroy, &[("a", Cancelled), ("b", Pending)]);
        killed.ended = None;
        killed.projects[0].ended = None;
        (killed.projects[1].started, killed.projects[1].ended) = (None, None);
        let ResumeBasis::Continue(point) = ResumeBasis::of(&[up, killed], Destroy) else { panic!() };
        assert_eq!(point.run_ids(), ["2"]);
        assert!(point.explains(&["a"], Some(Up), 101.0, Some(110.0)), "the earlier up, in the same second");
        assert!(point.explains(&["a"], Some(Destroy), 201.0, Some(900.0)), "its runner died: no end");
        assert!(point.explains(&["b"], Some(Destroy), 230.0, None), "started after the last save");
        assert!(!point.explains(&["b"], Some(Destroy), 150.0, None), "before its run began");
    }

    /// Every sequence of up to four runs of the stack (every operation): `--resume` of an
    /// operation continues exactly the runs of it after the last run of another operation that
    /// changes stacks, and is refused exactly when such a run came after its last run.
    #[test]
    fn over_every_sequence_of_runs_resume_continues_only_what_nothing_changed_since() {
        let operations = [Up, Destroy, Operation::Refresh, Drift, Preview];
        let mut sequences: Vec<Vec<Operation>> = vec![Vec::new()];
        for _ in 0..4 {
            let longer: Vec<Vec<Operation>> = sequences
                .iter()
                .filter(|sequence| sequence.len() == sequences.iter().map(Vec::len).max().unwrap())
                .flat_map(|sequence| operations.iter().map(move |op| [sequence.clone(), vec![*op]].concat()))
                .collect();
            sequences.extend(longer);
        }
        for sequence in &sequences {
            let runs: Vec<RunRecord> = sequence
                .iter()
                .enumerate()
                .map(|(i, op)| run(&i.to_string(), 100.0 * i as f64, *op, &[("a", Failed)]))
                .collect();
            for operation in operations {
                let last = sequence.iter().rposition(|op| *op == operation);
                let changed_after = |from: usize| sequence[from..].iter().any(|op| *op != operation && op.mutates());
                match ResumeBasis::of(&runs, operation) {
                    ResumeBasis::Continue(point) => {
                        let first: usize = point.runs[0].run_id.parse().unwrap();
                        assert!(point.runs.iter().all(|run| run.operation == operation), "{sequence:?}");
                        assert!(!changed_after(first), "{sequence:?} {operation}: continued across a change");
                        assert!(first == 0 || changed_after(first - 1) || sequence[first - 1] != operation);
                        assert_eq!(point.runs.last().unwrap().run_id, last.unwrap().to_string());
                    }
                    ResumeBasis::Superseded { last: resumed, by } => {
                        assert_eq!(resumed.run_id, last.unwrap().to_string(), "{sequence:?}");
                        let by: usize = by.run_id.parse().unwrap();
                        assert!(by > last.unwrap() && sequence[by] != operation && sequence[by].mutates());
                    }
                    ResumeBasis::Nothing => assert!(last.is_none(), "{sequence:?} {operation}"),
                }
            }
        }
    }
}
