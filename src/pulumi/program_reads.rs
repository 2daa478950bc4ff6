//! Which upstream outputs a program reads, where the runner can see it: a Pulumi YAML program's
//! `pulumi:pulumi:StackReference` resources used as `${ref.outputs["name"]}` or `${ref.outputs.name}`.

use std::collections::BTreeSet;
use std::path::Path;

/// The output names read through stack references, over all of them (a superset of what each
/// one is read for, so comparing it never misses a change); `None` when the program is not
/// YAML, cannot be read, has no reference (its dependencies are read some other way) or reads
/// a reference in a way not understood: every output counts then.
pub(crate) fn program_reads(folder: &Path) -> Option<BTreeSet<String>> {
    let program = super::YamlProgram::load(folder)?;
    let references: Vec<String> = program
        .resources()
        .filter(|(_, resource)| {
            resource.get("type").and_then(serde_norway::Value::as_str) == Some("pulumi:pulumi:StackReference")
        })
        .filter_map(|(name, _)| name.as_str().map(str::to_string))
        .collect();
    if references.is_empty() {
        return None;
    }
    let mut reads = BTreeSet::new();
    for reference in references {
        let uses = format!("${{{reference}.");
        let mut rest = program.text.as_str();
        while let Some(at) = rest.find(&uses) {
            rest = &rest[at + uses.len()..];
            let end = rest.find('}')?;
            reads.insert(output_name(&rest[..end])?);
        }
    }
    Some(reads)
}

/// `outputs["name"]`, `outputs['name']` or `outputs.name` (then anything deeper) -> `name`.
fn output_name(access: &str) -> Option<String> {
    let rest = access.strip_prefix("outputs")?;
    if let Some(quoted) = rest.strip_prefix("[\"").or_else(|| rest.strip_prefix("['")) {
        let end = quoted.find(['"', '\''])?;
        return Some(quoted[..end].to_string());
    }
    let name = rest.strip_prefix('.')?;
    let end = name.find(['.', '[']).unwrap_or(name.len());
    (end > 0).then(|| name[..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads(program: &str) -> Option<BTreeSet<String>> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Pulumi.yaml"), program).unwrap();
        program_reads(dir.path())
    }

    #[test]
    fn the_outputs_a_yaml_program_reads_through_its_references() {
        let program = r#"name: c
runtime: yaml
resources:
  net:
    type: pulumi:pulumi:StackReference
    properties:
      name: o/n/dev
  x:
    type: pulumi:index:Stash
    properties:
      input:
        - ${net.outputs["cidr"]}
        - ${net.outputs.name}
        - ${net.outputs['zone'].a}
"#;
        let names: Vec<String> = reads(program).unwrap().into_iter().collect();
        assert_eq!(names, ["cidr", "name", "zone"]);
    }

    #[test]
    fn a_reference_read_whole_or_another_runtime_means_every_output() {
        let whole = "name: c\nruntime: yaml\nresources:\n  net:\n    type: pulumi:pulumi:StackReference\noutputs:\n  all: ${net.outputs}\n";
        assert_eq!(reads(whole), None, "`${{net.outputs}}` reads every output");
        let python = "name: c\nruntime: python\n";
        assert_eq!(reads(python), None);
        // A dependency declared without a visible reference is read some other way.
        assert_eq!(reads("name: c\nruntime: yaml\n"), None, "no reference: every output counts");
    }
}
