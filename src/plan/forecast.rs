use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Duration;

use super::ExecutionPlan;

/// Where a planned project stands, for a forecast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StepProgress {
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
///
/// Every count and sum saturates: the progress comes from events, and no event sequence (a
/// project reported twice, a blocker that ended after its follower started) may panic here.
pub(crate) fn forecast_remaining(
    plan: &ExecutionPlan,
    parallelism: usize,
    progress: &[StepProgress],
) -> Option<Duration> {
    let known: Vec<Duration> = plan.steps.iter().filter_map(|step| step.expected).collect();
    if known.is_empty() {
        return None;
    }
    let stand_in = saturating_mean(&known);
    let expected = |slot: usize| plan.steps[slot].expected.unwrap_or(stand_in);
    let dag = plan.dag();
    let barrier = dag.barrier();
    let state = |slot: usize| progress.get(slot).copied().unwrap_or(StepProgress::Pending);
    let mut remaining = dag.blocker_counts.clone();
    // Each slot (the barrier included) leaves the simulation at most once, so each edge is
    // released at most once.
    let mut released = vec![false; barrier + 1];
    let mut ready: BinaryHeap<Reverse<(super::StartPriority, usize)>> = BinaryHeap::new();
    let release = |slot: usize, remaining: &mut Vec<usize>, released: &mut Vec<bool>, ready: &mut BinaryHeap<_>| {
        let mut stack = vec![slot];
        while let Some(done) = stack.pop() {
            if std::mem::replace(&mut released[done], true) {
                continue;
            }
            for &next in &dag.successors[done] {
                let before = remaining[next];
                remaining[next] = before.saturating_sub(1);
                if before != 1 {
                    continue;
                }
                if next == barrier {
                    stack.push(next);
                } else if state(next) == StepProgress::Pending {
                    ready.push(Reverse((plan.priority(next), next)));
                }
            }
        }
    };
    // (end time, slot) of what runs, earliest first.
    let mut running: BinaryHeap<Reverse<(Duration, usize)>> = BinaryHeap::new();
    for slot in 0..barrier {
        if let StepProgress::Running(elapsed) = state(slot) {
            running.push(Reverse((expected(slot).saturating_sub(elapsed), slot)));
        }
    }
    for slot in 0..barrier {
        if state(slot) == StepProgress::Ended {
            release(slot, &mut remaining, &mut released, &mut ready);
        }
    }
    if remaining[barrier] == 0 {
        release(barrier, &mut remaining, &mut released, &mut ready);
    }
    // Pending steps whose blockers all ended before now, and that no release above queued.
    let queued: std::collections::HashSet<usize> = ready.iter().map(|Reverse((_, slot))| *slot).collect();
    for (slot, count) in remaining.iter().enumerate().take(barrier) {
        if *count == 0 && state(slot) == StepProgress::Pending && !queued.contains(&slot) {
            ready.push(Reverse((plan.priority(slot), slot)));
        }
    }
    let mut now = Duration::ZERO;
    loop {
        while running.len() < parallelism.max(1) {
            let Some(Reverse((_, slot))) = ready.pop() else { break };
            running.push(Reverse((now.saturating_add(expected(slot)), slot)));
        }
        let Some(Reverse((end, slot))) = running.pop() else { break };
        now = now.max(end);
        release(slot, &mut remaining, &mut released, &mut ready);
    }
    Some(now)
}

/// The mean of `durations` (none: zero), without overflowing however long or many they are.
pub(crate) fn saturating_mean(durations: &[Duration]) -> Duration {
    let Ok(count) = u32::try_from(durations.len()) else { return Duration::MAX };
    if count == 0 {
        return Duration::ZERO;
    }
    let total: u128 = durations.iter().map(Duration::as_nanos).sum();
    let mean = total / u128::from(count);
    Duration::from_nanos(u64::try_from(mean).unwrap_or(u64::MAX))
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

    /// A small deterministic generator: the sweep needs variety, not cryptography.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self, below: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) % below.max(1)
        }
    }

    /// Every shape of graph (both phases, chains and fans), every operation, every point of a
    /// run in start order (a prefix ended, some of the rest running), with durations from
    /// nothing to `Duration::MAX`: the forecast never panics and never promises more than
    /// the whole plan one project at a time.
    #[test]
    fn no_plan_shape_or_progress_makes_the_forecast_panic() {
        use crate::provider::Phase::Kubernetes as K;
        let mut random = Lcg(20);
        let durations = [0, 1, 7, 3_600, u64::MAX / 4, u64::MAX];
        for _ in 0..300 {
            let count = 1 + random.next(7) as usize;
            let names: Vec<String> = (0..count).map(|i| format!("p{i}")).collect();
            let depends: Vec<Vec<&str>> = (0..count)
                .map(|i| (0..i).filter(|_| random.next(3) == 0).map(|j| names[j].as_str()).collect())
                .collect();
            let phases: Vec<_> = (0..count).map(|_| if random.next(2) == 0 { I } else { K }).collect();
            let spec: Vec<(&str, _, &[&str])> =
                (0..count).map(|i| (names[i].as_str(), phases[i], depends[i].as_slice())).collect();
            let mut provider = test_provider(&spec);
            if let Some(first) = provider.projects.first_mut() {
                first.provides_cluster = random.next(2) == 0;
            }
            let Ok(graph) = ProjectGraph::build(&provider) else { continue };
            let seconds: Vec<Option<u64>> = (0..count)
                .map(|_| (random.next(4) != 0).then(|| durations[random.next(durations.len() as u64) as usize]))
                .collect();
            for operation in [Operation::Up, Operation::Destroy, Operation::Refresh] {
                let plan = ExecutionPlan::full(&graph, operation)
                    .with_expected(&|node| seconds[node].map(Duration::from_secs));
                let dag = plan.dag();
                let order = dag.order(&|slot| plan.priority(slot));
                let ceiling = plan
                    .steps
                    .iter()
                    .map(|step| step.expected.unwrap_or(Duration::MAX))
                    .fold(Duration::ZERO, Duration::saturating_add);
                for ended in 0..=order.len() {
                    for running in 0..=3 {
                        let mut progress = vec![StepProgress::Pending; plan.len()];
                        for &slot in &order[..ended] {
                            progress[slot] = StepProgress::Ended;
                        }
                        for &slot in order.iter().skip(ended).take(running) {
                            let ran = Duration::from_secs(random.next(10));
                            progress[slot] = StepProgress::Running(ran);
                        }
                        for parallelism in [1, 2, 8] {
                            let remaining = forecast_remaining(&plan, parallelism, &progress);
                            if let Some(remaining) = remaining {
                                assert!(remaining <= ceiling, "{remaining:?} > {ceiling:?}");
                            }
                            if ended == order.len() && running == 0 {
                                assert!(remaining.is_none_or(|left| left.is_zero()), "all ended: {remaining:?}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_second_destroy_with_history_forecasts_once_the_kubernetes_phase_ended() {
        use crate::provider::Phase::Kubernetes as K;
        let graph =
            ProjectGraph::build(&test_provider(&[("net", I, &[]), ("cluster", I, &["net"]), ("app", K, &[])])).unwrap();
        let plan = ExecutionPlan::full(&graph, Operation::Destroy).with_expected(&|_| Some(Duration::from_secs(2)));
        // Destroy removes the kubernetes phase first: `app` ended, the barrier opened.
        let progress = [StepProgress::Pending, StepProgress::Pending, StepProgress::Ended];
        assert_eq!(forecast_remaining(&plan, 4, &progress), Some(Duration::from_secs(4)), "cluster, then net");
    }
}
