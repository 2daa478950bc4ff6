//! The plan's steps as a DAG, with the phase barrier as one virtual node: every project of the
//! earlier phase leads into it, every project behind the barrier leads out of it. So walks
//! over a plan stay linear in its size, however many projects sit on either side.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Duration;

use super::PlanStep;
use crate::graph::NodeIndex;
use crate::provider::Phase;

pub(crate) struct PlanDag {
    /// Successors by slot; slot `steps.len()` is the barrier.
    pub successors: Vec<Vec<usize>>,
    pub blocker_counts: Vec<usize>,
}

impl PlanDag {
    /// `phase_of(node)` tells which steps feed the barrier.
    pub(crate) fn new(steps: &[PlanStep], phase_of: &dyn Fn(NodeIndex) -> Phase) -> Self {
        let count = steps.len();
        let slot = |node: NodeIndex| steps.binary_search_by_key(&node, |step| step.node).ok();
        let mut successors = vec![Vec::new(); count + 1];
        let mut blocker_counts = vec![0; count + 1];
        let barrier_phase = steps.iter().find_map(|step| step.after_phase.map(|barrier| barrier.phase));
        for (i, step) in steps.iter().enumerate() {
            for blocker in step.blockers() {
                if let Some(j) = slot(blocker) {
                    successors[j].push(i);
                    blocker_counts[i] += 1;
                }
            }
            if step.after_phase.is_some() {
                successors[count].push(i);
                blocker_counts[i] += 1;
            }
            if barrier_phase == Some(phase_of(step.node)) && step.after_phase.is_none() {
                successors[i].push(count);
                blocker_counts[count] += 1;
            }
        }
        Self { successors, blocker_counts }
    }

    pub(crate) fn barrier(&self) -> usize {
        self.successors.len() - 1
    }

    /// Slots in start order: among ready steps the smallest `key` first; the barrier is passed
    /// through as soon as it opens. Returns step slots only.
    pub(crate) fn order<K: Ord + Copy>(&self, key: &dyn Fn(usize) -> K) -> Vec<usize> {
        let barrier = self.barrier();
        let mut remaining = self.blocker_counts.clone();
        let mut ready: BinaryHeap<Reverse<(K, usize)>> = BinaryHeap::new();
        let mut order = Vec::with_capacity(barrier);
        let release = |slot: usize, ready: &mut BinaryHeap<Reverse<(K, usize)>>, remaining: &mut Vec<usize>| {
            let mut stack = vec![slot];
            while let Some(done) = stack.pop() {
                for &next in &self.successors[done] {
                    let before = remaining[next];
                    remaining[next] = before.saturating_sub(1);
                    if before == 1 {
                        if next == barrier {
                            stack.push(next);
                        } else {
                            ready.push(Reverse((key(next), next)));
                        }
                    }
                }
            }
        };
        for (i, count) in remaining.iter().enumerate().take(barrier) {
            if *count == 0 {
                ready.push(Reverse((key(i), i)));
            }
        }
        if remaining[barrier] == 0 {
            release(barrier, &mut ready, &mut remaining);
        }
        while let Some(Reverse((_, i))) = ready.pop() {
            order.push(i);
            release(i, &mut ready, &mut remaining);
        }
        order
    }

    /// For each step, the longest sum of durations from its start to the end of the plan
    /// (itself included), given a topological `order` of step slots.
    pub(crate) fn remaining_paths(&self, order: &[usize], duration: &dyn Fn(usize) -> Duration) -> Vec<Duration> {
        let barrier = self.barrier();
        let mut paths = vec![Duration::ZERO; barrier + 1];
        let longest_after = |slot: usize, paths: &Vec<Duration>| {
            self.successors[slot].iter().map(|&next| paths[next]).max().unwrap_or_default()
        };
        // Every follower of the barrier comes after every project that feeds it.
        let mut barrier_done = false;
        for &i in order.iter().rev() {
            if !barrier_done && self.successors[i].contains(&barrier) {
                paths[barrier] = longest_after(barrier, &paths);
                barrier_done = true;
            }
            paths[i] = duration(i).saturating_add(longest_after(i, &paths));
        }
        paths.truncate(barrier);
        paths
    }
}
