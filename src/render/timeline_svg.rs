use std::fmt::Write;

use crate::history::{RunTimeline, SegmentKind, TimelineProject};

/// Colours of the bars; a test looks for these pixels in a browser's rendering.
pub const ATTEMPT_COLOUR: &str = "#2f80ed";
pub const FAILED_COLOUR: &str = "#e5484d";
pub const RETRY_WAIT_COLOUR: &str = "#f5a623";
pub const GATE_COLOUR: &str = "#8e4ec6";
pub const HOOK_COLOUR: &str = "#30a46c";
pub const WAIT_COLOUR: &str = "#c8c8c8";
/// An attempt the run's interruption stopped: no failure of its own.
pub const CANCELLED_COLOUR: &str = "#5b6b7a";
/// Behind the rows of the critical path.
pub const CRITICAL_COLOUR: &str = "#fff1b8";

const LABEL_WIDTH: f64 = 320.0;
const CHART_WIDTH: f64 = 640.0;
const ROW_HEIGHT: f64 = 24.0;
const BAR_HEIGHT: f64 = 14.0;
const TOP: f64 = 78.0;

pub fn colour_of(kind: SegmentKind) -> &'static str {
    match kind {
        SegmentKind::Attempt => ATTEMPT_COLOUR,
        SegmentKind::FailedAttempt => FAILED_COLOUR,
        SegmentKind::RetryWait => RETRY_WAIT_COLOUR,
        SegmentKind::Gate => GATE_COLOUR,
        SegmentKind::Hook => HOOK_COLOUR,
    }
}

fn label_of(kind: SegmentKind) -> &'static str {
    match kind {
        SegmentKind::Attempt => "attempt",
        SegmentKind::FailedAttempt => "failed attempt",
        SegmentKind::RetryWait => "retry backoff",
        SegmentKind::Gate => "readiness gate",
        SegmentKind::Hook => "hook",
    }
}

/// How a segment is drawn: a project's last attempt, stopped by an interruption, is cancelled.
fn drawn_kind(project: &TimelineProject, index: usize) -> (&'static str, &'static str) {
    let segment = &project.segments[index];
    let last = index + 1 == project.segments.len();
    if segment.kind == SegmentKind::FailedAttempt && last && project.result == "cancelled" {
        return (CANCELLED_COLOUR, "cancelled attempt");
    }
    (colour_of(segment.kind), label_of(segment.kind))
}

/// Whether the run was interrupted: its length then says nothing of a critical path.
fn interrupted(timeline: &RunTimeline) -> bool {
    timeline.projects.iter().any(|project| project.result == "cancelled")
}

/// Ticks at round steps (1, 2, 5 times a power of ten seconds, or whole minutes) that fit `wall`
/// about four to eight times.
pub(super) fn tick_step(wall: f64) -> f64 {
    const STEPS: [f64; 14] = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0];
    STEPS.iter().copied().find(|step| wall / step <= 8.0).unwrap_or_else(|| (wall / 8.0 / 3600.0).ceil() * 3600.0)
}

fn tick_text(seconds: f64) -> String {
    if seconds >= 60.0 {
        span(seconds)
    } else if (seconds - seconds.round()).abs() < 1e-6 {
        format!("{}s", seconds.round())
    } else {
        format!("{seconds:.1}s")
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// `2026-11-22 22:40:01 UTC`.
pub(super) fn clock(seconds: f64) -> String {
    let Ok(time) = time::OffsetDateTime::from_unix_timestamp(seconds.floor() as i64) else { return "?".into() };
    time.format(&time::macros::format_description!("[year]-[month]-[day] [hour]:[minute]:[second] UTC"))
        .unwrap_or_default()
}

fn span(seconds: f64) -> String {
    crate::render::duration_text(std::time::Duration::from_secs_f64(seconds.max(0.0)))
}

/// A self-contained SVG (no script, no external font or style): one row per project, a bar
/// per attempt, retry backoff, gate and hook, the wait for a free slot in grey, the rows of the
/// critical path highlighted, and the run's start, end and totals as text.
pub fn timeline_svg(timeline: &RunTimeline) -> String {
    let start = timeline.started;
    let last_end = timeline.projects.iter().filter_map(|p| p.end()).fold(start, f64::max);
    let end = timeline.ended.unwrap_or(last_end).max(last_end);
    let wall = (end - start).max(0.001);
    let x = |at: f64| LABEL_WIDTH + (at - start).max(0.0) / wall * CHART_WIDTH;
    let critical = if interrupted(timeline) { Vec::new() } else { timeline.critical_path() };
    let work: f64 = timeline
        .projects
        .iter()
        .flat_map(|p| p.segments.iter())
        .filter(|s| s.kind != SegmentKind::RetryWait)
        .map(|s| s.end - s.start)
        .sum();
    let attempts: usize = timeline
        .projects
        .iter()
        .flat_map(|p| p.segments.iter())
        .filter(|s| matches!(s.kind, SegmentKind::Attempt | SegmentKind::FailedAttempt))
        .count();
    let width = LABEL_WIDTH + CHART_WIDTH + 20.0;
    // Room for two legend rows.
    let height = TOP + ROW_HEIGHT * timeline.projects.len() as f64 + 90.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"##
    );
    let _ = writeln!(out, r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##);
    let _ = writeln!(
        out,
        r##"<text x="10" y="20" font-size="15" font-weight="bold">{} of {} on stack {} ({})</text>"##,
        escape(&timeline.operation),
        escape(&timeline.provider),
        escape(&timeline.stack),
        escape(&timeline.run_id)
    );
    let critical_time: f64 =
        critical.iter().filter_map(|&i| Some(timeline.projects[i].end()? - timeline.projects[i].start()?)).sum();
    let _ = writeln!(
        out,
        r##"<text x="10" y="40">started {} · ended {} · wall {} · work {} in {} · parallelism {}</text>"##,
        clock(start),
        clock(end),
        span(wall),
        span(work),
        crate::text::counted(attempts, "attempt"),
        if timeline.parallelism > 0 { timeline.parallelism.to_string() } else { "?".into() }
    );
    let chain: Vec<&str> = critical.iter().map(|&i| timeline.projects[i].project.as_str()).collect();
    if interrupted(timeline) {
        let _ = writeln!(out, r##"<text x="10" y="58">no critical path: the run was interrupted</text>"##);
    } else {
        let _ = writeln!(
            out,
            r##"<text x="10" y="58">critical path ({} of work): {}</text>"##,
            span(critical_time),
            escape(&chain.join(" → "))
        );
    }
    // Time axis: ticks at round steps.
    let step = tick_step(wall);
    let ticks = (wall / step + 1e-9).floor() as u32;
    for tick in 0..=ticks {
        let offset = step * f64::from(tick);
        let tx = x(start + offset);
        let _ = writeln!(
            out,
            r##"<line x1="{tx:.1}" y1="{}" x2="{tx:.1}" y2="{}" stroke="#e6e6e6"/><text x="{tx:.1}" y="{}" text-anchor="middle" fill="#555555">{}</text>"##,
            TOP - 6.0,
            TOP + ROW_HEIGHT * timeline.projects.len() as f64,
            TOP - 9.0,
            tick_text(offset)
        );
    }
    for (row, project) in timeline.projects.iter().enumerate() {
        let y = TOP + ROW_HEIGHT * row as f64;
        let on_path = critical.contains(&row);
        if on_path {
            let _ = writeln!(
                out,
                r##"<rect x="0" y="{y}" width="{width}" height="{ROW_HEIGHT}" fill="{CRITICAL_COLOUR}" data-critical="true"/>"##
            );
        }
        let _ = writeln!(
            out,
            r##"<text x="10" y="{:.1}"{}>{} <tspan fill="#777777">{}</tspan></text>"##,
            y + 16.0,
            if on_path { r#" font-weight="bold""# } else { "" },
            escape(&project.project),
            escape(&project.result)
        );
        let bar_y = y + (ROW_HEIGHT - BAR_HEIGHT) / 2.0;
        if let Some(first) = project.start() {
            let ready = timeline.ready_at(project);
            // Shorter waits are the runner starting a process, not a full slot.
            if first - ready > 0.05 {
                let _ = writeln!(
                    out,
                    r##"<rect x="{:.2}" y="{:.1}" width="{:.2}" height="{BAR_HEIGHT}" fill="{WAIT_COLOUR}" data-project="{}" data-kind="wait"><title>{}: waited {} for a free slot or pool</title></rect>"##,
                    x(ready).min(LABEL_WIDTH + CHART_WIDTH - 0.5),
                    bar_y,
                    (x(first) - x(ready)).max(0.5),
                    escape(&project.project),
                    escape(&project.project),
                    span(first - ready)
                );
            }
        }
        for (index, segment) in project.segments.iter().enumerate() {
            let (colour, kind) = drawn_kind(project, index);
            // At least a pixel, drawn inside the axis even when the run took no time.
            let axis_end = LABEL_WIDTH + CHART_WIDTH;
            let left = x(segment.start).min(axis_end - 1.0);
            let bar_width = (x(segment.end) - left).clamp(1.0, axis_end - left);
            let _ = writeln!(
                out,
                r##"<rect x="{:.2}" y="{:.1}" width="{:.2}" height="{BAR_HEIGHT}" fill="{}"{} data-project="{}" data-kind="{}"><title>{}: {} {} ({} to {})</title></rect>"##,
                left,
                bar_y,
                bar_width,
                colour,
                if on_path { r##" stroke="#000000" stroke-width="1.5""## } else { "" },
                escape(&project.project),
                kind.replace(' ', "-"),
                escape(&project.project),
                kind,
                segment.attempt,
                span(segment.start - start),
                span(segment.end - start)
            );
        }
    }
    // Legend.
    let mut legend_y = TOP + ROW_HEIGHT * timeline.projects.len() as f64 + 24.0;
    let mut lx = 10.0;
    let entries = [
        (ATTEMPT_COLOUR, "attempt"),
        (FAILED_COLOUR, "failed attempt"),
        (CANCELLED_COLOUR, "cancelled attempt"),
        (RETRY_WAIT_COLOUR, "retry backoff"),
        (GATE_COLOUR, "readiness gate"),
        (HOOK_COLOUR, "hook"),
        (WAIT_COLOUR, "waiting for a slot"),
        (CRITICAL_COLOUR, "critical path"),
    ];
    for (colour, text) in entries {
        // Sans-serif at 12px averages under 7.5px a character: a gap of 20px stays between entries.
        let entry_width = 16.0 + 7.5 * text.chars().count() as f64;
        if lx + entry_width > width - 10.0 {
            lx = 10.0;
            legend_y += 20.0;
        }
        let _ = writeln!(
            out,
            r##"<rect x="{lx}" y="{}" width="12" height="12" fill="{colour}" stroke="#999999"/><text x="{}" y="{}">{text}</text>"##,
            legend_y - 10.0,
            lx + 16.0,
            legend_y
        );
        lx += entry_width + 20.0;
    }
    out.push_str("</svg>\n");
    out
}

/// A Mermaid gantt chart: a section per project, a task per attempt, gate and hook; the
/// critical path tagged `crit`.
pub fn timeline_mermaid(timeline: &RunTimeline) -> String {
    let critical = timeline.critical_path();
    let mut out = String::from("gantt\n");
    let _ = writeln!(
        out,
        "  title {} of {} on stack {} ({})",
        timeline.operation, timeline.provider, timeline.stack, timeline.run_id
    );
    out.push_str("  dateFormat x\n  axisFormat %H:%M:%S\n");
    let ms = |seconds: f64| (seconds * 1000.0).round() as i64;
    let clean = |text: &str| text.replace([':', '#', ';'], " ");
    for (row, project) in timeline.projects.iter().enumerate() {
        let _ = writeln!(out, "  section {}", clean(&project.project));
        let ready = timeline.ready_at(project);
        if let Some(first) = project.start().filter(|first| first - ready > 0.05) {
            let _ = writeln!(out, "  waiting for a slot :w{row}, {}, {}", ms(ready), ms(first));
        }
        for (i, segment) in project.segments.iter().enumerate() {
            let mut tags = Vec::new();
            if critical.contains(&row) {
                tags.push("crit");
            }
            match segment.kind {
                SegmentKind::Attempt => tags.push("done"),
                SegmentKind::FailedAttempt => tags.push("active"),
                _ => {}
            }
            tags.push("");
            let _ = writeln!(
                out,
                "  {} {} :{}s{row}x{i}, {}, {}",
                label_of(segment.kind),
                segment.attempt,
                tags.join(", "),
                ms(segment.start),
                ms(segment.end.max(segment.start + 0.001))
            );
        }
    }
    out
}

#[cfg(test)]
#[path = "timeline_svg_tests.rs"]
mod tests;
