mod secret_mask;
mod secret_store;
mod split_point;

pub use secret_mask::{SecretMask, MASK};
pub use secret_store::SecretStore;
pub use split_point::split_point;
