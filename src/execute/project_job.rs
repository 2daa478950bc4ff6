use std::future::Future;
use std::pin::Pin;

use super::{Cancellation, EventSender, ProjectReport};
use crate::graph::NodeIndex;

/// Runs one project of the plan to completion: the executor's only way to touch the outside world.
pub(crate) trait ProjectJob: Send + Sync + 'static {
    fn run(
        &self,
        node: NodeIndex,
        events: EventSender,
        cancellation: Cancellation,
    ) -> Pin<Box<dyn Future<Output = ProjectReport> + Send + 'static>>;
}
