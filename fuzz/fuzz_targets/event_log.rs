//! The `--event-log` stream: any bytes, read line by line or while the file grows in chunks,
//! give the same events, and applying them to the progress never panics.

#![no_main]

use std::io::Write;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use runner::fuzzing::{parse_event_line, EventLogTail, OperationProgress};

fn scratch() -> &'static tempfile::TempDir {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("temp dir"))
}

fuzz_target!(|data: &[u8]| {
    let Some((&chunk_seed, stream)) = data.split_first() else { return };
    // Small pieces split lines (and UTF-8 sequences) anywhere; at most 64 reads keep runs fast.
    let chunk = (1 + usize::from(chunk_seed % 64)).max(stream.len() / 64 + 1);

    let expected: Vec<_> = stream
        .split(|byte| *byte == b'\n')
        .filter_map(|line| std::str::from_utf8(line).ok())
        .filter_map(parse_event_line)
        .collect();

    let path = scratch().path().join("events.jsonl");
    let mut file = std::fs::File::create(&path).unwrap();
    let mut tail = EventLogTail::new(&path);
    let mut events = Vec::new();
    for piece in stream.chunks(chunk) {
        file.write_all(piece).unwrap();
        events.extend(tail.poll());
    }
    events.extend(tail.finish());
    assert_eq!(events, expected, "growing reads and whole-line reads agree");

    let mut progress = OperationProgress::default();
    for event in &events {
        progress.apply(event);
    }
    if let Some(summary) = progress.summary {
        let _ = summary.total_changed();
    }
});
