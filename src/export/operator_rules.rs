use std::collections::BTreeSet;

use serde_norway::Value;

use super::git_source::check_git_url;
use super::go_duration::is_go_duration;
use super::resource_name::{is_dns_label, MAX_STACK_NAME_LEN};

/// What the Pulumi Kubernetes Operator (v2.9.0) rejects, or breaks on, although the API server
/// accepts it: every problem in a YAML stream, as `<kind>/<name>: problem` lines. Empty when
/// the stream is safe to apply.
///
/// - `metadata.name` of a `Stack` at most 42 characters (a CEL rule the server does enforce,
///   checked here so nothing half-applies) and a DNS label;
/// - one namespace for every resource: prerequisites are looked up in the Stack's own namespace;
/// - `succeededWithinDuration` a Go duration string (the operator otherwise fails to list any Stack);
/// - `envRefs` and `secretsRef` of type `Literal` or `Secret` only (`Env` and `FS` are deprecated
///   and stall the Stack), each with the fields its type needs;
/// - exactly one of `branch` and `commit` with `projectRepo`, and a git URL with owner and repository;
/// - every prerequisite names a Stack of the stream.
pub(crate) fn check_operator_rules(documents: &[Value]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut namespaces = BTreeSet::new();
    let stacks: BTreeSet<String> = documents
        .iter()
        .filter(|document| kind(document) == "Stack")
        .filter_map(|document| text(document, &["metadata", "name"]))
        .collect();
    for document in documents {
        if document.is_null() {
            continue;
        }
        let kind = kind(document);
        let name = text(document, &["metadata", "name"]).unwrap_or_default();
        let mut problem = |message: String| problems.push(format!("{kind}/{name}: {message}"));
        let namespace = text(document, &["metadata", "namespace"]).unwrap_or_default();
        if namespace.is_empty() {
            problem("has no `metadata.namespace`: the whole graph must live in one namespace".into());
        } else if !is_dns_label(&namespace) {
            problem(format!("namespace `{namespace}` is not a DNS label (lowercase letters, digits, `-`)"));
        }
        namespaces.insert(namespace);
        if kind != "Stack" {
            continue;
        }
        if name.len() > MAX_STACK_NAME_LEN {
            problem(format!(
                "name has {}, the operator allows at most {MAX_STACK_NAME_LEN}",
                crate::text::counted(name.len(), "character")
            ));
        }
        if !is_dns_label(&name) {
            problem("name is not a DNS label (lowercase letters, digits, `-`)".into());
        }
        let spec = &document["spec"];
        if text(spec, &["stack"]).is_none_or(|stack| stack.is_empty()) {
            problem("`spec.stack` is missing".into());
        }
        check_source(spec, &mut problem);
        check_prerequisites(spec, &stacks, &mut problem);
        for field in ["envRefs", "secretsRef"] {
            check_refs(spec, field, &mut problem);
        }
    }
    if namespaces.len() > 1 {
        let list: Vec<String> = namespaces.iter().map(|namespace| format!("`{namespace}`")).collect();
        problems.push(format!(
            "the stream uses {} ({}): prerequisites are only found in a Stack's own namespace",
            crate::text::counted(namespaces.len(), "namespace"),
            list.join(", ")
        ));
    }
    problems
}

fn check_source(spec: &Value, problem: &mut impl FnMut(String)) {
    let Some(repo) = spec.get("projectRepo") else { return };
    match repo.as_str() {
        Some(url) => {
            if let Err(err) = check_git_url(url) {
                problem(err.chain().to_string());
            }
        }
        None => problem("`spec.projectRepo` must be a string".into()),
    }
    let present = |key: &str| spec.get(key).is_some_and(|value| !value.is_null());
    match (present("branch"), present("commit")) {
        (true, true) => problem("`spec.branch` and `spec.commit` are both set: the operator needs exactly one".into()),
        (false, false) => problem("`spec.projectRepo` needs exactly one of `spec.branch` or `spec.commit`".into()),
        _ => {}
    }
}

fn check_prerequisites(spec: &Value, stacks: &BTreeSet<String>, problem: &mut impl FnMut(String)) {
    let Some(prerequisites) = spec.get("prerequisites") else { return };
    let Some(list) = prerequisites.as_sequence() else {
        problem("`spec.prerequisites` must be a list".into());
        return;
    };
    for (index, entry) in list.iter().enumerate() {
        let at = format!("`spec.prerequisites[{index}]`");
        match entry.get("name").and_then(Value::as_str) {
            Some(name) if stacks.contains(name) => {}
            Some(name) => problem(format!("{at} names `{name}`, which is not a Stack of this export")),
            None => problem(format!("{at} has no `name`")),
        }
        let Some(duration) =
            entry.get("requirement").and_then(|requirement| requirement.get("succeededWithinDuration"))
        else {
            continue;
        };
        match duration {
            Value::String(text) if is_go_duration(text) => {}
            Value::String(text) => problem(format!(
                "{at}.requirement.succeededWithinDuration `{text}` is not a Go duration (write `5m`, `1h30m`, `24h`)"
            )),
            other => problem(format!(
                "{at}.requirement.succeededWithinDuration must be a Go duration string such as `5m`, not `{}`",
                serde_norway::to_string(other).unwrap_or_default().trim()
            )),
        }
    }
}

fn check_refs(spec: &Value, field: &str, problem: &mut impl FnMut(String)) {
    let Some(refs) = spec.get(field) else { return };
    let Some(map) = refs.as_mapping() else {
        problem(format!("`spec.{field}` must be a mapping"));
        return;
    };
    for (key, reference) in map {
        let key = key.as_str().unwrap_or_default();
        let at = format!("`spec.{field}.{key}`");
        match reference.get("type").and_then(Value::as_str) {
            Some("Literal") => {
                if reference.get("literal").and_then(|literal| literal.get("value")).and_then(Value::as_str).is_none() {
                    problem(format!("{at} is `Literal` without `literal.value`"));
                }
            }
            Some("Secret") => {
                let secret = reference.get("secret");
                let field_of = |name: &str| secret.and_then(|secret| secret.get(name)).and_then(Value::as_str);
                if field_of("name").is_none_or(str::is_empty) || field_of("key").is_none_or(str::is_empty) {
                    problem(format!("{at} is `Secret` without `secret.name` and `secret.key`"));
                }
                if field_of("namespace").is_some_and(|namespace| !namespace.is_empty()) {
                    problem(format!("{at} sets `secret.namespace`: the operator only reads its own namespace"));
                }
            }
            Some(other) => problem(format!(
                "{at} has type `{other}`: the operator accepts only `Literal` and `Secret` (`Env` and `FS` stall the Stack)"
            )),
            None => problem(format!("{at} has no `type`")),
        }
    }
}

fn kind(document: &Value) -> String {
    document.get("kind").and_then(Value::as_str).unwrap_or("document").to_string()
}

fn text(value: &Value, path: &[&str]) -> Option<String> {
    let mut current = value;
    for key in path {
        current = current.get(*key)?;
    }
    current.as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(text: &str) -> Vec<Value> {
        serde_norway::Deserializer::from_str(text).map(|document| Value::deserialize(document).unwrap()).collect()
    }

    use serde::Deserialize;

    const GOOD: &str = "
apiVersion: pulumi.com/v1
kind: Stack
metadata: {name: dev-a, namespace: infra}
spec: {stack: organization/a/dev, projectRepo: 'https://github.com/acme/infra', branch: main}
---
apiVersion: pulumi.com/v1
kind: Stack
metadata: {name: dev-b, namespace: infra}
spec:
  stack: organization/b/dev
  projectRepo: https://github.com/acme/infra
  commit: abc1234
  prerequisites: [{name: dev-a, requirement: {succeededWithinDuration: 24h}}]
  envRefs:
    PULUMI_CONFIG_PASSPHRASE: {type: Secret, secret: {name: s, key: PULUMI_CONFIG_PASSPHRASE}}
    PLAIN: {type: Literal, literal: {value: x}}
";

    #[test]
    fn a_good_stream_passes() {
        assert_eq!(check_operator_rules(&stream(GOOD)), Vec::<String>::new());
    }

    #[test]
    fn every_operator_rule_is_enforced() {
        let bad = GOOD
            .replacen("name: dev-a,", "name: dev-a-name-that-is-much-longer-than-forty-two-chars,", 1)
            .replace("succeededWithinDuration: 24h", "succeededWithinDuration: 300")
            .replace("type: Literal", "type: Env")
            .replace("commit: abc1234", "commit: abc1234\n  branch: main")
            .replace("name: dev-b, namespace: infra}", "name: dev-b, namespace: other}")
            .replace("'https://github.com/acme/infra'", "'https://github.com/acme'");
        let problems = check_operator_rules(&stream(&bad)).join("\n");
        for needle in [
            "has 51 characters, the operator allows at most 42",
            "must be a Go duration string such as `5m`, not `300`",
            "type `Env`",
            "both set",
            "2 namespaces",
            "names no owner and repository",
            "names `dev-a`, which is not a Stack of this export",
        ] {
            assert!(problems.contains(needle), "{needle} not in:\n{problems}");
        }
    }
}
