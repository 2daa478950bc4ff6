use std::io::{ErrorKind, Write};

use crate::error::{Result, UserError};

/// Data for stdout (`export`, `outputs`, `show`): written whole and flushed, or an error, so a
/// full disk behind `> file` is a failure and never a quietly cut file. A reader that closed the
/// pipe (`| head`) wanted no more: that stays quiet, as with any Unix filter.
pub(crate) fn write_data(bytes: &[u8]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == ErrorKind::BrokenPipe => Ok(()),
        Err(err) => Err(UserError::Unwritable { path: "stdout".into(), source: err }),
    }
}
