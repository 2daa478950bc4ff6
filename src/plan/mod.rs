mod execution_plan;
mod operation;
mod selection;

pub use execution_plan::{start_priority, ExecutionPlan, PlanStep};
pub use operation::Operation;
pub use selection::{closure, Selection};
