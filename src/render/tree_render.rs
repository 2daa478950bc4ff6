use std::fmt::Write;
use std::time::Duration;

use crate::graph::{NodeIndex, ProjectGraph};
use crate::plan::{BarrierReason, CriticalPath, ExecutionPlan};
use crate::provider::{Phase, Provider};

/// The plan as a tree for people: phases, then waves; projects in a wave run in parallel. Each
/// project says why it waits, and what the history expects it to take.
pub fn tree(provider: &Provider, graph: &ProjectGraph, plan: &ExecutionPlan) -> String {
    let mut out = String::new();
    let _ = write!(out, "{}", provider.name);
    if !provider.description.is_empty() {
        let _ = write!(out, ": {}", provider.description);
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "{}: {} projects in {} waves, up to {} at once{}",
        plan.operation,
        plan.len(),
        plan.waves.len(),
        plan.max_width(),
        if plan.operation.is_reversed() { " (reverse order: dependents first)" } else { "" }
    );
    let critical = CriticalPath::of(plan);
    let any_known = critical.unknown.len() < plan.len();
    out.push_str(&expected_line(graph, plan, &critical));
    out.push('\n');
    let width = plan.order.iter().map(|&node| graph.project(node).path.as_str().len()).max().unwrap_or(0);
    let described = plan.order.iter().map(|&node| graph.project(node).description.len()).max().unwrap_or(0);
    let phases = if plan.operation.is_reversed() {
        [Phase::Kubernetes, Phase::Infrastructure]
    } else {
        [Phase::Infrastructure, Phase::Kubernetes]
    };
    for phase in phases {
        let waves: Vec<(usize, Vec<NodeIndex>)> = plan
            .waves
            .iter()
            .enumerate()
            .map(|(number, wave)| (number, wave.iter().copied().filter(|&n| graph.project(n).phase == phase).collect()))
            .filter(|(_, members): &(usize, Vec<NodeIndex>)| !members.is_empty())
            .collect();
        if waves.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{phase} phase");
        for (position, (number, wave)) in waves.iter().enumerate() {
            let (branch, indent) =
                if position + 1 == waves.len() { ("└──", "    ") } else { ("├──", "│   ") };
            let parallel = if wave.len() > 1 { format!(" ({} in parallel)", wave.len()) } else { String::new() };
            let _ = writeln!(out, "{branch} wave {}{parallel}", number + 1);
            for (i, &node) in wave.iter().enumerate() {
                let project = graph.project(node);
                let step = plan.step(node).expect("planned");
                let leaf = if i + 1 == wave.len() { "└──" } else { "├──" };
                let mut line =
                    format!("{indent}{leaf} {:width$}  {:described$}", project.path.as_str(), project.description);
                if any_known {
                    let expected = step.expected.map_or("unknown".to_string(), duration_text);
                    let mark = if critical.projects.contains(&node) { "*" } else { " " };
                    let _ = write!(line, "  {expected:>7}{mark}");
                }
                let why = why_it_waits(graph, plan, node);
                if !why.is_empty() {
                    let _ = write!(line, "  ({})", why.join("; "));
                }
                if !project.on_success.is_empty() && !plan.operation.is_reversed() {
                    let hooks: Vec<String> = project.on_success.iter().map(|hook| hook.describe()).collect();
                    let _ = write!(line, "  then {}", hooks.join(", "));
                }
                let _ = writeln!(out, "{}", line.trim_end());
            }
        }
    }
    if any_known {
        out.push_str("* on the critical path\n");
    }
    out
}

/// `expected: 4.2s of work, 3.1s on the critical path (...)`, or why nothing is known yet.
fn expected_line(graph: &ProjectGraph, plan: &ExecutionPlan, critical: &CriticalPath) -> String {
    if critical.unknown.len() == plan.len() {
        return format!("expected: unknown (no successful `{}` of these projects recorded yet)\n", plan.operation);
    }
    let mut line = format!(
        "expected: {} of work, {} on the critical path",
        duration_text(critical.total_work),
        duration_text(critical.length)
    );
    let chain: Vec<&str> = critical.projects.iter().map(|&n| graph.project(n).path.as_str()).collect();
    if !chain.is_empty() {
        let _ = write!(line, " ({})", chain.join(" -> "));
    }
    if !critical.unknown.is_empty() {
        let _ = write!(line, "; {} of {} projects unknown, counted as 0s", critical.unknown.len(), plan.len());
    }
    line.push('\n');
    line
}

/// Every reason a project waits: named projects, the cluster, a whole phase.
pub fn why_it_waits(graph: &ProjectGraph, plan: &ExecutionPlan, node: NodeIndex) -> Vec<String> {
    let step = plan.step(node).expect("planned");
    let names =
        |nodes: &[NodeIndex]| nodes.iter().map(|&n| graph.project(n).path.as_str()).collect::<Vec<_>>().join(", ");
    let mut why = Vec::new();
    if !step.waits_for.is_empty() {
        why.push(format!("after {}", names(&step.waits_for)));
    }
    if !step.waits_for_cluster.is_empty() {
        why.push(format!("needs the cluster: {}", names(&step.waits_for_cluster)));
    }
    if let Some(barrier) = step.after_phase {
        why.push(match barrier.reason {
            BarrierReason::Strict => format!("after the whole {} phase: `strict_phase_barrier`", barrier.phase),
            BarrierReason::NoClusterProvider => {
                format!("after the whole {} phase: no project is marked `provides_cluster`", barrier.phase)
            }
            BarrierReason::Destroy => format!("after the whole {} phase is destroyed", barrier.phase),
        });
    }
    let project = graph.project(node);
    if !plan.operation.is_reversed() && project.phase == Phase::Kubernetes && !project.needs_cluster {
        why.push("needs no cluster".into());
    }
    if let Some(pool) = &project.pool {
        why.push(match plan.pool_limits.get(pool) {
            Some(limit) => format!("pool `{pool}`, {limit} at once"),
            None => format!("pool `{pool}`, no limit"),
        });
    }
    why
}

/// `0.8s`, `12.3s`, `17m05s`: as the run summary prints them.
pub fn duration_text(duration: Duration) -> String {
    let seconds = duration.as_secs();
    if seconds >= 60 {
        format!("{}m{:02}s", seconds / 60, seconds % 60)
    } else {
        format!("{:.1}s", duration.as_secs_f64())
    }
}
