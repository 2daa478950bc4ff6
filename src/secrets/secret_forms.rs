//! The shapes one secret value takes when a program prints it: raw, escaped for JSON (as serde,
//! Go's `encoding/json` and Python's `json` write it), quoted for a shell or YAML, URL-encoded and
//! base64-encoded. Masking every shape is what makes "the value reaches no sink" hold whatever
//! tool printed it.

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine;

/// `base64` (coreutils) wraps its output at 76 characters.
const BASE64_LINE: usize = 76;

/// The shortest base64 fragment masked. A value of one or two bytes owns at most two characters
/// of a longer encoded text (`x` owns one `e`); masking those would blot that letter in every
/// line while proving nothing. Its encoding alone, padded, is still masked.
const MIN_BASE64_FRAGMENT: usize = 3;

/// Every printed shape of `value`, raw first, without duplicates or empty strings.
pub(crate) fn printed_forms(value: &str) -> Vec<String> {
    let mut forms = Forms::default();
    forms.push(value.to_string());
    // A multi-line value (a PEM key) is printed a line at a time by most programs.
    if value.contains('\n') || value.contains('\r') {
        for line in value.lines() {
            forms.push(line.to_string());
            forms.push(line.trim().to_string());
        }
    }
    let json = json_escaped(value);
    forms.push(go_json_escaped(&json));
    forms.push(ascii_json_escaped(&json));
    // A JSON document quoted inside another (a diagnostic that quotes an event, `kubectl -o json`
    // of an annotation holding JSON) escapes the escapes once more.
    forms.push(json_escaped(&json));
    forms.push(json);
    forms.push(value.replace('\'', "'\\''"));
    forms.push(value.replace('\'', "'\"'\"'"));
    forms.push(value.replace('\'', "''"));
    forms.push(backslash_escaped(value, |c| matches!(c, '\\' | '"' | '$' | '`')));
    forms.push(backslash_escaped(value, |c| !c.is_ascii_alphanumeric() && !matches!(c, '-' | '_' | '.' | '/' | ',')));
    forms.push(c_escaped(value));
    for (keep, space_as_plus, upper) in [
        ("-._~", false, true),
        ("-._~", false, false),
        ("-._~", true, true),
        ("-._~!'()*", false, true),
        ("-._~!$&'()*+,;=:@/?", false, true),
    ] {
        forms.push(percent_encoded(value, keep, space_as_plus, upper));
    }
    for form in base64_forms(value.as_bytes()) {
        forms.push(form);
    }
    forms.0
}

#[derive(Default)]
struct Forms(Vec<String>);

impl Forms {
    fn push(&mut self, form: String) {
        if !form.is_empty() && !self.0.contains(&form) {
            self.0.push(form);
        }
    }
}

/// The inside of serde_json's string literal: `"`, `\` and control characters escaped.
fn json_escaped(value: &str) -> String {
    let quoted = serde_json::to_string(value).unwrap_or_default();
    quoted[1..quoted.len().saturating_sub(1).max(1)].to_string()
}

/// Go's `encoding/json` (Pulumi's event log, `kubectl -o json`) also escapes `<`, `>`, `&` and
/// the two Unicode line separators.
fn go_json_escaped(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// Python's `json.dumps` (and `jq -a`) writes everything outside ASCII as `\uXXXX`.
fn ascii_json_escaped(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

fn backslash_escaped(value: &str, escape: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(value.len() * 2);
    for c in value.chars() {
        if escape(c) && c != '\n' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Bash's `$'...'` and `printf %q` of a value with control characters.
fn c_escaped(value: &str) -> String {
    let mut out = String::with_capacity(value.len() * 2);
    for c in value.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c => out.push(c),
        }
    }
    out
}

fn percent_encoded(value: &str, keep: &str, space_as_plus: bool, upper: bool) -> String {
    let mut out = String::with_capacity(value.len() * 3);
    for byte in value.bytes() {
        let c = byte as char;
        if byte.is_ascii_alphanumeric() || (byte.is_ascii() && keep.contains(c)) {
            out.push(c);
        } else if byte == b' ' && space_as_plus {
            out.push('+');
        } else if upper {
            out.push_str(&format!("%{byte:02X}"));
        } else {
            out.push_str(&format!("%{byte:02x}"));
        }
    }
    out
}

/// The characters of a base64 text that depend on `bytes` alone, for each of the three offsets
/// the value can have inside a longer encoded text, in both alphabets; and the lines of the value
/// encoded alone and wrapped as `base64` wraps it.
fn base64_forms(bytes: &[u8]) -> Vec<String> {
    let mut forms = Vec::new();
    // Alone and padded, as `base64` and most libraries print a value encoded by itself.
    forms.push(STANDARD.encode(bytes));
    forms.push(URL_SAFE.encode(bytes));
    for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
        let alone = engine.encode(bytes);
        for shift in 0..3usize {
            let mut shifted = vec![0u8; shift];
            shifted.extend_from_slice(bytes);
            let encoded = engine.encode(&shifted);
            // Character i carries bits 6i..6i+6; keep those lying wholly inside the value.
            let first = (8 * shift).div_ceil(6);
            let end = (8 * (shift + bytes.len())) / 6;
            if first + MIN_BASE64_FRAGMENT <= end && end <= encoded.len() {
                forms.push(encoded[first..end].to_string());
            }
        }
        if alone.len() > BASE64_LINE {
            forms.extend(alone.as_bytes().chunks(BASE64_LINE).map(|line| String::from_utf8_lossy(line).into_owned()));
        }
        if alone.len() >= MIN_BASE64_FRAGMENT {
            forms.push(alone);
        }
    }
    forms
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(forms: &[String], form: &str) -> bool {
        forms.iter().any(|known| known == form)
    }

    #[test]
    fn json_escapes_as_serde_go_and_python_write_them() {
        let forms = printed_forms("a\"b\\c<d>é");
        assert!(has(&forms, r#"a\"b\\c<d>é"#), "{forms:?}");
        assert!(has(&forms, r#"a\"b\\c\u003cd\u003eé"#), "{forms:?}");
        assert!(has(&forms, r#"a\"b\\c<d>\u00e9"#), "{forms:?}");
    }

    #[test]
    fn shell_yaml_and_url_quoting() {
        let forms = printed_forms("it's a/b");
        assert!(has(&forms, r"it'\''s a/b"));
        assert!(has(&forms, "it''s a/b"));
        assert!(has(&forms, "it%27s%20a%2Fb"));
        assert!(has(&forms, "it%27s+a%2Fb"));
    }

    #[test]
    fn base64_cores_are_found_at_every_offset() {
        let secret = b"hunter2!";
        for prefix in 0..6 {
            for suffix in 0..4 {
                let mut text = vec![b'x'; prefix];
                text.extend_from_slice(secret);
                text.extend(std::iter::repeat_n(b'y', suffix));
                let encoded = STANDARD_NO_PAD.encode(&text);
                let forms = printed_forms("hunter2!");
                assert!(forms.iter().any(|form| encoded.contains(form.as_str())), "{prefix}/{suffix}: {encoded}");
            }
        }
    }

    /// A value of one or two bytes is masked as written and encoded alone, never by the one or
    /// two characters it owns inside a longer base64 text: those are ordinary letters.
    #[test]
    fn a_tiny_value_has_no_one_or_two_letter_base64_form() {
        for value in ["x", "1", "ab", "é", "\n"] {
            let forms = printed_forms(value);
            let encoded = [STANDARD.encode(value), URL_SAFE.encode(value)];
            let fragments: Vec<_> = forms
                .iter()
                .filter(|form| form.len() < 3 && form.as_str() != value)
                .filter(|form| encoded.iter().any(|text| text.contains(form.as_str())))
                .collect();
            assert!(fragments.is_empty(), "{value:?}: {fragments:?}");
        }
        let forms = printed_forms("x");
        assert!(has(&forms, "eA==") && !has(&forms, "e") && !has(&forms, "eA"), "{forms:?}");
    }

    #[test]
    fn no_form_is_empty() {
        for value in ["a", "'", "\n", "é", "1"] {
            assert!(printed_forms(value).iter().all(|form| !form.is_empty()), "{value:?}");
        }
    }
}
