use std::fmt::Write;
use std::time::Duration;

use super::{PhaseWaves, TreeLayout};
use crate::graph::{NodeIndex, ProjectGraph};
use crate::plan::{BarrierReason, CriticalPath, ExecutionPlan};
use crate::provider::{Phase, Provider};
use crate::text::word_wrap;

/// The plan as a tree for people: phases, then waves; projects in a wave run in parallel. Each
/// project says why it waits, and what the history expects it to take. Lines fit
/// `layout.width`: what does not fit goes under its project, indented inside the tree's lines.
pub fn tree(provider: &Provider, graph: &ProjectGraph, plan: &ExecutionPlan, layout: TreeLayout) -> String {
    let mut out = String::new();
    let mut title = provider.name.clone();
    if !provider.description.is_empty() {
        let _ = write!(title, ": {}", provider.description);
    }
    push_wrapped(&mut out, &title, "", "  ", layout.width);
    push_wrapped(&mut out, &header_line(graph, plan, layout.parallelism), "", "  ", layout.width);
    let critical = CriticalPath::of(plan);
    let any_known = critical.unknown.len() < plan.len();
    push_wrapped(&mut out, &expected_line(graph, plan, &critical), "", "  ", layout.width);
    out.push('\n');
    let columns = Columns::of(graph, plan, any_known, layout.width);
    let phases = if plan.operation.is_reversed() {
        [Phase::Kubernetes, Phase::Infrastructure]
    } else {
        [Phase::Infrastructure, Phase::Kubernetes]
    };
    let numbers = PhaseWaves::of(graph, plan);
    for (phase_index, phase) in phases.into_iter().enumerate() {
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
        for (position, (step, wave)) in waves.iter().enumerate() {
            let (branch, indent) =
                if position + 1 == waves.len() { ("└──", "    ") } else { ("├──", "│   ") };
            let mut notes = Vec::new();
            if wave.len() > 1 {
                notes.push(format!("{} in parallel", wave.len()));
            }
            // Only the phase drawn second can start early, beside a wave of the first.
            let earlier = phases[0];
            if let Some(beside) = numbers.alongside(earlier, *step).filter(|_| phase_index == 1) {
                notes.push(format!("with {earlier} wave {beside}"));
            }
            let notes = if notes.is_empty() { String::new() } else { format!(" ({})", notes.join(", ")) };
            let _ = writeln!(out, "{branch} wave {}{notes}", numbers.number(phase, *step));
            for (i, &node) in wave.iter().enumerate() {
                let (leaf, under) = if i + 1 == wave.len() { ("└──", "    ") } else { ("├──", "│   ") };
                let mark = any_known.then(|| critical.projects.contains(&node));
                let prefixes = (format!("{indent}{leaf} "), format!("{indent}{under}"));
                project_lines(&mut out, graph, plan, node, &columns, mark, (&prefixes.0, &prefixes.1));
            }
        }
    }
    if any_known {
        out.push_str("* on the critical path\n");
    }
    out
}

/// `up: 15 projects in 6 waves (infrastructure 3, kubernetes 5, 2 alongside), up to 4 at once`:
/// the waves of the whole run, then of each phase as the tree numbers them (a wave of the second
/// phase may run alongside one of the first), the widest wave capped by `-j`, and what a higher
/// `-j` would allow.
fn header_line(graph: &ProjectGraph, plan: &ExecutionPlan, parallelism: usize) -> String {
    let widest = plan.max_width();
    let mut line = format!(
        "{}: {} in {}",
        plan.operation,
        crate::text::counted(plan.len(), "project"),
        crate::text::counted(plan.waves.len(), "wave"),
    );
    let phases = if plan.operation.is_reversed() {
        [Phase::Kubernetes, Phase::Infrastructure]
    } else {
        [Phase::Infrastructure, Phase::Kubernetes]
    };
    let per_phase = phases.map(|phase| {
        plan.waves.iter().filter(|wave| wave.iter().any(|&node| graph.project(node).phase == phase)).count()
    });
    if per_phase.iter().all(|&count| count > 0) {
        let _ = write!(line, " ({} {}, {} {}", phases[0], per_phase[0], phases[1], per_phase[1]);
        let beside = (per_phase[0] + per_phase[1]).saturating_sub(plan.waves.len());
        if beside > 0 {
            let _ = write!(line, ", {beside} alongside");
        }
        line.push(')');
    }
    let _ = write!(line, ", up to {} at once", widest.min(parallelism));
    if widest > parallelism {
        let _ = write!(line, " (`-j {parallelism}`; {widest} could run together with `-j {widest}`)");
    }
    if plan.operation.is_reversed() {
        line.push_str(" (reverse order: dependents first)");
    }
    line
}

/// The widths of the name and description columns, and whether descriptions fit beside names.
struct Columns {
    path: usize,
    /// `None`: too narrow, descriptions go under their project.
    description: Option<usize>,
    width: usize,
}

impl Columns {
    fn of(graph: &ProjectGraph, plan: &ExecutionPlan, expected: bool, width: usize) -> Self {
        let path = plan.order.iter().map(|&node| graph.project(node).path.as_str().len()).max().unwrap_or(0);
        let described = plan.order.iter().map(|&node| graph.project(node).description.len()).max().unwrap_or(0);
        // Two levels of tree (8), the name, two spaces, the description, and the expected time.
        let beside = 8 + path + 2 + described + if expected { 10 } else { 0 };
        let description = (beside <= width).then_some(described);
        Self { path, description, width }
    }
}

/// One project: on one line when it fits, else its name (and time) on the first line and
/// description, reasons to wait and hooks one each below, wrapped inside `under` (the tree's
/// lines) so the `│` continues on every line.
fn project_lines(
    out: &mut String,
    graph: &ProjectGraph,
    plan: &ExecutionPlan,
    node: NodeIndex,
    columns: &Columns,
    critical: Option<bool>,
    (first, under): (&str, &str),
) {
    let project = graph.project(node);
    let step = plan.step(node).expect("planned");
    let mut head = format!("{first}{:width$}", project.path.as_str(), width = columns.path);
    if let Some(described) = columns.description {
        let _ = write!(head, "  {:described$}", project.description);
    }
    if let Some(on_path) = critical {
        let expected = step.expected.map_or("unknown".to_string(), duration_text);
        let _ = write!(head, "  {expected:>7}{}", if on_path { "*" } else { " " });
    }
    let mut details: Vec<String> = Vec::new();
    if columns.description.is_none() && !project.description.is_empty() {
        details.push(project.description.clone());
    }
    let why = why_it_waits(graph, plan, node);
    // Hooks and gates follow an `up` only.
    let hooks: Vec<String> = if plan.operation == crate::plan::Operation::Up {
        let hooks = project.on_success.iter().map(|hook| hook.describe());
        hooks.chain(project.ready.iter().map(|gate| format!("ready when {}", gate.describe()))).collect()
    } else {
        Vec::new()
    };
    let mut line = head.clone();
    if !why.is_empty() {
        let _ = write!(line, "  ({})", why.join("; "));
    }
    if !hooks.is_empty() {
        let _ = write!(line, "  then {}", hooks.join(", "));
    }
    if details.is_empty() && line.trim_end().chars().count() <= columns.width {
        let _ = writeln!(out, "{}", line.trim_end());
        return;
    }
    let _ = writeln!(out, "{}", head.trim_end());
    details.extend(why);
    if !hooks.is_empty() {
        details.push(format!("then {}", hooks.join(", ")));
    }
    for detail in details {
        push_wrapped(out, &detail, &format!("{under}  "), &format!("{under}    "), columns.width);
    }
}

fn push_wrapped(out: &mut String, text: &str, first: &str, rest: &str, width: usize) {
    for line in word_wrap(text, first, rest, width) {
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

/// `expected: 4.2s of work, 3.1s on the critical path (...)`, or why nothing is known yet.
fn expected_line(graph: &ProjectGraph, plan: &ExecutionPlan, critical: &CriticalPath) -> String {
    if critical.unknown.len() == plan.len() {
        return format!("expected: unknown (no successful `{}` of these projects recorded yet)", plan.operation);
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
        let _ = write!(
            line,
            "; {} of {} unknown, counted as 0s",
            critical.unknown.len(),
            crate::text::counted(plan.len(), "project")
        );
    }
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
