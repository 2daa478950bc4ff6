//! Secrets of the shapes that leaked on 798ac77, through the real `pulumi`: a 7-character and a
//! numeric `fn::secret` output, an environment entry whose name reads like nothing secret
//! (`DB_PASS`) holding `"` and `\`, printed raw, JSON-escaped (by a hook, and by Pulumi in its
//! error and event log), URL-encoded, base64-encoded and shell-quoted, and a secret across the
//! place where a hook's last stderr line is cut. None may reach the terminal, `.runner/`, a
//! report, the step summary, a timeline or a temporary file.

use base64::Engine;

use crate::support::{copy_tree, path_with, real_pulumi_dir, stash_local, Workspace};

const SHORT: &str = "q7Zk9Wv";
const NUMBER: &str = "4815162";
const QUOTED: &str = r#"pa"ss\wo-Rd9"#;

const HOOK: &str = r#"
import base64, json, os, shlex, sys, urllib.parse
p = os.environ["DB_PASS"]
s = os.environ["RUNNER_OUTPUT_SHORT"]
n = os.environ["RUNNER_OUTPUT_NUMBER"]
parts = ["json=" + json.dumps(p), "url=" + urllib.parse.quote(p, safe=""),
         "b64=" + base64.b64encode(p.encode()).decode(), "shell=" + shlex.quote(p),
         "short=" + s, "number=" + n, "outputs=" + open(os.environ["RUNNER_OUTPUTS_FILE"]).read().replace("\n", " ")]
line = " ".join(parts) + " "
# The short secret starts 3 characters before the 300th: a cut there kept its first letters.
line = line + "x" * max(0, 297 - len(line)) + s + " end"
sys.stderr.write(line + "\n")
sys.exit(3)
"#;

/// What each secret looks like in every form the hook and Pulumi print, computed here on their own.
fn forms() -> Vec<String> {
    let json = serde_json::to_string(QUOTED).unwrap();
    let url: String = QUOTED
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    vec![
        SHORT.to_string(),
        NUMBER.to_string(),
        QUOTED.to_string(),
        json[1..json.len() - 1].to_string(),
        url,
        base64::engine::general_purpose::STANDARD.encode(QUOTED),
        // The first letters of the short secret right after the padding: a cut before masking.
        format!("x{}", &SHORT[..3]),
    ]
}

#[test]
fn ext_secrets_of_every_shape_reach_no_sink() {
    let mut workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    let hooked = format!(
        "description = \"shapes\"\nprojects_root = \"projects/local\"\n\n[[project]]\npath = \"infrastructure/hooked\"\nphase = \"infrastructure\"\non_success = [{{ command = {{ argv = [\"python3\", \"-c\", '''{HOOK}'''] }} }}]\n\n[[project]]\npath = \"infrastructure/leaky\"\nphase = \"infrastructure\"\n"
    );
    workspace.provider("shapes", &hooked);
    workspace.file(
        "projects/local/infrastructure/hooked/Pulumi.yaml",
        format!("name: shapes-hooked\nruntime: yaml\nstackConfigDir: ../../../../config/pulumi\noutputs:\n  plain: visible\n  short:\n    fn::secret: {SHORT}\n  number:\n    fn::secret: {NUMBER}\n"),
    );
    // Pulumi quotes the missing path in its error and JSON-escapes it in the event log.
    let path = serde_json::to_string(&format!("./missing-{QUOTED}")).unwrap();
    workspace.file(
        "projects/local/infrastructure/leaky/Pulumi.yaml",
        format!("name: shapes-leaky\nruntime: yaml\nstackConfigDir: ../../../../config/pulumi\nvariables:\n  broken:\n    fn::readFile: {path}\noutputs:\n  value: ${{broken}}\n"),
    );
    workspace.env_file(&format!("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=shapes-passphrase\nDB_PASS={QUOTED}\n"));
    let (home, tmp, summary) = (workspace.path("home"), workspace.path("tmp"), workspace.path("reports/summary.md"));
    std::fs::create_dir_all(&tmp).unwrap();
    workspace
        .set_env("PATH", path_with(&real_pulumi_dir()))
        .set_env("HOME", home.display().to_string())
        .set_env("TMPDIR", tmp.display().to_string())
        .set_env("GITHUB_STEP_SUMMARY", summary.display().to_string());
    std::fs::create_dir_all(workspace.path("reports")).unwrap();

    let mut printed = String::new();
    let runs: [(&[&str], i32); 4] = [
        (
            &[
                "up",
                "--provider",
                "shapes",
                "--stack",
                "dev",
                "--verbose",
                "--report=json=reports/up.json",
                "--report=junit=reports/up.xml",
            ],
            1,
        ),
        (
            &["preview", "--provider", "shapes", "--stack", "dev", "--verbose", "--report=markdown=reports/preview.md"],
            1,
        ),
        (&["status", "--provider", "shapes", "--stack", "dev"], -1),
        (&["timeline", "-o", "reports/timeline.svg"], 0),
    ];
    for (args, code) in runs {
        let mut full: Vec<&str> = args.to_vec();
        if args[0] != "timeline" && args[0] != "status" {
            full.push("--non-interactive");
        }
        let output = workspace.run(&full);
        if code >= 0 {
            assert_eq!(output.code(), code, "{full:?}\n{}", output.stderr());
        }
        printed.push_str(&output.stdout());
        printed.push_str(&output.stderr());
    }
    assert!(printed.contains("[secret]"), "the failing hook's line must be shown masked:\n{printed}");
    assert!(printed.contains("number=[secret]"), "{printed}");

    let mut leaks = Vec::new();
    let files: Vec<String> = workspace
        .listing()
        .into_iter()
        .filter(|f| f.starts_with(".runner/") || f.starts_with("reports/") || f.starts_with("tmp/"))
        .collect();
    assert!(files.iter().any(|f| f.ends_with("timeline.svg")) && files.iter().any(|f| f.ends_with("summary.md")));
    for form in forms() {
        if printed.contains(&form) {
            leaks.push(format!("{form:?} in the output"));
        }
        for file in &files {
            let bytes = std::fs::read(workspace.path(file)).unwrap();
            if String::from_utf8_lossy(&bytes).contains(&form) {
                leaks.push(format!("{form:?} in {file}"));
            }
        }
    }
    assert!(leaks.is_empty(), "secrets leaked:\n{}", leaks.join("\n"));
    let hook_files: Vec<&String> = files.iter().filter(|f| f.starts_with("tmp/runner-hook-")).collect();
    assert!(hook_files.is_empty(), "the hook's temporary files outlived it: {hook_files:?}");
}

/// A configuration secret stored by hand before this run (`runner config set --secret`, as
/// `pulumi config set --secret` would) is known to the runner only encrypted in the stack file:
/// a hook that fetches it with `pulumi config get` and fails must not show it.
#[test]
fn ext_a_config_secret_stored_before_the_run_is_masked() {
    const STORED: &str = "stored-by-hand-5150";
    let mut workspace = Workspace::new();
    let provider = "description = \"stored\"\n\n[[project]]\npath = \"app\"\nphase = \"infrastructure\"\non_success = [{ command = { argv = [\"sh\", \"-c\", \"echo \\\"password is $(pulumi config get app:dbpw --stack organization/app/dev)\\\" >&2; exit 1\"] } }]\n";
    workspace.provider("stored", provider);
    workspace.file("projects/app/Pulumi.yaml", "name: app\nruntime: yaml\nstackConfigDir: ../../config/pulumi\n");
    workspace.env_file("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=stored-passphrase\n");
    let home = workspace.path("home");
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    workspace.run(&["up", "--provider", "stored", "--stack", "dev", "--non-interactive"]).expect_code(1);

    let mut set =
        workspace.std_command(&["config", "set", "--secret", "app:dbpw", "--provider", "stored", "--stack", "dev"]);
    set.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = set.spawn().unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), format!("{STORED}\n").as_bytes()).unwrap();
    let done = child.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(0), "{}", String::from_utf8_lossy(&done.stderr));

    let output = workspace.run(&["up", "--provider", "stored", "--stack", "dev", "--non-interactive", "--verbose"]);
    output.expect_code(1);
    let printed = format!("{}{}", output.stdout(), output.stderr());
    assert!(printed.contains("password is [secret]"), "the hook's line must be shown masked:\n{printed}");
    let mut leaks: Vec<String> = workspace
        .listing()
        .into_iter()
        .filter(|f| f.starts_with(".runner/") && !f.starts_with(".runner/backend/"))
        .filter(|f| String::from_utf8_lossy(&std::fs::read(workspace.path(f)).unwrap()).contains(STORED))
        .collect();
    if printed.contains(STORED) {
        leaks.push("the output".into());
    }
    assert!(leaks.is_empty(), "the stored secret leaked into {leaks:?}");
}
