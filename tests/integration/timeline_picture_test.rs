//! The timeline of an interrupted run, as a browser draws it: the cancelled attempt in its own
//! colour (not the failed one), no critical path, and `runner timeline` refuses a terminal.

use crate::scheduling_test::{assert_bars_drawn, bars, close, render_in_browser, rgb, size_of};
use crate::support::Workspace;

#[test]
fn ext_an_interrupted_run_with_a_cancelled_attempt_is_drawn_as_such_in_a_browser() {
    let workspace = Workspace::new();
    let history = r#"{"run_id":"r1","provider":"demo","stack":"dev","operation":"up","state":"finished","pid":1,
        "host":"h","started":1000.0,"ended":1004.6,"projects":[]}"#;
    workspace.file(".runner/history/r1.json", history);
    let timeline = r#"{"run_id":"r1","provider":"demo","stack":"dev","operation":"up","parallelism":2,"started":1000.0,
        "ended":1004.6,"projects":[
          {"project":"base","result":"succeeded","waits_for":[],"segments":[{"kind":"attempt","start":1000.0,"end":1002.0,"attempt":1}]},
          {"project":"app","result":"cancelled","waits_for":["base"],"segments":[{"kind":"failed_attempt","start":1002.0,"end":1004.6,"attempt":1}]}]}"#;
    workspace.file(".runner/timelines/r1.json", timeline);
    let svg_path = workspace.path("t.svg");
    workspace.run(&["timeline", "r1", "-o", svg_path.to_str().unwrap()]).expect_code(0);
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert_eq!(bars(&svg, "app").iter().map(|bar| bar.0.as_str()).collect::<Vec<_>>(), ["cancelled-attempt"]);
    assert!(!svg.contains("data-critical") && svg.contains("no critical path"), "{svg}");
    assert!(!svg.contains('`'), "{svg}");
    let png = render_in_browser(&svg_path, size_of(&svg));
    let colours =
        [("attempt", runner::render::ATTEMPT_COLOUR), ("cancelled-attempt", runner::render::CANCELLED_COLOUR)];
    for project in ["base", "app"] {
        assert_bars_drawn(&png, &svg, project, &colours);
    }
    let (width, pixels) = &png;
    let (_, x, y, w, h) = bars(&svg, "app")[0];
    let centre = pixels[((y + h / 2.0) as u32 * width + (x + w / 2.0) as u32) as usize];
    assert!(!close(centre, rgb(runner::render::FAILED_COLOUR)), "a cancelled attempt is no failure");
}

/// In a terminal `runner timeline` prints no markup: it says how to write the picture, and the
/// command it prints works.
#[test]
fn timeline_in_a_terminal_refuses_with_a_command_that_writes_the_file() {
    let workspace = Workspace::new();
    workspace.file(
        ".runner/history/r1.json",
        r#"{"run_id":"r1","provider":"demo","stack":"dev","operation":"up","state":"finished","pid":1,
        "host":"h","started":1000.0,"ended":1001.0,"projects":[]}"#,
    );
    let output = workspace.in_a_terminal("[]", &["timeline"]).env("NO_COLOR", "1").output().unwrap();
    let transcript = String::from_utf8_lossy(&output.stdout);
    assert!(!transcript.contains("<svg"), "{transcript}");
    assert!(transcript.contains("`runner timeline -o timeline.svg`"), "{transcript}");
    workspace.run(&["timeline", "-o", "timeline.svg"]).expect_code(0);
    assert!(std::fs::read_to_string(workspace.path("timeline.svg")).unwrap().starts_with("<svg"));
}
