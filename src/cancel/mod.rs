mod cancellation;

pub use cancellation::{CancelLevel, Cancellation};
