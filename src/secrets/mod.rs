mod secret_mask;
mod split_point;

pub use secret_mask::{SecretMask, MASK};
pub use split_point::split_point;
