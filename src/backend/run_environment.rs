use std::collections::BTreeMap;

/// The run's environment as the stores and their credentials read it: the variables `pulumi`
/// gets (process environment and environment file merged), an empty value as unset.
pub(crate) trait RunEnvironment {
    fn vars(&self) -> &BTreeMap<String, String>;

    fn get(&self, key: &str) -> Option<&str> {
        self.vars().get(key).map(String::as_str).filter(|value| !value.is_empty())
    }
}

impl RunEnvironment for BTreeMap<String, String> {
    fn vars(&self) -> &BTreeMap<String, String> {
        self
    }
}
