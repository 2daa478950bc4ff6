//! Snapshots of every drawing of NGINX MARA's AWS plan.

use crate::graph::{mara_aws_provider as mara_aws, ProjectGraph};
use crate::plan::{ExecutionPlan, Operation};

#[test]
fn mara_aws_tree() {
    let provider = mara_aws();
    let graph = ProjectGraph::build(&provider).unwrap();
    insta::assert_snapshot!(super::tree(&provider, &graph, &ExecutionPlan::full(&graph, Operation::Up)));
}

#[test]
fn mara_aws_json() {
    let provider = mara_aws();
    let graph = ProjectGraph::build(&provider).unwrap();
    insta::assert_snapshot!(super::json(&provider, &graph, &ExecutionPlan::full(&graph, Operation::Up)));
}

#[test]
fn mara_aws_mermaid_and_dot() {
    let provider = mara_aws();
    let graph = ProjectGraph::build(&provider).unwrap();
    let plan = ExecutionPlan::full(&graph, Operation::Up);
    insta::assert_snapshot!(format!(
        "{}\n{}",
        super::mermaid(&provider, &graph, &plan),
        super::dot(&provider, &graph, &plan)
    ));
}
