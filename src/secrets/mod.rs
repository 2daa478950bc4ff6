mod secret_forms;
mod secret_mask;
mod secret_rule;
mod split_point;

#[cfg(test)]
mod masking_property_tests;

pub(crate) use secret_forms::printed_forms;
pub(crate) use secret_mask::SecretMask;
#[cfg(test)]
pub(crate) use secret_mask::MASK;
pub(crate) use secret_rule::{url_password, SecretRule};
pub(crate) use split_point::split_point;
