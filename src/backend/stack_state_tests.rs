use super::*;
use crate::backend::DigestSalt;
use crate::backend::MemoryFiles;

const STACKS: &str = ".pulumi/stacks/app/dev.json";
const HISTORY: &str = ".pulumi/history/app/dev/";

fn checkpoint(resources: usize) -> String {
    let resources: Vec<String> = (0..resources)
        .map(|index| {
            format!(
                r#"{{"urn":"u{index}","type":"{}"}}"#,
                if index == 0 { "pulumi:pulumi:Stack" } else { "pulumi:index:Stash" }
            )
        })
        .collect();
    format!(r#"{{"version":3,"checkpoint":{{"latest":{{"resources":[{}]}}}}}}"#, resources.join(","))
}

fn fingerprint(inputs: &str) -> UpFingerprint {
    UpFingerprint::of(&DigestSalt::new(b"s".to_vec()), inputs, &[], None)
}

/// A backend where `app/dev` had these updates, oldest first, each saving its checkpoint copy.
fn backend(updates: &[(&str, &str, &str, &str, usize)]) -> MemoryFiles {
    let files = MemoryFiles::default();
    for (index, (kind, result, message, changes, resources)) in updates.iter().enumerate() {
        let nanos = 1_764_000_000_000_000_000u128 + index as u128 * 1000;
        let record =
            format!(r#"{{"kind":"{kind}","result":"{result}","message":"{message}","resourceChanges":{changes}}}"#);
        files.put(&format!("{HISTORY}dev-{nanos}.history.json"), record);
        files.put(&format!("{HISTORY}dev-{nanos}.checkpoint.json"), checkpoint(*resources));
        files.put(STACKS, checkpoint(*resources));
    }
    files
}

/// Every shape a stack can be in after the runner's `up`: only those where nothing touched it
/// since (or only refreshes that found it as it was) prove the `up`'s fingerprint.
#[test]
fn only_a_stack_as_the_runners_up_left_it_proves_its_fingerprint() {
    let ours = fingerprint("i").message();
    let up = ("update", "succeeded", ours.as_str(), r#"{"create":2}"#, 2);
    type Case<'a> = (&'a str, Vec<(&'a str, &'a str, &'a str, &'a str, usize)>, Result<(), &'a str>);
    let cases: Vec<Case> = vec![
        ("the runner's up", vec![up], Ok(())),
        ("then a refresh that changed nothing", vec![up, ("refresh", "succeeded", "", r#"{"same":2}"#, 2)], Ok(())),
        (
            "then a refresh that changed outputs",
            vec![up, ("refresh", "succeeded", "", r#"{"same":1,"update":1}"#, 2)],
            Err("`refresh` (succeeded)"),
        ),
        ("then a destroy", vec![up, ("destroy", "succeeded", "", r#"{"delete":2}"#, 0)], Err("`destroy` (succeeded)")),
        (
            "then an up by hand",
            vec![up, ("update", "succeeded", "", r#"{"same":2}"#, 2)],
            Err("not made by the runner"),
        ),
        ("then a failed up", vec![up, ("update", "failed", ours.as_str(), r#"{"update":1}"#, 2)], Err("`up` (failed)")),
        (
            "an up of the runner that left nothing",
            vec![("update", "succeeded", ours.as_str(), "{}", 0)],
            Err("no resources"),
        ),
    ];
    for (name, updates, expected) in cases {
        let files = backend(&updates);
        let proof = StackState::new(&files, "app", "dev").last_up();
        match (expected, proof) {
            (Ok(()), Ok(found)) => assert_eq!(found, fingerprint("i"), "{name}"),
            (Err(words), Err(missing)) => assert!(missing.to_string().contains(words), "{name}: {missing}"),
            (expected, proof) => panic!("{name}: expected {expected:?}, got {proof:?}"),
        }
    }
}

#[test]
fn a_checkpoint_changed_after_the_last_record_or_missing_proves_nothing() {
    let ours = fingerprint("i").message();
    let files = backend(&[("update", "succeeded", ours.as_str(), "{}", 2)]);
    files.put(STACKS, checkpoint(3));
    assert!(matches!(StackState::new(&files, "app", "dev").last_up(), Err(MissingProof::ChangedSince)));
    let empty = MemoryFiles::default();
    assert!(matches!(StackState::new(&empty, "app", "dev").last_up(), Err(MissingProof::NoStack)));
    empty.put(STACKS, checkpoint(0));
    assert!(matches!(StackState::new(&empty, "app", "dev").last_up(), Err(MissingProof::NoHistory)));
    let torn = backend(&[("update", "succeeded", ours.as_str(), "{}", 2)]);
    torn.put(STACKS, "{");
    assert!(matches!(StackState::new(&torn, "app", "dev").last_up(), Err(MissingProof::ChangedSince)));
}
