use super::{cycle_text, ErrorChain, UserError};
use std::io::{Error, ErrorKind};

#[derive(Debug, thiserror::Error)]
#[error("outer")]
struct Outer(#[source] UserError);

#[derive(Debug, thiserror::Error)]
#[error("quoting: {0}")]
struct Quoting(#[source] Error);

/// Every shape of chain: none, one cause, causes nested, a cause its error already quotes.
#[test]
fn a_chain_shows_every_cause_once() {
    let unreadable = || UserError::Unreadable { path: "x.toml".into(), source: Error::other("denied") };
    let unwritable =
        UserError::Unwritable { path: "y.json".into(), source: Error::new(ErrorKind::StorageFull, "full") };
    let shapes: [(&dyn std::error::Error, &str); 5] = [
        (&UserError::Interrupted, "interrupted"),
        (&unreadable(), "cannot read `x.toml`: denied"),
        (&unwritable, "cannot write `y.json`: full"),
        (&Outer(unreadable()), "outer: cannot read `x.toml`: denied"),
        (&Quoting(Error::other("gone")), "quoting: gone"),
    ];
    for (err, shown) in shapes {
        assert_eq!(ErrorChain(err).to_string(), shown);
    }
}

/// The message never holds its cause: the chain adds it, so it is printed once.
#[test]
fn io_variants_keep_their_cause_as_source_not_text() {
    let source = || Error::new(ErrorKind::PermissionDenied, "permission denied");
    for err in [
        UserError::Unreadable { path: "a".into(), source: source() },
        UserError::Unwritable { path: "a".into(), source: source() },
        UserError::InputUnreadable { input: "stdin", source: source() },
        UserError::CannotStart { what: "the async runtime", source: source() },
    ] {
        assert!(!err.to_string().contains("permission denied"), "{err}");
        let cause = std::error::Error::source(&err).and_then(|cause| cause.downcast_ref::<Error>());
        assert_eq!(cause.map(Error::kind), Some(ErrorKind::PermissionDenied), "{err:?}");
        assert_eq!(err.chain().to_string().matches("permission denied").count(), 1, "{}", err.chain());
    }
}

/// Every path in a message goes through `shown_path`, so it reads relative to where the user
/// stands like the footer's: a `PathBuf` field interpolated as `{field}` prints this machine's
/// absolute path.
#[test]
fn no_message_prints_a_path_field_as_it_is() {
    let source = include_str!("error.rs");
    let enum_body = &source[source.find("pub enum UserError").unwrap()..];
    let mut format = String::new();
    let mut checked = 0;
    for line in enum_body.lines().map(str::trim) {
        if line.starts_with("#[error(") {
            format = line.to_string();
        } else if let Some((_, fields)) = line.split_once(" { ") {
            for field in
                fields.trim_end_matches(['}', ',', ' ']).split(", ").filter_map(|field| field.strip_suffix(": PathBuf"))
            {
                assert!(!format.contains(&format!("{{{field}}}")), "`{field}` shown as it is: {format}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 8, "the sweep found the path fields ({checked})");
}

#[test]
fn long_cycles_are_shortened() {
    let cycle: Vec<String> = (0..1000).map(|i| format!("p{i}")).chain(["p0".to_string()]).collect();
    let text = cycle_text(&cycle);
    assert!(text.starts_with("p0 -> p1 -> ") && text.ends_with("-> p999 -> p0"), "{text}");
    assert!(text.contains("(989 more)"), "{text}");
    assert_eq!(cycle_text(&["a".into(), "b".into(), "a".into()]), "a -> b -> a");
}
