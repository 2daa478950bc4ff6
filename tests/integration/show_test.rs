//! `runner show` on the shipped providers, in every format.

use crate::snapshot::{runner_snapshot, Redactions};
use crate::support::{copy_tree, hermetic_runner, repository};

/// Hermetic: a copy of the shipped providers and projects, never the working tree itself
/// (`scripts/setup.sh` writes configuration and state there).
fn shipped() -> &'static std::path::Path {
    static COPY: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    COPY.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&repository().join("providers"), &dir.path().join("providers"));
        copy_tree(&repository().join("projects"), &dir.path().join("projects"));
        dir
    })
    .path()
}

fn show(provider: &str, extra: &[&str]) -> (i32, String, String) {
    show_in_columns(provider, extra, None)
}

fn show_in_columns(provider: &str, extra: &[&str], columns: Option<&str>) -> (i32, String, String) {
    let mut command = assert_cmd::Command::cargo_bin("runner").unwrap();
    match columns {
        Some(columns) => command.env("COLUMNS", columns),
        None => command.env_remove("COLUMNS"),
    };
    let output = command
        .current_dir(shipped())
        .env("NO_COLOR", "1")
        .args(["show", "--provider", provider])
        .args(extra)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn order(provider: &str, operation: &str) -> Vec<String> {
    let (code, stdout, stderr) = show(provider, &["--format", "json", "--operation", operation]);
    assert_eq!(code, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    json["order"].as_array().unwrap().iter().map(|path| path.as_str().unwrap().to_string()).collect()
}

fn position(order: &[String], suffix: &str) -> usize {
    order.iter().position(|path| path.ends_with(suffix)).unwrap_or_else(|| panic!("{suffix} not in {order:?}"))
}

#[test]
fn every_provider_shows_in_every_format() {
    for provider in ["aws", "digitalocean", "linode", "local"] {
        for format in ["tree", "dot", "mermaid", "json"] {
            let (code, stdout, stderr) = show(provider, &["--format", format]);
            assert_eq!(code, 0, "{provider} {format}: {stderr}");
            assert!(!stdout.is_empty(), "{provider} {format}");
        }
    }
}

#[test]
fn json_has_the_documented_shape() {
    let (_, stdout, _) = show("aws", &["--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["provider"], "aws");
    let projects = json["projects"].as_array().unwrap();
    assert_eq!(json["order"].as_array().unwrap().len(), projects.len());
    let waves: usize = json["waves"].as_array().unwrap().iter().map(|wave| wave.as_array().unwrap().len()).sum();
    assert_eq!(waves, projects.len());
    for project in projects {
        for key in ["path", "description", "phase", "depends_on"] {
            assert!(project.get(key).is_some(), "{key} missing in {project}");
        }
    }
}

#[test]
fn aws_orders_as_mara_requires() {
    let order = order("aws", "up");
    assert!(position(&order, "aws/vpc") < position(&order, "aws/eks"));
    assert!(position(&order, "aws/eks") < position(&order, "infrastructure/kubeconfig"));
    assert!(position(&order, "kubernetes/secrets") < position(&order, "kubernetes/prometheus"));
    assert!(position(&order, "kubernetes/secrets") < position(&order, "applications/sirius"));
}

#[test]
fn destroy_is_the_reverse_dependency_order() {
    let up = order("aws", "up");
    let destroy = order("aws", "destroy");
    assert!(position(&destroy, "aws/eks") < position(&destroy, "aws/vpc"));
    assert!(position(&destroy, "applications/sirius") < position(&destroy, "kubernetes/secrets"));
    assert_eq!(up.len(), destroy.len());
}

/// The tree marks the phases and the waves that run in parallel.
#[test]
fn tree_marks_parallel_waves_and_phases() {
    runner_snapshot!(Redactions::for_root(shipped()), hermetic_runner(shipped(), &["show", "--provider", "local"]));
}

/// Every shipped provider, and no shared set (`providers/common/`).
#[test]
fn providers_lists_every_provider() {
    runner_snapshot!(Redactions::for_root(shipped()), hermetic_runner(shipped(), &["providers"]));
}

/// Piped, the tree is 100 columns wide: long dependency lists go under their project, and the
/// tree's `│` runs on through every wrapped line.
#[test]
fn a_piped_tree_fits_100_columns_inside_its_own_lines() {
    for provider in ["aws", "digitalocean", "linode", "local"] {
        let (code, stdout, stderr) = show(provider, &[]);
        assert_eq!(code, 0, "{stderr}");
        let lines: Vec<&str> = stdout.lines().collect();
        for (number, line) in lines.iter().enumerate() {
            let fits = line.chars().count() <= 100 || line.split(' ').any(|word| word.chars().count() > 40);
            assert!(fits, "{provider}: line {} is too long:\n{stdout}", number + 1);
            // A project line under a wave that goes on below must carry the wave's `│` on.
            let Some(column) = line.find('│') else { continue };
            let next = lines.get(number + 1).copied().unwrap_or_default();
            let continues = next
                .get(column..)
                .is_some_and(|rest| rest.starts_with('│') || rest.starts_with('├') || rest.starts_with('└'));
            assert!(continues, "{provider}: the tree line breaks after line {}:\n{stdout}", number + 1);
        }
    }
}

#[test]
fn the_header_counts_with_the_parallelism() {
    let redactions = Redactions::for_root(shipped());
    runner_snapshot!("aws_with_2_at_once", redactions, hermetic_runner(shipped(), &["show", "-p", "aws", "-j", "2"]));
    // More than the graph can use: the header says how many can.
    let (_, stdout, _) = show("aws", &["--parallelism", "16"]);
    assert!(stdout.lines().nth(1).unwrap().ends_with("up to 4 at once"), "{stdout}");
    runner_snapshot!("aws_with_0_at_once", redactions, hermetic_runner(shipped(), &["show", "-p", "aws", "-j", "0"]));
}

#[test]
fn show_help_says_it_draws_and_runs_nothing() {
    runner_snapshot!(Redactions::for_root(shipped()), hermetic_runner(shipped(), &["show", "--help"]));
    let output = assert_cmd::Command::cargo_bin("runner").unwrap().args(["up", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&output.stdout).contains("Run only these projects"), "`up` keeps its words");
}

#[test]
fn a_pipe_gets_the_width_columns_asks_for() {
    let widest = |stdout: &str| stdout.lines().map(|line| line.chars().count()).max().unwrap_or(0);
    let (code, fixed, stderr) = show_in_columns("aws", &[], None);
    assert_eq!(code, 0, "{stderr}");
    assert!(widest(&fixed) > 60 && widest(&fixed) <= 100, "{fixed}");
    let (_, narrow, _) = show_in_columns("aws", &[], Some("60"));
    assert!(widest(&narrow) <= 60, "{narrow}");
    let (_, nonsense, _) = show_in_columns("aws", &[], Some("wide"));
    assert_eq!(nonsense, fixed, "a `COLUMNS` that is no number is ignored");
}

/// `--durations` (hidden; `benches/run.sh` uses it) plans with a `--report json` file's
/// durations: the JSON states the critical path and the list schedule at `-j` that
/// `benches/report.py` reads instead of scheduling by itself. A path the provider lacks is refused.
#[test]
fn durations_from_a_report_plan_the_critical_path_and_the_schedule() {
    let report = tempfile::NamedTempFile::new().unwrap();
    let projects: Vec<serde_json::Value> = order("local", "up")
        .iter()
        .map(|path| serde_json::json!({"project": path, "duration": 2.0, "result": "succeeded"}))
        .collect();
    std::fs::write(report.path(), serde_json::json!({"projects": projects}).to_string()).unwrap();
    let file = report.path().to_str().unwrap();
    let expected = |parallelism: &str| {
        let (code, stdout, stderr) = show("local", &["--format", "json", "--durations", file, "-j", parallelism]);
        assert_eq!(code, 0, "{stderr}");
        let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(json["parallelism"].as_u64().unwrap().to_string(), parallelism);
        json["expected"].clone()
    };
    let one = expected("1");
    assert_eq!(one["total_work_seconds"].as_f64(), Some(2.0 * projects.len() as f64));
    assert_eq!(one["schedule_seconds"], one["total_work_seconds"], "one at a time: the sum");
    let wide = expected("64");
    assert_eq!(wide["schedule_seconds"], wide["critical_path_seconds"], "a slot for everyone: the critical path");
    assert!(wide["unknown"].as_array().unwrap().is_empty());

    std::fs::write(report.path(), r#"{"projects": [{"project": "no/such", "duration": 1}]}"#).unwrap();
    let (code, _, stderr) = show("local", &["--format", "json", "--durations", file]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no project `no/such` in provider `local`"), "{stderr}");
}
