/// The salt of the digests the runner keeps in a shared backend: the stack's own encryption salt
/// (every checkout shares its stack file), so a digest cannot be looked up in a table of likely
/// values, and two checkouts of one stack compute the same digest from the same inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DigestSalt(Vec<u8>);

impl DigestSalt {
    pub(crate) fn new(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }

    /// SHA-256 of the salt and each part (each length-prefixed, so parts cannot run together).
    pub(crate) fn digest<'a>(&self, parts: impl IntoIterator<Item = &'a [u8]>) -> String {
        let mut context = ring::digest::Context::new(&ring::digest::SHA256);
        context.update(&(self.0.len() as u64).to_le_bytes());
        context.update(&self.0);
        for part in parts {
            context.update(&(part.len() as u64).to_le_bytes());
            context.update(part);
        }
        context.finish().as_ref().iter().map(|byte| format!("{byte:02x}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cannot_run_together_and_salts_differ() {
        let salt = DigestSalt::new(b"s".to_vec());
        assert_ne!(salt.digest([b"ab".as_slice(), b"c"]), salt.digest([b"a".as_slice(), b"bc"]));
        assert_ne!(salt.digest([b"a".as_slice()]), DigestSalt::new(b"t".to_vec()).digest([b"a".as_slice()]));
        assert_eq!(salt.digest([b"a".as_slice()]).len(), 64);
    }
}
