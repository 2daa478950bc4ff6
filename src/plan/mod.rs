mod cluster_rule;
mod critical_path;
mod execution_plan;
mod forecast;
mod operation;
mod plan_dag;
mod selection;

pub(crate) use cluster_rule::{waited_for, waiting_for};
pub(crate) use critical_path::CriticalPath;
pub(crate) use execution_plan::{BarrierReason, ExecutionPlan, PhaseBarrier, PlanStep, StartPriority};
pub(crate) use forecast::{forecast_remaining, StepProgress};
pub(crate) use operation::Operation;
pub(crate) use selection::{closure, Selection};
