mod cluster_rule;
mod critical_path;
mod execution_plan;
mod forecast;
mod operation;
mod plan_dag;
mod selection;

pub use cluster_rule::{waited_for, waiting_for};
pub use critical_path::CriticalPath;
pub use execution_plan::{BarrierReason, ExecutionPlan, PhaseBarrier, PlanStep, StartPriority};
pub use forecast::{forecast_remaining, StepProgress};
pub use operation::Operation;
pub use selection::{closure, Selection};
