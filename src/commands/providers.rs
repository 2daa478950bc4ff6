use std::io::Write;

use crate::cli::Settings;
use crate::error::Result;
use crate::exit_status::ExitStatus;
use crate::provider::{ProviderCatalog, ProviderOrigin};

/// `runner providers`: one line per provider, name, description and where it is defined, on stdout.
pub(crate) fn list_providers(settings: &Settings) -> Result<ExitStatus> {
    let catalog = ProviderCatalog::new(settings.root.clone());
    let names = catalog.names()?;
    let mut rows = Vec::new();
    for name in &names {
        let description = match catalog.load(name, None) {
            Ok(provider) => provider.description,
            Err(err) => format!("(invalid: {})", err.chain()),
        };
        let origin = match catalog.origin(name) {
            Some(ProviderOrigin::File(file)) => settings.root.relative(&file).display().to_string(),
            Some(ProviderOrigin::BuiltIn) => "built-in".to_string(),
            None => String::new(),
        };
        rows.push((name.clone(), description, origin));
    }
    let name_width = rows.iter().map(|(name, _, _)| name.len()).max().unwrap_or(0);
    let description_width = rows.iter().map(|(_, description, _)| description.chars().count()).max().unwrap_or(0);
    let mut out = std::io::stdout().lock();
    for (name, description, origin) in rows {
        let _ = writeln!(out, "{name:name_width$}  {description:description_width$}  {origin}");
    }
    Ok(ExitStatus::Success)
}
