use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Duration;

use super::ExecutionPlan;

/// Where a planned project stands, for a forecast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepProgress {
    Pending,
    /// Running for this long already.
    Running(Duration),
    /// Ended, whatever the result: it holds no slot any more.
    Ended,
}

/// How long the rest of a run should take: the plan replayed with expected durations from
/// now on, at `parallelism`, in the executor's own start priority. A running project is
/// expected to need its expected duration minus what it already ran (at least nothing);
/// projects without history count as the mean of those with. `None` when nothing is known.
pub fn forecast_remaining(plan: &ExecutionPlan, parallelism: usize, progress: &[StepProgress]) -> Option<Duration> {
    let known: Vec<Duration> = plan.steps.iter().filter_map(|step| step.expected).collect();
    if known.is_empty() {
        return None;
    }
    let stand_in = known.iter().sum::<Duration>() / known.len() as u32;
    let expected = |slot: usize| plan.steps[slot].expected.unwrap_or(stand_in);
    let dag = plan.dag();
    let barrier = dag.barrier();
    let mut remaining = dag.blocker_counts.clone();
    let mut ready: BinaryHeap<Reverse<(super::StartPriority, usize)>> = BinaryHeap::new();
    // (end time, slot) of what runs, earliest first.
    let mut running: BinaryHeap<Reverse<(Duration, usize)>> = BinaryHeap::new();
    let mut ended: Vec<usize> = Vec::new();
    for (slot, state) in progress.iter().enumerate().take(barrier) {
        match state {
            StepProgress::Ended => ended.push(slot),
            StepProgress::Running(elapsed) => {
                running.push(Reverse((expected(slot).saturating_sub(*elapsed), slot)));
                remaining[slot] = usize::MAX;
            }
            StepProgress::Pending => {}
        }
    }
    let release = |slot: usize, remaining: &mut Vec<usize>, ready: &mut BinaryHeap<_>| {
        let mut stack = vec![slot];
        while let Some(done) = stack.pop() {
            for &next in &dag.successors[done] {
                if remaining[next] == usize::MAX {
                    continue;
                }
                remaining[next] = remaining[next].saturating_sub(1);
                if remaining[next] == 0 {
                    if next == barrier {
                        stack.push(next);
                    } else {
                        ready.push(Reverse((plan.priority(next), next)));
                    }
                }
            }
        }
    };
    for &slot in &ended {
        remaining[slot] = usize::MAX;
    }
    for &slot in &ended {
        release(slot, &mut remaining, &mut ready);
    }
    for (slot, count) in remaining.iter().enumerate().take(barrier) {
        if *count == 0 && progress.get(slot) == Some(&StepProgress::Pending) {
            ready.push(Reverse((plan.priority(slot), slot)));
        }
    }
    if remaining[barrier] == 0 {
        remaining[barrier] = usize::MAX;
        release(barrier, &mut remaining, &mut ready);
    }
    let mut now = Duration::ZERO;
    loop {
        while running.len() < parallelism.max(1) {
            let Some(Reverse((_, slot))) = ready.pop() else { break };
            remaining[slot] = usize::MAX;
            running.push(Reverse((now + expected(slot), slot)));
        }
        let Some(Reverse((end, slot))) = running.pop() else { break };
        now = end;
        release(slot, &mut remaining, &mut ready);
    }
    Some(now)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::test_provider;
    use crate::graph::ProjectGraph;
    use crate::plan::Operation;
    use crate::provider::Phase::Infrastructure as I;

    fn plan(seconds: [u64; 3]) -> ExecutionPlan {
        // a -> b, c independent.
        let graph = ProjectGraph::build(&test_provider(&[("a", I, &[]), ("b", I, &["a"]), ("c", I, &[])])).unwrap();
        ExecutionPlan::full(&graph, Operation::Up).with_expected(&|node| Some(Duration::from_secs(seconds[node])))
    }

    #[test]
    fn the_forecast_shrinks_as_projects_run_and_end() {
        let plan = plan([4, 3, 5]);
        let s = Duration::from_secs;
        let pending = [StepProgress::Pending; 3];
        assert_eq!(forecast_remaining(&plan, 4, &pending), Some(s(7)));
        assert_eq!(forecast_remaining(&plan, 1, &pending), Some(s(12)));
        let running = [StepProgress::Running(s(3)), StepProgress::Pending, StepProgress::Running(s(3))];
        assert_eq!(forecast_remaining(&plan, 4, &running), Some(s(4)), "a: 1s more, then b: 3s");
        let late = [StepProgress::Running(s(9)), StepProgress::Pending, StepProgress::Ended];
        assert_eq!(forecast_remaining(&plan, 4, &late), Some(s(3)), "a overran: it may end now");
        assert_eq!(forecast_remaining(&plan, 4, &[StepProgress::Ended; 3]), Some(Duration::ZERO));
    }

    #[test]
    fn nothing_known_means_no_forecast() {
        let graph = ProjectGraph::build(&test_provider(&[("a", I, &[])])).unwrap();
        let plan = ExecutionPlan::full(&graph, Operation::Up);
        assert_eq!(forecast_remaining(&plan, 4, &[StepProgress::Pending]), None);
    }
}
