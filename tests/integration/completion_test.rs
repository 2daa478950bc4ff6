//! `runner completions SHELL`: the script registers `runner` as its own completer; a real
//! `bash` sources it and calls the registered function as TAB would, `fish` answers
//! `complete -C`, and `zsh` runs the completer function (only compsys's `_describe` stubbed).

use std::path::Path;

use crate::support::{Workspace, BRANCHES};

/// `demo` (a, b, c, d) and `other` (x, y), stacks `dev` and `prod`.
fn repository() -> Workspace {
    let workspace = Workspace::new();
    workspace.provider("demo", BRANCHES).provider(
        "other",
        "description = \"another\"\n[[project]]\npath = \"x/one\"\nphase = \"infrastructure\"\n[[project]]\npath = \"y\"\nphase = \"kubernetes\"\ndepends_on = [\"x/one\"]\n",
    );
    workspace.stack_file("dev", "config: {}\n").stack_file("prod", "config: {}\n").env_file("PULUMI_STACK=dev\n");
    workspace
}

fn script(workspace: &Workspace, shell: &str) -> String {
    let output = workspace.run(&["completions", shell]);
    output.expect_code(0);
    output.stdout()
}

/// What bash offers for the last word of `line` (typed in `dir`), and what it printed on stderr.
fn bash_completes(workspace: &Workspace, dir: &Path, line: &str) -> (Vec<String>, String) {
    let script_file = workspace.path("runner.bash");
    std::fs::write(&script_file, script(workspace, "bash")).unwrap();
    let words: Vec<&str> = line.split(' ').collect();
    let quoted: Vec<String> = words.iter().map(|word| format!("'{word}'")).collect();
    let current = words.len() - 1;
    let program = format!(
        r#"source '{script}'
function=$(complete -p runner | sed -E 's/.* -F ([^ ]+) .*/\1/')
COMP_LINE='{line}'
COMP_POINT=${{#COMP_LINE}}
COMP_WORDS=({words})
COMP_CWORD={current}
COMP_TYPE=9
"$function" runner '{word}' '{previous}'
printf '%s\n' "${{COMPREPLY[@]}}"
"#,
        script = script_file.display(),
        words = quoted.join(" "),
        word = words[current],
        previous = words[current.saturating_sub(1)],
    );
    let output = std::process::Command::new("bash")
        .args(["--noprofile", "--norc", "-c", &program])
        .current_dir(dir)
        .env_remove("RUNNER_COMPLETE")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("`bash` runs");
    assert!(output.status.success(), "bash failed: {}", String::from_utf8_lossy(&output.stderr));
    let offered =
        String::from_utf8_lossy(&output.stdout).lines().filter(|l| !l.is_empty()).map(str::to_string).collect();
    (offered, String::from_utf8_lossy(&output.stderr).into_owned())
}

#[track_caller]
fn offers(workspace: &Workspace, line: &str, expected: &[&str]) {
    let (offered, stderr) = bash_completes(workspace, workspace.root(), line);
    assert_eq!(offered, expected, "`{line}`");
    assert_eq!(stderr, "", "`{line}`");
}

#[test]
fn bash_completes_providers_stacks_and_project_paths() {
    let workspace = repository();
    offers(&workspace, "runner show --provider ", &["demo", "other"]);
    offers(&workspace, "runner up -p o", &["other"]);
    offers(&workspace, "runner up --provider demo --stack ", &["dev", "prod"]);
    offers(&workspace, "runner status -p demo -s p", &["prod"]);
    offers(&workspace, "runner up -p demo --only ", &["a", "b", "c", "d"]);
    offers(&workspace, "runner show -p other --exclude ", &["x/one", "y"]);
    offers(&workspace, "runner show --from ", &["a", "b", "c", "d", "x/one", "y"]);
    offers(&workspace, "runner preview --only x", &["x/one"]);
    // MARA's order: options before the verb.
    offers(&workspace, "runner -p other -s dev up --only ", &["x/one", "y"]);
    offers(&workspace, "runner -p demo -s ", &["dev", "prod"]);
}

#[test]
fn bash_completes_from_a_folder_inside_the_repository() {
    let workspace = repository();
    let nested = workspace.path("projects");
    let (offered, stderr) = bash_completes(&workspace, &nested, "runner show --provider ");
    assert_eq!((offered, stderr.as_str()), (vec!["demo".to_string(), "other".to_string()], ""));
}

#[test]
fn a_broken_repository_completes_what_it_can_and_says_nothing() {
    let workspace = repository();
    workspace.provider("broken", "[[project\npath = ");
    workspace.provider("cyclic", "extends = \"cyclic\"\n");
    workspace.file("providers/common/cyclic.toml", "extends = \"cyclic\"\n");
    offers(&workspace, "runner up -p broken --only ", &[]);
    offers(&workspace, "runner up --only ", &["a", "b", "c", "d", "x/one", "y"]);
    offers(&workspace, "runner up --provider ", &["broken", "cyclic", "demo", "other"]);
    std::fs::remove_dir_all(workspace.path("config")).unwrap();
    offers(&workspace, "runner up -p demo -s ", &[]);

    // No repository at all: nothing, and no error in the middle of the command line.
    let empty = tempfile::tempdir().unwrap();
    let (offered, stderr) = bash_completes(&workspace, empty.path(), "runner show --provider ");
    assert!(offered.is_empty() && stderr.is_empty(), "{offered:?} {stderr}");
    let (offered, stderr) = bash_completes(&workspace, empty.path(), "runner show --root nowhere --only ");
    assert!(offered.is_empty() && stderr.is_empty(), "{offered:?} {stderr}");
}

#[test]
fn ext_zsh_and_fish_scripts_are_valid() {
    let workspace = repository();
    let check = |shell: &str, file: &str, args: &[&str]| {
        let path = workspace.path(file);
        let text = script(&workspace, shell);
        assert!(text.contains("RUNNER_COMPLETE"), "{shell}: {text}");
        std::fs::write(&path, text).unwrap();
        crate::support::needs_external(shell);
        let output = std::process::Command::new(shell)
            .args(args)
            .arg(&path)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap_or_else(|_| {
                panic!("`{shell}` must be installed: `apt-get install -y zsh fish` (scripts/test.sh does it)")
            });
        assert!(output.status.success(), "{shell}: {}", String::from_utf8_lossy(&output.stderr));
    };
    check("zsh", "_runner", &["--no-rcs", "-n"]);
    check("fish", "runner.fish", &["--no-config", "--no-execute"]);
}

/// Runs `program` in `shell` from the repository's root; its stdout, a line per offer.
fn shell_offers(workspace: &Workspace, shell: &str, args: &[&str], program: &str) -> Vec<String> {
    crate::support::needs_external(shell);
    let output = std::process::Command::new(shell)
        .args(args)
        .arg(program)
        .current_dir(workspace.root())
        .env_remove("RUNNER_COMPLETE")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|_| panic!("`{shell}` must be installed (scripts/test.sh installs it)"));
    assert!(output.status.success(), "{shell}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).lines().filter(|l| !l.is_empty()).map(str::to_string).collect()
}

fn fish_offers(workspace: &Workspace, line: &str) -> Vec<String> {
    let path = workspace.path("runner.fish");
    std::fs::write(&path, script(workspace, "fish")).unwrap();
    let program = format!("source '{}'; complete -C '{line}'", path.display());
    // fish may add a tab and a description after the value.
    let offered = shell_offers(workspace, "fish", &["--no-config", "-c"], &program);
    offered.into_iter().map(|offer| offer.split('\t').next().unwrap_or_default().to_string()).collect()
}

fn zsh_offers(workspace: &Workspace, line: &str) -> Vec<String> {
    let path = workspace.path("_runner");
    std::fs::write(&path, script(workspace, "zsh")).unwrap();
    let words: Vec<String> = line.split(' ').map(|word| format!("'{word}'")).collect();
    // `_describe` belongs to compsys, which needs a live line editor; the stub prints the
    // array the completer hands it (its third argument).
    let program = format!(
        "compdef() {{ : }}; _describe() {{ print -rl -- \"${{(@P)3}}\" }}; source '{}'; words=({}); CURRENT={}; _clap_dynamic_completer_runner",
        path.display(),
        words.join(" "),
        words.len(),
    );
    // zsh shows `value:description`.
    let offered = shell_offers(workspace, "zsh", &["--no-rcs", "-c"], &program);
    offered.into_iter().map(|offer| offer.split(':').next().unwrap_or_default().to_string()).collect()
}

#[test]
fn ext_fish_and_zsh_complete_providers_stacks_and_project_paths() {
    let workspace = repository();
    for (shell, complete) in [("fish", fish_offers as fn(&Workspace, &str) -> Vec<String>), ("zsh", zsh_offers)] {
        let cases: [(&str, &[&str]); 4] = [
            ("runner show --provider ", &["demo", "other"]),
            ("runner up --provider demo --stack ", &["dev", "prod"]),
            ("runner up -p other --only ", &["x/one", "y"]),
            ("runner preview --only x", &["x/one"]),
        ];
        for (line, expected) in cases {
            assert_eq!(complete(&workspace, line), expected, "{shell}: `{line}`");
        }
    }
}
