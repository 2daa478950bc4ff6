use std::collections::HashMap;
use std::time::Duration;

use super::{ProjectState, RunStore};
use crate::plan::Operation;

/// How many of a project's latest successful runs make its expected duration.
const RECENT_RUNS: usize = 5;

/// Each project's expected duration: the median of its last successful runs of `operation`
/// (a prerequisite's own `up` counts as an `up`). Runs of `stack` when it has any, else of
/// every stack of the provider. Projects never run successfully are absent.
pub(crate) fn expected_durations(
    store: &RunStore,
    provider: &str,
    stack: Option<&str>,
    operation: Operation,
) -> HashMap<String, Duration> {
    let runs: Vec<_> = store.runs().into_iter().filter(|run| run.provider == provider).collect();
    let of_stack = stack.filter(|stack| runs.iter().any(|run| run.stack == *stack));
    let mut samples: HashMap<String, Vec<f64>> = HashMap::new();
    for run in runs.iter().rev().filter(|run| of_stack.is_none_or(|stack| run.stack == stack)) {
        for record in &run.projects {
            let record_operation = record.operation.unwrap_or(run.operation);
            if record.result != ProjectState::Succeeded || record_operation != operation {
                continue;
            }
            let (Some(started), Some(ended)) = (record.started, record.ended) else { continue };
            let seconds = ended - started;
            let recent = samples.entry(record.project.clone()).or_default();
            if seconds.is_finite() && seconds >= 0.0 && recent.len() < RECENT_RUNS {
                recent.push(seconds);
            }
        }
    }
    samples
        .into_iter()
        .filter(|(_, recent)| !recent.is_empty())
        .map(|(project, mut recent)| {
            recent.sort_by(f64::total_cmp);
            let middle = recent.len() / 2;
            let median =
                if recent.len() % 2 == 1 { recent[middle] } else { (recent[middle - 1] + recent[middle]) / 2.0 };
            (project, Duration::try_from_secs_f64(median).unwrap_or(Duration::MAX))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{ProjectRecord, RunRecord, RunState};

    fn run(store: &RunStore, id: &str, stack: &str, operation: &str, projects: &[(&str, &str, f64)]) {
        let started = id.len() as f64 + id.bytes().map(f64::from).sum::<f64>();
        let record = RunRecord {
            run_id: id.into(),
            provider: "local".into(),
            stack: stack.into(),
            operation: serde_json::from_value(serde_json::json!(operation)).unwrap(),
            state: RunState::Finished,
            pid: 1,
            start_ticks: None,
            host: "h".into(),
            started,
            ended: None,
            recovered_locks: Vec::new(),
            pulumi_processes: Vec::new(),
            projects: projects
                .iter()
                .map(|(path, result, seconds)| ProjectRecord {
                    result: serde_json::from_value(serde_json::json!(result)).unwrap(),
                    started: Some(started),
                    ended: Some(started + seconds),
                    ..ProjectRecord::pending(path.to_string(), None)
                })
                .collect(),
        };
        store.save(&record).unwrap();
    }

    #[test]
    fn the_median_of_the_last_five_successes_of_the_same_operation() {
        let dir = tempfile::tempdir().unwrap();
        let store = RunStore::new(dir.path());
        // Run ids sort by their start: `a1` < `a2` < ... (started grows with the id's bytes).
        for (i, seconds) in [100.0, 1.0, 2.0, 3.0, 4.0, 5.0].iter().enumerate() {
            run(&store, &format!("a{i}"), "dev", "up", &[("net", "succeeded", *seconds), ("app", "failed", 9.0)]);
        }
        run(&store, "b0", "dev", "destroy", &[("net", "succeeded", 50.0)]);
        let up = expected_durations(&store, "local", Some("dev"), Operation::Up);
        assert_eq!(up["net"], Duration::from_secs(3), "the oldest (100s) is beyond the last five");
        assert!(!up.contains_key("app"), "failures say nothing about duration");
        let destroy = expected_durations(&store, "local", Some("dev"), Operation::Destroy);
        assert_eq!(destroy["net"], Duration::from_secs(50));
        assert!(expected_durations(&store, "local", None, Operation::Refresh).is_empty());
    }

    #[test]
    fn another_stack_is_used_only_when_this_one_has_no_history() {
        let dir = tempfile::tempdir().unwrap();
        let store = RunStore::new(dir.path());
        run(&store, "a0", "prod", "up", &[("net", "succeeded", 8.0)]);
        run(&store, "a1", "prod", "up", &[("net", "succeeded", 10.0)]);
        assert_eq!(expected_durations(&store, "local", Some("dev"), Operation::Up)["net"], Duration::from_secs(9));
        run(&store, "a2", "dev", "up", &[("net", "succeeded", 2.0)]);
        assert_eq!(expected_durations(&store, "local", Some("dev"), Operation::Up)["net"], Duration::from_secs(2));
    }
}
