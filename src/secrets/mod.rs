mod secret_forms;
mod secret_mask;
mod secret_rule;
mod split_point;

#[cfg(test)]
mod masking_property_tests;

pub use secret_forms::printed_forms;
pub use secret_mask::SecretMask;
#[cfg(test)]
pub use secret_mask::MASK;
pub use secret_rule::{url_password, SecretRule};
pub use split_point::split_point;
