mod execution_plan;
mod operation;

pub use execution_plan::{start_priority, ExecutionPlan, PlanStep};
pub use operation::Operation;
