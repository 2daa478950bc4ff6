//! Dependency-true scheduling, durations from history and run timelines, against the real
//! `pulumi` (the shipped `local` provider), the fake CLI and a real headless browser.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{copy_tree, path_with, real_pulumi_dir, stash_local, Workspace};

fn local_workspace() -> Workspace {
    let mut workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    std::fs::copy(stash_local().join("providers/local.toml"), workspace.path("providers/local.toml")).unwrap();
    let example = std::fs::read_to_string(stash_local().join("config/pulumi/environment.example")).unwrap();
    workspace.env_file(&example);
    let home = workspace.path("home");
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    workspace
}

fn result_of(report: &Value, path: &str) -> (String, Option<String>) {
    let entry = report["projects"].as_array().unwrap().iter().find(|p| p["project"] == path).unwrap();
    (entry["result"].as_str().unwrap().to_string(), entry["reason"].as_str().map(str::to_string))
}

/// Headless Chromium, as Debian ships it (`apt-get install chromium`; scripts/test.sh does).
fn chromium() -> PathBuf {
    crate::support::needs_external("chromium");
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| which::which(name).ok())
        .expect("headless Chromium must be installed: `apt-get install -y chromium` (scripts/test.sh does it)")
}

/// Renders `svg` in the browser at scale 1 and returns (width, RGB pixels).
pub(crate) fn render_in_browser(svg: &Path, size: (u32, u32)) -> (u32, Vec<[u8; 3]>) {
    let out = svg.with_extension("png");
    let profile = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(chromium())
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--window-size={},{}", size.0, size.1))
        .arg(format!("--screenshot={}", out.display()))
        .arg(format!("file://{}", svg.display()))
        .env("HOME", profile.path())
        .output()
        .expect("chromium runs");
    assert!(out.exists(), "chromium wrote no screenshot: {}", String::from_utf8_lossy(&status.stderr));
    let decoder = png::Decoder::new(std::fs::File::open(&out).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).unwrap();
    let channels = info.color_type.samples();
    let pixels = buffer[..info.buffer_size()].chunks(channels).map(|c| [c[0], c[1], c[2]]).collect();
    (info.width, pixels)
}

pub(crate) fn rgb(hex: &str) -> [u8; 3] {
    let value = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap();
    [(value >> 16) as u8, (value >> 8) as u8, value as u8]
}

pub(crate) fn close(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 6)
}

/// The `<rect>`s the SVG draws for a project: (kind, x, y, width, height).
pub(crate) fn bars(svg: &str, project: &str) -> Vec<(String, f64, f64, f64, f64)> {
    let attribute = |tag: &str, name: &str| -> Option<String> {
        let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(tag[start..].split('"').next()?.to_string())
    };
    svg.split("<rect")
        .skip(1)
        .filter(|tag| attribute(tag, "data-project").as_deref() == Some(project))
        .map(|tag| {
            let number = |name| attribute(tag, name).unwrap().parse::<f64>().unwrap();
            (attribute(tag, "data-kind").unwrap(), number("x"), number("y"), number("width"), number("height"))
        })
        .collect()
}

pub(crate) fn size_of(svg: &str) -> (u32, u32) {
    let number = |name: &str| {
        let start = svg.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        svg[start..].split('"').next().unwrap().parse::<f64>().unwrap().ceil() as u32
    };
    (number("width"), number("height"))
}

/// Checks in the browser's pixels that every bar of `project` has its colour at its centre.
pub(crate) fn assert_bars_drawn(png: &(u32, Vec<[u8; 3]>), svg: &str, project: &str, colours: &[(&str, &str)]) {
    let (width, pixels) = png;
    let drawn = bars(svg, project);
    assert!(!drawn.is_empty(), "no bar for {project}");
    for (kind, x, y, w, h) in drawn {
        let Some((_, colour)) = colours.iter().find(|(name, _)| *name == kind) else { continue };
        if w < 4.0 {
            continue; // a sliver's centre pixel is blended with its neighbours
        }
        let (cx, cy) = ((x + w / 2.0) as u32, (y + h / 2.0) as u32);
        let pixel = pixels[(cy * width + cx) as usize];
        assert!(close(pixel, rgb(colour)), "{project} {kind} at ({cx},{cy}) is {pixel:?}, not {colour}");
    }
}

const COLOURS: &[(&str, &str)] = &[
    ("attempt", runner::render::ATTEMPT_COLOUR),
    ("failed-attempt", runner::render::FAILED_COLOUR),
    ("retry-backoff", runner::render::RETRY_WAIT_COLOUR),
    ("readiness-gate", runner::render::GATE_COLOUR),
    ("hook", runner::render::HOOK_COLOUR),
    ("wait", runner::render::WAIT_COLOUR),
];

#[test]
fn ext_after_one_real_run_show_expects_durations_and_the_timeline_renders_in_a_browser() {
    let workspace = local_workspace();
    let before = workspace.run(&["show", "--provider", "local"]);
    before.expect_code(0);
    assert!(before.stdout().contains("expected: unknown (no successful `up`"), "{}", before.stdout());

    let up = workspace.run(&["up", "--provider", "local", "--stack", "dev", "--non-interactive"]);
    up.expect_code(0);
    // An ETA is only possible once the history knows something: not on the first run.
    assert!(!up.stderr().contains("eta: about"), "{}", up.stderr());

    let show = workspace.run(&["show", "--provider", "local"]);
    show.expect_code(0);
    let text = show.stdout();
    assert!(text.contains("of work,") && text.contains("on the critical path"), "{text}");
    assert!(!text.contains("unknown"), "every project ran once: {text}");
    assert!(text.contains("utility/demo-image") && text.contains("needs no cluster"), "{text}");
    let json: Value =
        serde_json::from_str(&workspace.run(&["show", "--provider", "local", "--format", "json"]).stdout()).unwrap();
    for entry in json["projects"].as_array().unwrap() {
        assert!(entry["expected_seconds"].as_f64().unwrap() > 0.0, "{entry}");
    }
    assert!(json["expected"]["critical_path_seconds"].as_f64().unwrap() > 0.0);
    let critical: Vec<&str> =
        json["expected"]["critical_path"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert_eq!(critical.last(), Some(&"kubernetes/applications/demo"), "{critical:?}");

    // The second run knows what to expect: an ETA after each project ends.
    let again = workspace.run(&["up", "--provider", "local", "--stack", "dev", "--non-interactive"]);
    again.expect_code(0);
    assert!(again.stderr().contains("eta: about"), "{}", again.stderr());
    // The last estimate is before the last project ends: none says `0.0s left`.
    assert!(again.stderr().contains("(5 of 6 done)"), "{}", again.stderr());
    assert!(!again.stderr().contains("(6 of 6 done)"), "{}", again.stderr());

    let svg_path = workspace.path("timeline.svg");
    workspace.run(&["timeline", "-o", svg_path.to_str().unwrap()]).expect_code(0);
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{svg}");
    assert!(!svg.contains("<script") && !svg.contains("href="), "self-contained");
    // The title is plain text: no markdown backticks in a picture.
    assert!(svg.contains("up of local on stack dev") && svg.contains("started ") && svg.contains("wall "), "{svg}");
    // The cluster's kubeconfig hook is a bar of its own.
    assert!(bars(&svg, "infrastructure/cluster").iter().any(|bar| bar.0 == "hook"), "{svg}");
    let png = render_in_browser(&svg_path, size_of(&svg));
    for project in ["infrastructure/network", "infrastructure/cluster", "kubernetes/applications/demo"] {
        assert_bars_drawn(&png, &svg, project, COLOURS);
    }
    // The last project ends the run: it is on the critical path, its row highlighted.
    let (_, _, y, _, _) = bars(&svg, "kubernetes/applications/demo")[0];
    let (width, pixels) = &png;
    assert!(close(pixels[((y as u32 + 2) * width + 5) as usize], rgb(runner::render::CRITICAL_COLOUR)));

    let mermaid = workspace.run(&["timeline", "--format", "mermaid"]);
    mermaid.expect_code(0);
    let gantt = mermaid.stdout();
    assert!(gantt.starts_with("gantt\n") && gantt.contains("dateFormat x"), "{gantt}");
    assert!(gantt.contains("section kubernetes/applications/demo") && gantt.contains(":crit, done,"), "{gantt}");
}

#[test]
fn ext_when_the_real_cluster_fails_what_needs_no_cluster_still_finishes() {
    let workspace = local_workspace();
    // A program error in the cluster project only: the registry branch is untouched.
    workspace.file(
        "projects/local/infrastructure/cluster/Pulumi.yaml",
        "name: cluster\nruntime: yaml\nresources:\n  broken:\n    type: pulumi:index:NoSuchType\n",
    );
    let up =
        workspace.run(&["up", "--provider", "local", "--stack", "dev", "--non-interactive", "--report", "json=r.json"]);
    up.expect_code(1);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(workspace.path("r.json")).unwrap()).unwrap();
    assert_eq!(result_of(&report, "infrastructure/cluster").0, "failed", "{}", up.stderr());
    assert_eq!(result_of(&report, "infrastructure/registry").0, "succeeded");
    assert_eq!(result_of(&report, "utility/demo-image").0, "succeeded", "it needs no cluster: {}", up.stderr());
    let (certmgr, reason) = result_of(&report, "kubernetes/certmgr");
    assert_eq!((certmgr.as_str(), reason.as_deref()), ("skipped", Some("dependency `infrastructure/cluster` failed")));
    assert_eq!(result_of(&report, "kubernetes/applications/demo").0, "skipped");
}

/// The same shape as the real `local` provider, with the fake CLI: MARA's cluster marks.
const CLUSTER_AND_REGISTRY: &str = r#"
[[project]]
path = "infrastructure/cluster"
phase = "infrastructure"
provides_cluster = true

[[project]]
path = "infrastructure/registry"
phase = "infrastructure"

[[project]]
path = "utility/image"
phase = "kubernetes"
depends_on = ["infrastructure/registry"]
needs_cluster = false

[[project]]
path = "kubernetes/certmgr"
phase = "kubernetes"

[[project]]
path = "kubernetes/app"
phase = "kubernetes"
depends_on = ["utility/image"]
"#;

#[test]
fn when_the_fake_cluster_fails_the_image_branch_still_finishes() {
    // The cluster fails at once; the registry is still running then, so the image build starts
    // only after the failure: it must not be skipped for it.
    let script = r#"{"projects": {"infrastructure-cluster": {"fail": "eks: quota exceeded"},
                                  "infrastructure-registry": {"sleep": 0.5}}}"#;
    let projects =
        ["infrastructure/cluster", "infrastructure/registry", "utility/image", "kubernetes/certmgr", "kubernetes/app"];
    let workspace = Workspace::with_fake_pulumi(CLUSTER_AND_REGISTRY, &projects, script);
    let up =
        workspace.run(&["up", "--provider", "demo", "--stack", "dev", "--non-interactive", "--report", "json=r.json"]);
    up.expect_code(1);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(workspace.path("r.json")).unwrap()).unwrap();
    assert_eq!(result_of(&report, "infrastructure/cluster").0, "failed", "{}", up.stderr());
    assert_eq!(result_of(&report, "infrastructure/registry").0, "succeeded");
    assert_eq!(result_of(&report, "utility/image").0, "succeeded", "it needs no cluster: {}", up.stderr());
    // It declares no dependency: it waits for the cluster by the cluster rule alone.
    let (certmgr, reason) = result_of(&report, "kubernetes/certmgr");
    assert_eq!(
        (certmgr.as_str(), reason.as_deref()),
        ("skipped", Some("cluster provider `infrastructure/cluster` failed"))
    );
    assert_eq!(result_of(&report, "kubernetes/app").0, "skipped", "it needs the cluster");

    let invocations = workspace.fake_invocations();
    let at = |project: &str, event: &str, key: &str| {
        invocations
            .iter()
            .find(|line| line["project"] == project && line["event"] == event && line["op"] == "up")
            .and_then(|line| line[key].as_f64())
            .unwrap_or_else(|| panic!("no `up` {event} of {project}"))
    };
    assert!(
        at("infrastructure-cluster", "end", "end") < at("utility-image", "start", "start"),
        "the image started after the cluster had failed"
    );
    assert!(!invocations.iter().any(|line| line["project"] == "kubernetes-certmgr" && line["op"] == "up"));
}

#[test]
fn ext_every_kind_of_bar_is_drawn_in_its_colour_by_a_browser() {
    let workspace = Workspace::new();
    let history = r#"{"run_id":"r1","provider":"demo","stack":"dev","operation":"up","state":"finished","pid":1,
        "host":"h","started":1000.0,"ended":1010.0,"projects":[]}"#;
    workspace.file(".runner/history/r1.json", history);
    let segment = |kind: &str, start: f64, end: f64, attempt: u32| {
        format!(r#"{{"kind":"{kind}","start":{start},"end":{end},"attempt":{attempt}}}"#)
    };
    let timeline = format!(
        r#"{{"run_id":"r1","provider":"demo","stack":"dev","operation":"up","parallelism":1,"started":1000.0,
        "ended":1010.0,"projects":[
          {{"project":"base","result":"succeeded","waits_for":[],"segments":[{},{},{},{},{}]}},
          {{"project":"side","result":"failed","waits_for":[],"segments":[{}]}},
          {{"project":"app","result":"succeeded","waits_for":["base"],"segments":[{}]}}]}}"#,
        segment("failed_attempt", 1000.0, 1002.0, 1),
        segment("retry_wait", 1002.0, 1003.0, 1),
        segment("attempt", 1003.0, 1005.0, 2),
        segment("hook", 1005.0, 1006.0, 2),
        segment("gate", 1006.0, 1007.0, 2),
        segment("failed_attempt", 1000.0, 1001.0, 1),
        segment("attempt", 1008.0, 1010.0, 1),
    );
    workspace.file(".runner/timelines/r1.json", timeline);
    let svg_path = workspace.path("t.svg");
    workspace.run(&["timeline", "r1", "-o", svg_path.to_str().unwrap()]).expect_code(0);
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let kinds: Vec<String> = bars(&svg, "base").into_iter().map(|bar| bar.0).collect();
    assert_eq!(kinds, ["failed-attempt", "retry-backoff", "attempt", "hook", "readiness-gate"]);
    assert_eq!(bars(&svg, "app").iter().map(|b| b.0.as_str()).collect::<Vec<_>>(), ["wait", "attempt"]);
    assert!(svg.contains("critical path (9.0s of work): base → app"), "{svg}");
    let png = render_in_browser(&svg_path, size_of(&svg));
    for project in ["base", "side", "app"] {
        assert_bars_drawn(&png, &svg, project, COLOURS);
    }
    // Off the bars the picture is white: the colours are not everywhere.
    let (width, pixels) = &png;
    let (_, x, y, _, h) = bars(&svg, "side")[0];
    let beyond = (x as u32 + 300, (y + h / 2.0) as u32);
    assert!(close(pixels[(beyond.1 * width + beyond.0) as usize], [255, 255, 255]));

    workspace.run(&["timeline", "nope"]).expect_code(2).expect_stderr_contains("no run `nope` is recorded");
}

const POOLED: &str = r#"
description = "pools and the cluster rule"
[pools]
aws = 2

[[project]]
path = "vpc"
phase = "infrastructure"
pool = "aws"

[[project]]
path = "eks"
phase = "infrastructure"
depends_on = ["vpc"]
provides_cluster = true
pool = "aws"

[[project]]
path = "image"
phase = "kubernetes"
needs_cluster = false

[[project]]
path = "app"
phase = "kubernetes"
depends_on = ["image"]
"#;

fn pooled_workspace(provider: &str) -> Workspace {
    let workspace = Workspace::new();
    workspace.provider("demo", provider);
    for project in ["vpc", "eks", "image", "app"] {
        workspace.project(project);
    }
    workspace
}

#[test]
fn show_says_why_each_project_waits_and_which_pool_limits_it() {
    let workspace = pooled_workspace(POOLED);
    let show = workspace.run(&["show", "--provider", "demo"]);
    show.expect_code(0);
    let text = show.stdout();
    assert!(text.contains("(needs no cluster)"), "{text}");
    assert!(text.contains("(after image; needs the cluster: eks)"), "{text}");
    assert!(text.contains("(after vpc; pool `aws`, 2 at once)"), "{text}");
    let limited = workspace.run(&["show", "--provider", "demo", "--pool", "aws=1"]);
    assert!(limited.stdout().contains("pool `aws`, 1 at once"), "{}", limited.stdout());
    workspace
        .run(&["show", "--provider", "demo", "--pool", "gcp=1"])
        .expect_code(2)
        .expect_stderr_contains("no project of provider `demo` is in pool `gcp`");
    workspace.run(&["show", "--provider", "demo", "--pool", "aws=0"]).expect_code(2);

    let strict = pooled_workspace(&format!("strict_phase_barrier = true\n{POOLED}"));
    let text = strict.run(&["show", "--provider", "demo"]).stdout();
    assert!(text.contains("after the whole infrastructure phase: `strict_phase_barrier`"), "{text}");
}

#[test]
fn cluster_marks_on_the_wrong_phase_and_bad_pool_limits_are_refused_with_their_line() {
    let workspace = pooled_workspace(&POOLED.replace("needs_cluster = false", "provides_cluster = true"));
    workspace
        .run(&["show", "--provider", "demo"])
        .expect_code(2)
        .expect_stderr_contains("providers/demo.toml:")
        .expect_stderr_contains("`provides_cluster = true` on `image`, a kubernetes-phase project");
    let workspace = pooled_workspace(&POOLED.replace("aws = 2", "aws = 0"));
    workspace
        .run(&["show", "--provider", "demo"])
        .expect_code(2)
        .expect_stderr_contains("providers/demo.toml:4")
        .expect_stderr_contains("pool `aws` has limit 0");
}
