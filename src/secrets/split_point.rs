//! Where a long output line may be cut into pieces without cutting a secret in two.

use super::SecretMask;

/// The largest index `<= at` where `bytes` can be split so that no printed form of a known
/// secret straddles the cut (each piece is masked on its own) and no UTF-8 character is broken.
/// Only a secret longer than `at` cannot be kept whole, so callers choose `at` far above any
/// secret's length.
pub(crate) fn split_point(mask: &SecretMask, bytes: &[u8], at: usize) -> usize {
    let mut cut = at.min(bytes.len());
    // Spans are merged and ordered, so one that contains the cut is the only one to move it.
    if let Some((start, _)) = mask.secret_spans(bytes).into_iter().find(|(start, end)| *start < cut && cut < *end) {
        cut = start;
    }
    while cut > 0 && cut < bytes.len() && (bytes[cut] & 0b1100_0000) == 0b1000_0000 {
        cut -= 1;
    }
    if cut == 0 {
        at.min(bytes.len())
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_across_the_cut_moves_the_cut_before_it() {
        let mask = SecretMask::new(["straddling-secret".to_string()]);
        let line = b"aaaaaaaaaastraddling-secretbbbb";
        let cut = split_point(&mask, line, 15);
        assert_eq!(cut, 10);
        assert_eq!(mask.apply(std::str::from_utf8(&line[cut..]).unwrap()), "[secret]bbbb");
    }

    #[test]
    fn an_escaped_secret_across_the_cut_moves_it_too() {
        let mask = SecretMask::new(["quote\"d-secret".to_string()]);
        let line = br#"{"v":"quote\"d-secret"}"#;
        let cut = split_point(&mask, line, 12);
        assert_eq!(cut, 6);
    }

    #[test]
    fn a_cut_clear_of_secrets_stays() {
        let mask = SecretMask::new(["elsewhere-secret".to_string()]);
        assert_eq!(split_point(&mask, b"0123456789abcdef", 8), 8);
    }

    #[test]
    fn characters_are_not_broken() {
        let text = "ééééé".as_bytes();
        let cut = split_point(&SecretMask::default(), text, 3);
        assert!(std::str::from_utf8(&text[..cut]).is_ok());
        assert_eq!(cut, 2);
    }
}
