use std::time::Duration;

use super::ExecutionPlan;
use crate::graph::NodeIndex;

/// What the history lets a plan promise: the expected total work and the longest chain of
/// waits (the critical path), counting unknown projects as zero and naming them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CriticalPath {
    /// The chain, first project first.
    pub projects: Vec<NodeIndex>,
    pub length: Duration,
    /// Sum of every known expected duration.
    pub total_work: Duration,
    /// Projects without a successful run of this operation in the history.
    pub unknown: Vec<NodeIndex>,
}

impl CriticalPath {
    /// The longest chain through declared dependencies, cluster providers and phase barriers.
    pub(crate) fn of(plan: &ExecutionPlan) -> Self {
        Self::with_durations(plan, &|slot| plan.steps[slot].expected)
    }

    /// As `of`, with durations by step slot from elsewhere (a finished run's real ones).
    pub(crate) fn with_durations(plan: &ExecutionPlan, duration: &dyn Fn(usize) -> Option<Duration>) -> Self {
        let dag = plan.dag();
        let barrier = dag.barrier();
        let slots = dag.order(&|i| plan.priority(i));
        // Earliest finish of each slot, and the predecessor that decides it.
        let mut finish = vec![Duration::ZERO; barrier + 1];
        let mut start = vec![Duration::ZERO; barrier + 1];
        let mut from: Vec<Option<usize>> = vec![None; barrier + 1];
        let mut barrier_closed = true;
        let relax =
            |target: usize, source: usize, at: Duration, start: &mut Vec<Duration>, from: &mut Vec<Option<usize>>| {
                if from[target].is_none() || at > start[target] {
                    start[target] = at;
                    from[target] = Some(source);
                }
            };
        for &i in &slots {
            if barrier_closed && plan.steps[i].after_phase.is_some() {
                // Every project feeding the barrier precedes its followers in `slots`.
                finish[barrier] = start[barrier];
                for &next in &dag.successors[barrier] {
                    relax(next, barrier, finish[barrier], &mut start, &mut from);
                }
                barrier_closed = false;
            }
            finish[i] = start[i].saturating_add(duration(i).unwrap_or_default());
            for &next in &dag.successors[i] {
                relax(next, i, finish[i], &mut start, &mut from);
            }
        }
        let mut projects = Vec::new();
        // The latest project to finish; among equals the last started, so unknown (zero)
        // projects at the end of a chain stay on it.
        let mut at =
            slots.iter().copied().enumerate().max_by_key(|&(position, i)| (finish[i], position)).map(|(_, i)| i);
        while let Some(slot) = at {
            if slot != barrier {
                projects.push(plan.steps[slot].node);
            }
            at = from[slot];
        }
        projects.reverse();
        let length = slots.iter().map(|&i| finish[i]).max().unwrap_or_default();
        let total_work = (0..barrier).filter_map(duration).fold(Duration::ZERO, Duration::saturating_add);
        let unknown = (0..barrier).filter(|&i| duration(i).is_none()).map(|i| plan.steps[i].node).collect();
        Self { projects, length, total_work, unknown }
    }
}
