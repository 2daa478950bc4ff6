use std::io::Write;

use crate::cli::Settings;
use crate::error::Result;
use crate::exit_status::ExitStatus;
use crate::provider::ProviderCatalog;

/// `runner providers`: one line per provider, name and description, on stdout.
pub fn list_providers(settings: &Settings) -> Result<ExitStatus> {
    let catalog = ProviderCatalog::new(settings.root.clone());
    let names = catalog.names()?;
    let mut rows = Vec::new();
    for name in &names {
        let description = match catalog.load(name, None) {
            Ok(provider) => provider.description,
            Err(err) => format!("(invalid: {err})"),
        };
        rows.push((name.clone(), description));
    }
    let width = rows.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    let mut out = std::io::stdout().lock();
    for (name, description) in rows {
        let _ = writeln!(out, "{name:width$}  {description}");
    }
    Ok(ExitStatus::Success)
}
