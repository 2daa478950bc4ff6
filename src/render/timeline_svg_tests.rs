//! The timeline picture of an interrupted run: cancelled attempts in their own colour, no
//! critical path, round ticks, a plain title.

use super::*;
use crate::history::{RunTimeline, Segment, SegmentKind, TimelineProject};

fn project(path: &str, result: &str, segments: Vec<(SegmentKind, f64, f64)>) -> TimelineProject {
    TimelineProject {
        project: path.into(),
        result: result.into(),
        waits_for: Vec::new(),
        segments: segments.into_iter().map(|(kind, start, end)| Segment { kind, start, end, attempt: 1 }).collect(),
    }
}

pub(super) fn interrupted_run() -> RunTimeline {
    RunTimeline {
        run_id: "20261124T000000Z-1".into(),
        provider: "local".into(),
        stack: "dev".into(),
        operation: "up".into(),
        parallelism: 4,
        started: 1000.0,
        ended: Some(1004.5),
        projects: vec![
            project("infrastructure/cluster", "succeeded", vec![(SegmentKind::Attempt, 1000.0, 1002.0)]),
            project("kubernetes/app", "cancelled", vec![(SegmentKind::FailedAttempt, 1002.0, 1004.5)]),
        ],
    }
}

#[test]
fn an_interrupted_run_draws_cancelled_attempts_and_no_critical_path() {
    let svg = timeline_svg(&interrupted_run());
    let app = svg.lines().find(|line| line.contains(r#"data-project="kubernetes/app" data-kind="cancelled"#)).unwrap();
    assert!(app.contains(CANCELLED_COLOUR) && app.contains(r#"data-kind="cancelled-attempt""#), "{app}");
    assert!(svg.contains(">cancelled attempt</text>"), "the legend names it");
    assert!(!svg.contains("data-critical"), "{svg}");
    assert!(svg.contains("no critical path: the run was interrupted"), "{svg}");
    assert!(!svg.contains('`'), "no markdown in a picture");
}

#[test]
fn ticks_fall_on_round_seconds() {
    let svg = timeline_svg(&interrupted_run());
    let ticks: Vec<&str> = svg
        .lines()
        .filter(|line| line.contains(r##"fill="#555555""##))
        .filter_map(|line| line.rsplit('>').nth(1)?.strip_suffix("</text"))
        .collect();
    assert_eq!(ticks, ["0s", "1s", "2s", "3s", "4s"]);
    assert_eq!(tick_step(4.5), 1.0);
    assert_eq!(tick_step(0.7), 0.1);
    assert_eq!(tick_step(95.0), 15.0);
}

/// Every bar's left edge and width, from the `<rect ... data-project=...>` lines.
fn bars(svg: &str) -> Vec<(String, f64, f64)> {
    let attribute = |line: &str, name: &str| -> String {
        let start = line.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        line[start..].split('"').next().unwrap().to_string()
    };
    svg.lines()
        .filter(|line| line.starts_with("<rect") && line.contains("data-project="))
        .map(|line| {
            (
                attribute(line, "data-kind"),
                attribute(line, "x").parse().unwrap(),
                attribute(line, "width").parse().unwrap(),
            )
        })
        .collect()
}

/// A drift run that took no time over stacks never deployed: every bar stays on the axis, and
/// a stack found empty is drawn as looked at, not as a failed attempt.
#[test]
fn a_zero_second_run_draws_inside_its_axis_and_not_deployed_is_no_failure() {
    for wall in [0.0, 0.0004, 0.002] {
        let timeline = RunTimeline {
            operation: "drift".into(),
            started: 1000.0,
            ended: Some(1000.0 + wall),
            projects: vec![
                project("infrastructure/network", "not deployed", vec![(SegmentKind::Attempt, 1000.0, 1000.0 + wall)]),
                project(
                    "infrastructure/cluster",
                    "not deployed",
                    vec![(SegmentKind::Attempt, 1000.0 + wall, 1000.0 + wall)],
                ),
            ],
            ..interrupted_run()
        };
        let svg = timeline_svg(&timeline);
        let drawn = bars(&svg);
        assert_eq!(drawn.len(), 2, "{svg}");
        for (kind, left, width) in drawn {
            assert_eq!(kind, "attempt", "{svg}");
            assert!(width >= 1.0 && left + width <= LABEL_WIDTH + CHART_WIDTH + 1e-9, "{left} + {width}: {svg}");
        }
    }
}
