use std::fmt::Write;

use crate::graph::ProjectGraph;
use crate::plan::ExecutionPlan;
use crate::provider::Provider;

/// The plan as a tree for people: phases, then waves; projects in a wave run in parallel.
pub fn tree(provider: &Provider, graph: &ProjectGraph, plan: &ExecutionPlan) -> String {
    let mut out = String::new();
    let _ = write!(out, "{}", provider.name);
    if !provider.description.is_empty() {
        let _ = write!(out, ": {}", provider.description);
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "{}: {} projects in {} waves, up to {} at once{}\n",
        plan.operation,
        plan.len(),
        plan.waves.len(),
        plan.max_width(),
        if plan.operation.is_reversed() { " (reverse order: dependents first)" } else { "" }
    );
    let width = plan.order.iter().map(|&node| graph.project(node).path.as_str().len()).max().unwrap_or(0);
    let mut current_phase = None;
    let phase_waves: Vec<(usize, &Vec<usize>)> = plan.waves.iter().enumerate().collect();
    for (position, (wave_number, wave)) in phase_waves.iter().enumerate() {
        let phase = graph.project(wave[0]).phase;
        if current_phase != Some(phase) {
            let _ = writeln!(out, "{phase} phase");
            current_phase = Some(phase);
        }
        let last_in_phase = phase_waves.get(position + 1).is_none_or(|(_, next)| graph.project(next[0]).phase != phase);
        let (branch, indent) = if last_in_phase { ("└──", "    ") } else { ("├──", "│   ") };
        let parallel = if wave.len() > 1 { format!(" ({} in parallel)", wave.len()) } else { String::new() };
        let _ = writeln!(out, "{branch} wave {}{parallel}", wave_number + 1);
        for (i, &node) in wave.iter().enumerate() {
            let project = graph.project(node);
            let leaf = if i + 1 == wave.len() { "└──" } else { "├──" };
            let mut line = format!("{indent}{leaf} {:width$}  {}", project.path.as_str(), project.description);
            let waits = &plan.step(node).expect("planned").waits_for;
            if !waits.is_empty() {
                let names: Vec<&str> = waits.iter().map(|&w| graph.project(w).path.as_str()).collect();
                let _ = write!(line, "  (after {})", names.join(", "));
            }
            if !project.on_success.is_empty() && !plan.operation.is_reversed() {
                let hooks: Vec<String> = project.on_success.iter().map(|hook| hook.describe()).collect();
                let _ = write!(line, "  then {}", hooks.join(", "));
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    out
}
