//! The masking invariant as a property: a secret of any shape, printed in any form the mask
//! knows, inside any text, reaches no piece of output, whether the output is masked whole, cut
//! into pieces at `split_point` and masked piece by piece, or masked and then cut or wrapped.
//!
//! The default suite runs `DEFAULT_CASES` cases from a fixed seed; a longer run:
//! `RUNNER_MASK_CASES=200000 cargo test --lib masking_property`.

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use super::{split_point, SecretMask, MASK};

const DEFAULT_CASES: u32 = 3000;

fn cases() -> u32 {
    std::env::var("RUNNER_MASK_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(DEFAULT_CASES)
}

fn runner() -> TestRunner {
    let config = Config { cases: cases(), failure_persistence: None, ..Config::default() };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]))
}

/// Secrets of the shapes that broke masking before: short, numeric, quotes, backslashes,
/// newlines, unicode, spaces, shell and URL specials.
fn secret() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9]{1,3}",
        "[0-9]{1,12}",
        "[a-zA-Z0-9\"\\\\'$`&<>%+/= \n\té€😀-]{1,40}",
        "[a-z]{4,8}\"[a-z\\\\]{1,8}",
    ]
}

/// How a program prints the value, each written here independently of `printed_forms`.
#[derive(Debug, Clone, Copy)]
enum Encoding {
    Raw,
    Json,
    GoJson,
    PythonJson,
    DoubleJson,
    ShellSingle,
    YamlSingle,
    Url,
    FormUrl,
    Base64Alone,
    Base64Inside { prefix: usize },
    Base64UrlInside { prefix: usize },
}

fn encoding() -> impl Strategy<Value = Encoding> {
    prop_oneof![
        Just(Encoding::Raw),
        Just(Encoding::Json),
        Just(Encoding::GoJson),
        Just(Encoding::PythonJson),
        Just(Encoding::DoubleJson),
        Just(Encoding::ShellSingle),
        Just(Encoding::YamlSingle),
        Just(Encoding::Url),
        Just(Encoding::FormUrl),
        Just(Encoding::Base64Alone),
        (0usize..6).prop_map(|prefix| Encoding::Base64Inside { prefix }),
        (0usize..6).prop_map(|prefix| Encoding::Base64UrlInside { prefix }),
    ]
}

fn json(value: &str) -> String {
    let quoted = serde_json::to_string(value).unwrap();
    quoted[1..quoted.len() - 1].to_string()
}

fn url(value: &str, plus: bool) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            b' ' if plus => "+".to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The printed text and the needle a leak would show: the part that depends on the secret alone.
fn printed(secret: &str, encoding: Encoding) -> Option<(String, String)> {
    let same = |text: String| Some((text.clone(), text));
    match encoding {
        Encoding::Raw => same(secret.to_string()),
        Encoding::Json => same(json(secret)),
        Encoding::GoJson => same(json(secret).replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")),
        Encoding::PythonJson => same(
            json(secret)
                .chars()
                .map(|c| {
                    if c.is_ascii() {
                        c.to_string()
                    } else {
                        c.encode_utf16(&mut [0; 2]).iter().map(|unit| format!("\\u{unit:04x}")).collect()
                    }
                })
                .collect(),
        ),
        Encoding::DoubleJson => same(json(&json(secret))),
        Encoding::ShellSingle => same(secret.replace('\'', "'\\''")),
        Encoding::YamlSingle => same(secret.replace('\'', "''")),
        Encoding::Url => same(url(secret, false)),
        Encoding::FormUrl => same(url(secret, true)),
        Encoding::Base64Alone => same(STANDARD.encode(secret)),
        Encoding::Base64Inside { prefix } | Encoding::Base64UrlInside { prefix } => {
            let mut bytes = vec![b'#'; prefix];
            bytes.extend_from_slice(secret.as_bytes());
            bytes.extend_from_slice(b"##");
            let text = match encoding {
                Encoding::Base64Inside { .. } => STANDARD.encode(&bytes),
                _ => URL_SAFE_NO_PAD.encode(&bytes),
            };
            let first = (8 * prefix).div_ceil(6);
            let end = 8 * (prefix + secret.len()) / 6;
            // The one limit: a value too short to own `MIN_BASE64_FRAGMENT` characters at this
            // offset (one or two characters would blot that letter everywhere).
            (first + 3 <= end).then(|| (text.clone(), text[first..end].to_string()))
        }
    }
}

/// `output` with every mask made opaque, so a needle cannot be spelled by the mask's own
/// letters or across a mask and its neighbours: what is left is text that was printed.
fn leaks(output: &str, needle: &str) -> bool {
    output.replace(MASK, "\u{0}").contains(needle)
}

fn text_around() -> impl Strategy<Value = String> {
    "[ -~]{0,30}"
}

#[test]
fn masking_property_no_printed_form_reaches_output() {
    let strategy = (secret(), encoding(), text_around(), text_around(), any::<prop::sample::Index>(), 1usize..64);
    runner()
        .run(&strategy, |(secret, encoding, before, after, cut, width)| {
            let Some((form, needle)) = printed(&secret, encoding) else { return Ok(()) };
            let mask = SecretMask::new([secret.clone(), "another-known-secret".to_string()]);
            let line = format!("{before}{form}{after}");

            // Masked whole.
            let masked = mask.apply(&line);
            prop_assert!(!leaks(&masked, &needle), "whole: {masked:?} shows {needle:?}");

            // Masked, then cut and wrapped as reporters do: nothing can reappear. The masks are
            // made opaque first (same length) so a cut through a mask is not read as a leak.
            let opaque = masked.replace(MASK, &"\u{0}".repeat(MASK.len()));
            let at = cut.index(opaque.len() + 1);
            let at = (0..=at).rev().find(|at| opaque.is_char_boundary(*at)).unwrap_or(0);
            prop_assert!(!opaque[..at].contains(&needle) && !opaque[at..].contains(&needle));
            for piece in crate::text::word_wrap(&opaque, "", "", width) {
                prop_assert!(!piece.contains(&needle), "wrapped: {piece:?}");
            }

            // Cut first where the streaming reader cuts long lines, then masked piece by piece:
            // the cut never falls inside a secret, unless the secret is longer than the limit
            // and starts the line, where no cut could keep it whole.
            let bytes = line.as_bytes();
            let limit = 1 + cut.index(bytes.len());
            let split = split_point(&mask, bytes, limit);
            for (start, end) in mask.secret_spans(bytes) {
                prop_assert!(!(start < split && split < end) || start == 0, "cut at {split} inside {start}..{end}");
            }
            for piece in [&bytes[..split], &bytes[split..]] {
                let piece = mask.apply(&String::from_utf8_lossy(piece));
                prop_assert!(!leaks(&piece, &needle), "split at {split}: {piece:?} shows {needle:?}");
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn masking_property_secret_outputs_of_any_type() {
    let value = prop_oneof![
        "[a-zA-Z0-9\"\\\\ ]{1,12}".prop_map(serde_json::Value::from),
        any::<i32>().prop_map(serde_json::Value::from),
        any::<bool>().prop_map(serde_json::Value::from),
        (-1e6f64..1e6).prop_map(serde_json::Value::from),
    ];
    runner()
        .run(&(value, text_around()), |(value, before)| {
            let mask = SecretMask::default();
            let outputs: serde_json::Map<String, serde_json::Value> =
                [("secret".to_string(), serde_json::json!({ "nested": [value.clone()] }))].into_iter().collect();
            mask.add_json_values(&outputs);
            let shown = match &value {
                serde_json::Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let masked = mask.apply(&format!("{before}{shown} and {}", serde_json::to_string(&value).unwrap()));
            prop_assert!(!leaks(&masked, &shown), "{masked:?} shows {shown:?}");
            Ok(())
        })
        .unwrap();
}
