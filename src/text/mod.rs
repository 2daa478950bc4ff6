//! Small wording helpers shared by every layer that prints: counts with the right noun, text
//! fitted or wrapped to a terminal's width, durations as a user writes them, and lines written
//! without panicking (`stderr_line!`).

mod console_lines;
mod counted;
mod duration_text;
mod fitted;
mod word_wrap;

pub(crate) use console_lines::labelled;
pub(crate) use console_lines::{stderr_line, stderr_text, stdout_line, stdout_text};
pub(crate) use counted::{counted, counted_as, nonzero_counts};
pub(crate) use duration_text::{parse_duration, DURATION_SHAPES};
pub(crate) use fitted::{fit_middle, fit_path, fit_reason, fit_words};
pub(crate) use word_wrap::word_wrap;
