//! Small wording helpers shared by every layer that prints: counts with the right noun, and
//! text fitted to a terminal's width.

mod counted;
mod fitted;

pub use counted::{counted, counted_as, nonzero_counts};
pub use fitted::{fit_middle, fit_path};
