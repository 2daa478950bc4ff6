use std::collections::{BTreeSet, HashMap};

use crate::graph::{NodeIndex, ProjectGraph};
use crate::plan::ExecutionPlan;
use crate::provider::Phase;

/// Waves as the drawings number them: from 1 within each phase. The plan's waves are steps of the
/// whole run, so a later phase numbered by them started at `wave 1` (a project that needs no
/// cluster) and then jumped (`wave 2`, `wave 4`): a person reads a phase on its own, behind its
/// barrier, and a gap reads as a missing wave.
pub struct PhaseWaves {
    numbers: HashMap<(Phase, usize), usize>,
}

impl PhaseWaves {
    pub fn of(graph: &ProjectGraph, plan: &ExecutionPlan) -> Self {
        let mut numbers = HashMap::new();
        let mut counts: HashMap<Phase, usize> = HashMap::new();
        for (step, wave) in plan.waves.iter().enumerate() {
            let phases: BTreeSet<Phase> = wave.iter().map(|&node| graph.project(node).phase).collect();
            for phase in phases {
                let count = counts.entry(phase).or_default();
                *count += 1;
                numbers.insert((phase, step), *count);
            }
        }
        Self { numbers }
    }

    /// The number, from 1, that the plan's wave `step` has within `phase` (0 when it has none of it).
    pub fn number(&self, phase: Phase, step: usize) -> usize {
        self.numbers.get(&(phase, step)).copied().unwrap_or(0)
    }

    /// `node`'s wave within its phase.
    pub fn of_node(&self, graph: &ProjectGraph, plan: &ExecutionPlan, node: NodeIndex) -> usize {
        let step = plan.waves.iter().position(|wave| wave.contains(&node)).unwrap_or(0);
        self.number(graph.project(node).phase, step)
    }

    /// The wave of `other` phase that runs at the same step: a project that needs no cluster
    /// starts with the infrastructure.
    pub fn alongside(&self, other: Phase, step: usize) -> Option<usize> {
        self.numbers.get(&(other, step)).copied()
    }
}
