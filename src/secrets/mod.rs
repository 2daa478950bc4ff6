mod secret_mask;

pub use secret_mask::{SecretMask, MASK};
