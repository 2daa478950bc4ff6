//! `runner show --format dot` as graphviz draws it: every project inside its phase's cluster,
//! the phases left to right in the order they run.

use std::collections::HashMap;
use std::path::Path;

use crate::support::{copy_tree, repository, Workspace};

/// A box in points: left, bottom, right, top.
type Box2 = (f64, f64, f64, f64);

/// Graphviz's `dot`, as Debian ships it (`apt-get install graphviz`; scripts/test.sh does).
fn graphviz(dot: &str, format: &str) -> Vec<u8> {
    crate::support::needs_external("graphviz");
    let mut child = std::process::Command::new("dot")
        .arg(format!("-T{format}"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("graphviz's `dot` must be installed: `apt-get install -y graphviz` (scripts/test.sh does it)");
    use std::io::Write;
    child.stdin.take().unwrap().write_all(dot.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "dot -T{format} failed on:\n{dot}");
    output.stdout
}

fn numbers(text: &str) -> Vec<f64> {
    text.split(',').map(|number| number.parse().unwrap()).collect()
}

/// Checks the drawing of `provider` in `root` for `operation`; returns the DOT text.
fn check_drawing(root: &Path, provider: &str, operation: &str) -> String {
    let show = |format: &str| {
        let output = assert_cmd::Command::cargo_bin("runner")
            .unwrap()
            .current_dir(root)
            .env("NO_COLOR", "1")
            .args(["show", "--provider", provider, "--operation", operation, "--format", format])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    let dot = show("dot");
    let plan: serde_json::Value = serde_json::from_str(&show("json")).unwrap();
    let layout: serde_json::Value = serde_json::from_slice(&graphviz(&dot, "json")).unwrap();
    let mut clusters: HashMap<String, Box2> = HashMap::new();
    let mut nodes: HashMap<String, Box2> = HashMap::new();
    for object in layout["objects"].as_array().unwrap() {
        let name = object["name"].as_str().unwrap_or_default().to_string();
        if let Some(bb) = object["bb"].as_str().filter(|_| name.starts_with("cluster_")) {
            let b = numbers(bb);
            clusters.insert(name, (b[0], b[1], b[2], b[3]));
        } else if let Some(pos) = object["pos"].as_str() {
            let (centre, inch) = (numbers(pos), 72.0);
            let half_width = object["width"].as_str().unwrap().parse::<f64>().unwrap() * inch / 2.0;
            let half_height = object["height"].as_str().unwrap().parse::<f64>().unwrap() * inch / 2.0;
            let (x, y) = (centre[0], centre[1]);
            nodes.insert(name, (x - half_width, y - half_height, x + half_width, y + half_height));
        }
    }
    let projects = plan["projects"].as_array().unwrap();
    assert!(!projects.is_empty());
    for project in projects {
        let (path, phase) = (project["path"].as_str().unwrap(), project["phase"].as_str().unwrap());
        let node = nodes.get(path).unwrap_or_else(|| panic!("{provider}: no node {path} in {nodes:?}"));
        let cluster = clusters[&format!("cluster_{phase}")];
        let inside = cluster.0 <= node.0 && node.2 <= cluster.2 && cluster.1 <= node.1 && node.3 <= cluster.3;
        assert!(inside, "{provider} {operation}: {path} at {node:?} is outside its {phase} cluster {cluster:?}\n{dot}");
    }
    let phases =
        if operation == "destroy" { ["kubernetes", "infrastructure"] } else { ["infrastructure", "kubernetes"] };
    if let (Some(first), Some(second)) =
        (clusters.get(&format!("cluster_{}", phases[0])), clusters.get(&format!("cluster_{}", phases[1])))
    {
        assert!(first.2 < second.0, "{provider} {operation}: {} is not drawn before {}\n{dot}", phases[0], phases[1]);
        assert!(dot.contains("label=\"phase order\""), "{dot}");
    }
    dot
}

#[test]
fn ext_every_project_is_drawn_inside_its_phase_cluster_in_phase_order() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&repository().join("providers"), &dir.path().join("providers"));
    copy_tree(&repository().join("projects"), &dir.path().join("projects"));
    for provider in ["aws", "digitalocean", "linode", "local"] {
        for operation in ["up", "destroy"] {
            check_drawing(dir.path(), provider, operation);
        }
    }
}

/// Kubernetes projects that wait for nothing would start left of the cluster's border; an
/// invisible edge keeps them in their phase's place.
#[test]
fn ext_projects_that_wait_for_nothing_stay_in_phase_order() {
    let workspace = Workspace::new();
    workspace.provider(
        "demo",
        r#"
[[project]]
path = "net"
phase = "infrastructure"
[[project]]
path = "cluster"
phase = "infrastructure"
depends_on = ["net"]
provides_cluster = true
[[project]]
path = "dns"
phase = "infrastructure"
[[project]]
path = "image-a"
phase = "kubernetes"
needs_cluster = false
[[project]]
path = "image-b"
phase = "kubernetes"
needs_cluster = false
[[project]]
path = "app"
phase = "kubernetes"
depends_on = ["image-a", "image-b"]
"#,
    );
    for project in ["net", "cluster", "dns", "image-a", "image-b", "app"] {
        workspace.project(project);
    }
    let dot = check_drawing(workspace.root(), "demo", "up");
    let png = graphviz(&dot, "png");
    assert!(png.starts_with(b"\x89PNG"), "graphviz drew no PNG");
}
