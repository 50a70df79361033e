//! `tack plugin list --available` and `tack plugin details`: what the added
//! marketplaces offer, and one plugin's components with the tokens each adds
//! to every prompt, for installed plugins and offered ones alike.

use std::fmt::Write as _;

use serde_json::json;
use tack_plugins::{Context, Offered};
use tack_protocol::plugin_catalog::{CatalogPlugin, PluginComponent, total_tokens};
use tack_sys::terminal_text::visible;

/// The protocol's row for `o`.
pub fn catalog_row(o: Offered) -> CatalogPlugin {
    CatalogPlugin {
        name: o.name,
        marketplace: o.marketplace,
        description: o.description,
        version: o.version,
        installed: o.installed,
        enabled: o.enabled,
    }
}

/// `list --available [--json]`.
pub fn available(ctx: &Context, as_json: bool) -> anyhow::Result<String> {
    let (offered, warnings) = tack_plugins::available_plugins(ctx)?;
    for w in warnings {
        eprintln!("warning: {}", visible(&w));
    }
    let rows: Vec<CatalogPlugin> = offered.into_iter().map(catalog_row).collect();
    if as_json {
        let items: Vec<_> = rows
            .iter()
            .map(|r| {
                json!({"id": r.id(), "name": r.name, "marketplace": r.marketplace,
                       "description": r.description, "version": r.version,
                       "installed": r.installed, "enabled": r.enabled})
            })
            .collect();
        return Ok(serde_json::to_string_pretty(&items)?);
    }
    if rows.is_empty() {
        return Ok("No plugins available: add a marketplace with \
                   `tack plugin marketplace add <source>`."
            .to_owned());
    }
    let mut out = String::from("Available plugins:\n");
    for r in &rows {
        write!(out, "\n  ❯ {}\n", r.id())?;
        if let Some(d) = &r.description {
            writeln!(out, "    {d}")?;
        }
        if let Some(v) = &r.version {
            writeln!(out, "    Version: {v}")?;
        }
        let status = match (r.installed, r.enabled) {
            (true, true) => "✔ installed, enabled".to_owned(),
            (true, false) => "✔ installed, ✘ disabled".to_owned(),
            (false, _) => format!("not installed (`tack plugin install {}`)", r.id()),
        };
        writeln!(out, "    Status: {status}")?;
    }
    Ok(out)
}

/// `details <plugin[@marketplace]>`: any plugin installed or offered.
pub fn details(ctx: &Context, spec: &str) -> anyhow::Result<String> {
    let known = tack_plugins::find_plugin(ctx, spec)?;
    let mut out = format!("{}\n", known.id);
    let description = known
        .entry
        .as_ref()
        .and_then(|e| e.description.clone())
        .or_else(|| known.plugin.as_ref()?.manifest.description.clone());
    if let Some(d) = description {
        writeln!(out, "  Description: {d}")?;
    }
    writeln!(out, "  Marketplace: {}", known.marketplace)?;
    if known.installs.is_empty() {
        writeln!(out, "  Not installed (`tack plugin install {}`)", known.id)?;
    }
    for i in &known.installs {
        writeln!(
            out,
            "  Installed ({}): {} at {}",
            i.scope.name(),
            i.version.as_deref().unwrap_or("unknown"),
            i.install_path.display()
        )?;
    }
    let Some(plugin) = &known.plugin else {
        out.push_str("  Components: known once installed (its files are not in the marketplace)\n");
        return Ok(out);
    };
    let (components, warnings) = tack_runtime::plugin_components(plugin);
    for w in warnings {
        eprintln!("warning: {}", visible(&w));
    }
    out.push_str(&components_text(&components));
    Ok(out)
}

/// The components by kind, each with its tokens when it adds any.
pub fn components_text(components: &[PluginComponent]) -> String {
    if components.is_empty() {
        return "  Components: none\n".to_owned();
    }
    let mut out = format!(
        "  Adds to every prompt: ~{} tokens\n",
        total_tokens(components)
    );
    let mut kinds: Vec<_> = components.iter().map(|c| c.kind).collect();
    kinds.dedup();
    for kind in kinds {
        let names: Vec<String> = components
            .iter()
            .filter(|c| c.kind == kind)
            .map(|c| match c.tokens {
                0 => c.name.clone(),
                n => format!("{} (~{n} tokens)", c.name),
            })
            .collect();
        let _ = writeln!(out, "  {}: {}", kind.heading(), names.join(", "));
    }
    out
}
