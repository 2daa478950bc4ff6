mod cancellation;
mod process_alive;

pub use cancellation::{CancelLevel, Cancellation};
pub use process_alive::process_alive;
