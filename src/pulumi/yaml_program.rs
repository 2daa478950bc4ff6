use std::path::Path;

/// A Pulumi YAML program as written: `Pulumi.yaml` (or `Pulumi.yml`) and, when there is one,
/// `Main.yaml` beside it, which holds the resources when the manifest does not.
pub(crate) struct YamlProgram {
    /// The manifest, then `Main.yaml`.
    pub documents: Vec<serde_norway::Value>,
    /// Both files' text, one after the other, for what is read out of expressions.
    pub text: String,
}

impl YamlProgram {
    /// `None` when the folder holds no manifest that parses, or its runtime is not `yaml`.
    pub(crate) fn load(folder: &Path) -> Option<Self> {
        let manifest_text =
            ["Pulumi.yaml", "Pulumi.yml"].iter().find_map(|name| std::fs::read_to_string(folder.join(name)).ok())?;
        let manifest: serde_norway::Value = serde_norway::from_str(&manifest_text).ok()?;
        if manifest.get("runtime").and_then(runtime_name) != Some("yaml") {
            return None;
        }
        let main_text = std::fs::read_to_string(folder.join("Main.yaml")).ok();
        let main = main_text.as_deref().and_then(|text| serde_norway::from_str(text).ok());
        let text = match &main_text {
            Some(main) => format!("{manifest_text}\n{main}"),
            None => manifest_text,
        };
        Some(Self { documents: [Some(manifest), main].into_iter().flatten().collect(), text })
    }

    /// Every resource of both files, by its name.
    pub(crate) fn resources(&self) -> impl Iterator<Item = (&serde_norway::Value, &serde_norway::Value)> {
        self.documents
            .iter()
            .filter_map(|document| document.get("resources").and_then(serde_norway::Value::as_mapping))
            .flat_map(|resources| resources.iter())
    }
}

fn runtime_name(runtime: &serde_norway::Value) -> Option<&str> {
    runtime.as_str().or_else(|| runtime.get("name").and_then(serde_norway::Value::as_str))
}
