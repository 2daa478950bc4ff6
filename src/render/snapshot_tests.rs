//! Snapshots of every drawing of NGINX MARA's AWS plan.

use crate::graph::{mara_aws_provider as mara_aws, test_provider, ProjectGraph};
use crate::plan::{ExecutionPlan, Operation};
use crate::provider::Phase::{Infrastructure as I, Kubernetes as K};
use crate::render::TreeLayout;

/// Wide enough that every project of MARA's plan fits on one line.
const WIDE: TreeLayout = TreeLayout { width: 400, parallelism: 4 };

#[test]
fn mara_aws_tree() {
    let provider = mara_aws();
    let graph = ProjectGraph::build(&provider).unwrap();
    insta::assert_snapshot!(super::tree(&provider, &graph, &ExecutionPlan::full(&graph, Operation::Up), WIDE));
}

/// The default width of a pipe: long dependency lists go under their project, inside the
/// tree's lines.
#[test]
fn mara_aws_tree_wrapped_at_100() {
    let provider = mara_aws();
    let graph = ProjectGraph::build(&provider).unwrap();
    let layout = TreeLayout::new(TreeLayout::DEFAULT_WIDTH, 4);
    insta::assert_snapshot!(super::tree(&provider, &graph, &ExecutionPlan::full(&graph, Operation::Up), layout));
}

/// An 80-column terminal: descriptions no longer fit beside the names and go under them too.
#[test]
fn mara_aws_tree_wrapped_at_80() {
    let provider = mara_aws();
    let graph = ProjectGraph::build(&provider).unwrap();
    let layout = TreeLayout::new(80, 4);
    let tree = super::tree(&provider, &graph, &ExecutionPlan::full(&graph, Operation::Up), layout);
    for line in tree.lines() {
        let long_word = line.split(' ').any(|word| word.chars().count() > 40);
        assert!(line.chars().count() <= 80 || long_word, "{line}");
    }
    insta::assert_snapshot!(tree);
}

#[test]
fn header_caps_the_widest_wave_with_the_parallelism() {
    let provider = mara_aws();
    let graph = ProjectGraph::build(&provider).unwrap();
    let plan = ExecutionPlan::full(&graph, Operation::Up);
    assert_eq!(plan.max_width(), 4);
    let header = |parallelism| {
        let tree = super::tree(&provider, &graph, &plan, TreeLayout { width: 250, parallelism });
        tree.lines().nth(1).unwrap().to_string()
    };
    assert_eq!(header(4), "up: 15 projects in 6 waves (infrastructure 3, kubernetes 5, 2 alongside), up to 4 at once");
    assert_eq!(header(8), "up: 15 projects in 6 waves (infrastructure 3, kubernetes 5, 2 alongside), up to 4 at once");
    assert_eq!(header(2), "up: 15 projects in 6 waves (infrastructure 3, kubernetes 5, 2 alongside), up to 2 at once (`-j 2`; 4 could run together with `-j 4`)");
}

#[test]
fn mara_aws_json() {
    let provider = mara_aws();
    let graph = ProjectGraph::build(&provider).unwrap();
    insta::assert_snapshot!(super::json(&provider, &graph, &ExecutionPlan::full(&graph, Operation::Up), 4));
}

/// With every duration known (`show --durations`, or the history), the JSON states what
/// `benches/report.py` reads instead of scheduling by itself: the critical path, and the list
/// schedule at `-j`, which is the total work one at a time and the critical path with a slot
/// for everyone.
#[test]
fn mara_aws_json_with_durations() {
    let provider = mara_aws();
    let graph = ProjectGraph::build(&provider).unwrap();
    let plan = ExecutionPlan::full(&graph, Operation::Up)
        .with_expected(&|node| Some(std::time::Duration::from_secs(1 + node as u64 % 4)));
    let expected = |parallelism| {
        let json: serde_json::Value =
            serde_json::from_str(&super::json(&provider, &graph, &plan, parallelism)).unwrap();
        json["expected"].clone()
    };
    assert_eq!(expected(1)["schedule_seconds"], expected(1)["total_work_seconds"]);
    assert_eq!(expected(15)["schedule_seconds"], expected(15)["critical_path_seconds"]);
    insta::assert_snapshot!(super::json(&provider, &graph, &plan, 2));
}

#[test]
fn mara_aws_mermaid() {
    let provider = mara_aws();
    let graph = ProjectGraph::build(&provider).unwrap();
    insta::assert_snapshot!(super::mermaid(&provider, &graph, &ExecutionPlan::full(&graph, Operation::Up)));
}

/// One cluster per phase holding all its projects, waves as ranks inside them, and the phase
/// order as an edge between the clusters (the integration test renders it with graphviz).
#[test]
fn mara_aws_dot() {
    let provider = mara_aws();
    let graph = ProjectGraph::build(&provider).unwrap();
    insta::assert_snapshot!(super::dot(&provider, &graph, &ExecutionPlan::full(&graph, Operation::Up)));
}

#[test]
fn dot_orders_the_phases_backwards_for_destroy() {
    let provider = mara_aws();
    let graph = ProjectGraph::build(&provider).unwrap();
    let dot = super::dot(&provider, &graph, &ExecutionPlan::full(&graph, Operation::Destroy));
    let order: Vec<&str> = dot.lines().filter(|line| line.contains("phase order")).collect();
    assert_eq!(order.len(), 1, "{dot}");
    assert!(order[0].contains(r#"ltail="cluster_kubernetes", lhead="cluster_infrastructure""#), "{dot}");
    assert!(!dot.lines().any(|line| line.starts_with("  { rank=same")), "ranks stay inside clusters: {dot}");
}

#[test]
fn mara_aws_tree_with_history() {
    let provider = mara_aws();
    let graph = ProjectGraph::build(&provider).unwrap();
    // Minutes of a fresh MARA deployment, per project in declaration order (two unknown).
    let minutes = [3, 14, 1, 0, 1, 8, 2, 0, 2, 3, 1, 2, 4, 3, 0];
    let plan = ExecutionPlan::full(&graph, Operation::Up).with_expected(&|node| {
        (node != 7 && node != 14).then(|| std::time::Duration::from_secs(60 * minutes[node] + 30))
    });
    insta::assert_snapshot!(super::tree(&provider, &graph, &plan, WIDE));
}

#[test]
fn show_says_why_each_project_waits() {
    let mut provider = test_provider(&[
        ("net", I, &[]),
        ("cluster", I, &["net"]),
        ("registry", I, &[]),
        ("slow-dns", I, &[]),
        ("image", K, &["registry"]),
        ("app", K, &["image"]),
    ]);
    provider.projects[1].provides_cluster = true;
    provider.projects[4].needs_cluster = false;
    let graph = ProjectGraph::build(&provider).unwrap();
    let plan = ExecutionPlan::full(&graph, Operation::Up);
    assert_eq!(super::why_it_waits(&graph, &plan, 5), ["after image", "needs the cluster: cluster"]);
    assert_eq!(super::why_it_waits(&graph, &plan, 4), ["after registry", "needs no cluster"]);
}

/// The drawn edges are a transitive reduction (no edge another path implies), and the phase
/// order ends on a project that waits for the earlier phase's last one.
#[test]
fn dot_draws_no_implied_edge_and_the_phase_order_lands_on_a_waiting_project() {
    let provider = mara_aws();
    let graph = ProjectGraph::build(&provider).unwrap();
    let dot = super::dot(&provider, &graph, &ExecutionPlan::full(&graph, Operation::Up));
    let edges: Vec<(String, String)> = dot
        .lines()
        .filter(|line| line.contains(" -> ") && !line.contains("style=invis"))
        .map(|line| {
            let mut ends = line.trim().split(" -> ").map(|end| end.split('"').nth(1).unwrap().to_string());
            (ends.next().unwrap(), ends.next().unwrap())
        })
        .collect();
    let reaches = |from: &str, to: &str, skip: usize| {
        let mut stack = vec![from.to_string()];
        let mut seen = std::collections::BTreeSet::new();
        while let Some(at) = stack.pop() {
            for (index, (tail, head)) in edges.iter().enumerate() {
                if index != skip && *tail == at && seen.insert(head.clone()) {
                    stack.push(head.clone());
                }
            }
        }
        seen.contains(to)
    };
    for (index, (tail, head)) in edges.iter().enumerate() {
        assert!(!reaches(tail, head, index), "`{tail}` -> `{head}` is implied by another path:\n{dot}");
    }
    let phase = dot.lines().find(|line| line.contains("phase order")).unwrap();
    assert!(phase.starts_with(r#"  "infrastructure/kubeconfig" -> "kubernetes/"#), "{phase}");
}

/// `show` numbers the waves of each phase from 1 without gaps, for every operation and every
/// selection that leaves one project out: the plan's own steps jump across phases.
#[test]
fn tree_numbers_waves_per_phase_from_1() {
    let provider = mara_aws();
    let graph = ProjectGraph::build(&provider).unwrap();
    let operations = [Operation::Up, Operation::Preview, Operation::Refresh, Operation::Destroy, Operation::Drift];
    for operation in operations {
        let nodes: Vec<_> = graph.projects().iter().filter_map(|project| graph.node_of(&project.path)).collect();
        for &left_out in &nodes {
            let selected = nodes.iter().copied().filter(|&node| node != left_out).collect();
            let tree = super::tree(&provider, &graph, &ExecutionPlan::new(&graph, operation, &selected), WIDE);
            let mut numbers: Vec<Vec<usize>> = Vec::new();
            for line in tree.lines() {
                if line.ends_with(" phase") {
                    numbers.push(Vec::new());
                } else if let Some(rest) = line.split_once(" wave ").map(|(_, rest)| rest) {
                    let number = rest.split(' ').next().unwrap().parse().unwrap();
                    numbers.last_mut().unwrap().push(number);
                }
            }
            for phase in numbers {
                assert_eq!(phase, (1..=phase.len()).collect::<Vec<_>>(), "{operation:?} without {left_out:?}:\n{tree}");
            }
        }
    }
}
