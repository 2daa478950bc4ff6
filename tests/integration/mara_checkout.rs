//! A MARA-shaped checkout in a temp dir: MARA's config files and its 28 project manifests in their
//! layout, and no runner file. Tests `cd` into it, as a MARA user would.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::support::{copy_tree, path_with, real_pulumi_dir, repository, RunOutput};

pub(crate) struct MaraCheckout {
    dir: tempfile::TempDir,
    /// Outside the checkout: `HOME` (Pulumi's own files, the kubeconfig) must not land in it.
    home: tempfile::TempDir,
}

impl MaraCheckout {
    /// MARA's files, unchanged: `config/`, `pulumi/python/automation/`, the 28 manifests.
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let fixtures = repository().join("tests/fixtures/mara");
        copy_tree(&fixtures.join("checkout"), dir.path());
        let projects = dir.path().join("pulumi/python");
        copy_tree(&repository().join("projects/mara"), &projects);
        std::fs::remove_file(projects.join("README.md")).unwrap();
        // A real checkout has each project's Python program; the preflight looks for it.
        let mut manifests = Vec::new();
        collect_files(&projects, &projects, &mut manifests);
        for manifest in manifests.iter().filter(|path| path.ends_with("Pulumi.yaml")) {
            let folder = projects.join(manifest).parent().unwrap().to_path_buf();
            std::fs::write(folder.join("__main__.py"), "# MARA's program stands here\n").unwrap();
        }
        Self { dir, home: tempfile::tempdir().expect("temp home") }
    }

    /// Every project that has a program in `tests/fixtures/mara/programs/` becomes that YAML
    /// program, keeping the manifest's `name`, `description` and shared configuration folder
    /// (`stackConfigDir` is the form of MARA's `config:` that the YAML language host accepts).
    pub(crate) fn with_yaml_programs(self) -> Self {
        let programs = repository().join("tests/fixtures/mara/programs");
        let mut found = Vec::new();
        collect_programs(&programs, &programs, &mut found);
        for relative in found {
            let project = relative.trim_end_matches(".yaml");
            let manifest_path = self.path(&format!("pulumi/python/{project}/Pulumi.yaml"));
            let manifest: serde_norway::Value =
                serde_norway::from_str(&std::fs::read_to_string(&manifest_path).unwrap()).unwrap();
            let mut text = format!(
                "name: {}\nruntime: yaml\ndescription: {}\n",
                manifest["name"].as_str().unwrap(),
                manifest["description"].as_str().unwrap_or_default().trim()
            );
            if let Some(config) = manifest["config"].as_str() {
                text.push_str(&format!("stackConfigDir: {config}\n"));
            }
            text.push_str(&std::fs::read_to_string(programs.join(&relative)).unwrap());
            std::fs::write(&manifest_path, text).unwrap();
        }
        self
    }

    /// `providers/<name>.toml` inside the checkout: adds to (or overrides) the built-in providers.
    pub(crate) fn provider(&self, name: &str, text: &str) -> &Self {
        self.file(&format!("providers/{name}.toml"), text)
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn home(&self) -> &Path {
        self.home.path()
    }

    pub(crate) fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    pub(crate) fn file(&self, relative: &str, text: &str) -> &Self {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }

    /// `runner ARGS` in `relative` (a folder of the checkout), the real `pulumi` first on PATH.
    pub(crate) fn command_in(&self, relative: &str, args: &[&str]) -> Command {
        // MARA's programs are Python: its language host installed as a plugin, as `pulumi plugin
        // install language python` leaves it (the test build bundles only YAML's).
        std::fs::create_dir_all(self.home().join(".pulumi/plugins/language-python-v3.259.0")).unwrap();
        let mut command = Command::cargo_bin("runner").unwrap();
        command
            .current_dir(self.path(relative))
            .args(args)
            .env("NO_COLOR", "1")
            .env("PATH", path_with(&real_pulumi_dir()))
            .env("HOME", self.home())
            .env_remove("CI")
            .env_remove("PULUMI_BACKEND_URL")
            .env_remove("PULUMI_CONFIG_PASSPHRASE")
            .env_remove("PULUMI_CONFIG_PASSPHRASE_FILE")
            .env_remove("KUBECONFIG");
        command
    }

    pub(crate) fn run(&self, args: &[&str]) -> RunOutput {
        RunOutput(self.command_in("", args).output().expect("runner starts"))
    }

    /// Every file of the checkout, relative and sorted, leaving out the runner's own `.runner/`.
    pub(crate) fn listing(&self) -> Vec<String> {
        let mut files = Vec::new();
        collect_files(self.root(), self.root(), &mut files);
        files.retain(|file| !file.starts_with(".runner/"));
        files.sort();
        files
    }

    /// Every file under the checkout, `.runner/` included, whose bytes contain `needle`.
    pub(crate) fn files_containing(&self, needle: &str) -> Vec<String> {
        let mut files = Vec::new();
        collect_files(self.root(), self.root(), &mut files);
        files
            .into_iter()
            .filter(|file| {
                let bytes = std::fs::read(self.path(file)).unwrap_or_default();
                bytes.windows(needle.len()).any(|window| window == needle.as_bytes())
            })
            .collect()
    }
}

fn collect_programs(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_programs(root, &path, out);
        } else {
            out.push(path.strip_prefix(root).unwrap().display().to_string());
        }
    }
}

fn collect_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(root, &path, out);
        } else {
            out.push(path.strip_prefix(root).unwrap().display().to_string());
        }
    }
}
