//! Whether a project folder holds a program for its runtime, not only a `Pulumi.yaml`.

use std::path::Path;

/// `None` when the folder holds a program `pulumi` can run for `runtime`; otherwise what is
/// missing. MARA's manifests without their Python sources fail here, not in the middle of a run.
pub(crate) fn program_problem(dir: &Path, runtime: &str) -> Option<String> {
    let manifest: serde_norway::Value = ["Pulumi.yaml", "Pulumi.yml"]
        .iter()
        .find_map(|name| std::fs::read_to_string(dir.join(name)).ok())
        .and_then(|text| serde_norway::from_str(&text).ok())
        .unwrap_or_default();
    let main = manifest.get("main").and_then(|main| main.as_str()).map(|main| dir.join(main));
    let base = main.clone().unwrap_or_else(|| dir.to_path_buf());
    let has = |name: &str| base.join(name).exists();
    let any_with = |ext: &str| {
        std::fs::read_dir(&base)
            .is_ok_and(|entries| entries.flatten().any(|entry| entry.path().extension().is_some_and(|e| e == ext)))
    };
    let (present, expected) = match runtime {
        // The manifest is the program (an empty one is valid), unless `main` points elsewhere.
        "yaml" => (main.as_ref().is_none_or(|m| m.join("Main.yaml").is_file() || m.is_file()), "`Main.yaml`"),
        "python" => (main.as_ref().is_some_and(|m| m.is_file()) || has("__main__.py"), "`__main__.py`"),
        "nodejs" => (
            main.as_ref().is_some_and(|m| m.is_file()) || has("package.json") || has("index.ts") || has("index.js"),
            "`package.json`, `index.ts` or `index.js`",
        ),
        "go" => (any_with("go"), "a `.go` file"),
        "dotnet" => (any_with("csproj") || any_with("fsproj") || any_with("vbproj"), "a `.csproj` project"),
        "java" => (has("pom.xml") || has("build.gradle") || has("build.gradle.kts"), "`pom.xml` or `build.gradle`"),
        // A runtime the runner does not know: Pulumi will tell.
        _ => return None,
    };
    (!present).then(|| match main {
        Some(_) => {
            format!("no program for runtime `{runtime}` in `{}`: expected {expected}", crate::error::shown_path(&base))
        }
        // The same words for every project that lacks it: problems are grouped by cause.
        None => format!("no program for runtime `{runtime}` in its folder: expected {expected}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    #[test]
    fn a_python_manifest_without_sources_has_no_program() {
        let dir = project(&[("Pulumi.yaml", "name: vpc\nruntime: python\n")]);
        let problem = program_problem(dir.path(), "python").unwrap();
        assert!(problem.contains("`__main__.py`"), "{problem}");
        let dir = project(&[("Pulumi.yaml", "name: vpc\nruntime: python\n"), ("__main__.py", "")]);
        assert_eq!(program_problem(dir.path(), "python"), None);
    }

    #[test]
    fn a_yaml_program_lives_in_its_manifest() {
        let dir = project(&[("Pulumi.yaml", "name: a\nruntime: yaml\noutputs:\n  x: 1\n")]);
        assert_eq!(program_problem(dir.path(), "yaml"), None);
        let dir = project(&[("Pulumi.yaml", "name: a\nruntime: yaml\nmain: src/\n")]);
        assert!(program_problem(dir.path(), "yaml").is_some());
    }

    #[test]
    fn unknown_runtimes_are_left_to_pulumi() {
        let dir = project(&[("Pulumi.yaml", "name: a\nruntime: cobol\n")]);
        assert_eq!(program_problem(dir.path(), "cobol"), None);
    }
}
