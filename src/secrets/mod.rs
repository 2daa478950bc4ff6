mod secret_mask;
mod secret_store;

pub use secret_mask::{SecretMask, MASK};
pub use secret_store::SecretStore;
