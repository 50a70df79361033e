//! What the added marketplaces offer, installed or not: `tack plugin list
//! --available`, `tack plugin details` and the terminal UI's `/plugin`. A
//! plugin not installed is read where its marketplace keeps it (a relative
//! source, already on disk); one from elsewhere (git, GitHub) is known by its
//! entry until installed.

use std::path::PathBuf;

use crate::context::Context;
use crate::error::InstallError;
use crate::installed::{Install, InstalledPlugins};
use crate::known::KnownMarketplaces;
use crate::layers::merged_enabled;
use crate::marketplace::{Marketplace, MarketplaceEntry};
use crate::plugin::{Plugin, PluginSource};
use crate::source::PluginEntrySource;

/// One plugin a marketplace offers.
#[derive(Debug, Clone, PartialEq)]
pub struct Offered {
    pub name: String,
    pub marketplace: String,
    pub description: Option<String>,
    pub version: Option<String>,
    /// Installed where this project can use it.
    pub installed: bool,
    /// Enabled in the merged settings.
    pub enabled: bool,
}

impl Offered {
    /// `name@marketplace`.
    pub fn id(&self) -> String {
        format!("{}@{}", self.name, self.marketplace)
    }
}

/// Every plugin of every added marketplace, by marketplace then name; a
/// marketplace that cannot be read is a warning.
pub fn available_plugins(ctx: &Context) -> Result<(Vec<Offered>, Vec<String>), InstallError> {
    let dir = ctx.plugins_dir();
    let known = KnownMarketplaces::read(&dir)?;
    let installed = InstalledPlugins::read(&dir)?;
    let (enabled, _) = merged_enabled(&ctx.layers, ctx.project_trusted);
    let mut warnings = known.broken.clone();
    let mut out = Vec::new();
    for (name, k) in &known.entries {
        let market = match Marketplace::load(&k.install_location) {
            Ok(m) => m,
            Err(e) => {
                warnings.push(format!("marketplace {name}: {e}"));
                continue;
            }
        };
        for entry in &market.plugins {
            let id = format!("{}@{name}", entry.name);
            out.push(Offered {
                name: entry.name.clone(),
                marketplace: name.clone(),
                description: entry.description.clone(),
                version: entry.version.clone(),
                installed: installed
                    .plugins
                    .get(&id)
                    .is_some_and(|l| l.iter().any(|i| i.applies_in(&ctx.project_dir))),
                enabled: enabled.get(&id).copied().unwrap_or(false),
            });
        }
    }
    out.sort_by(|a, b| (&a.marketplace, &a.name).cmp(&(&b.marketplace, &b.name)));
    Ok((out, warnings))
}

/// A known plugin, installed or not.
#[derive(Debug, Clone, PartialEq)]
pub struct KnownPlugin {
    /// `name@marketplace`.
    pub id: String,
    pub marketplace: String,
    /// Its marketplace entry (`None`: installed, but its marketplace no
    /// longer lists it).
    pub entry: Option<MarketplaceEntry>,
    pub installs: Vec<Install>,
    /// The plugin, its entry applied: from its first install, else from the
    /// marketplace's folder; `None` when its files are elsewhere (a git
    /// source not installed).
    pub plugin: Option<Plugin>,
    /// Where `plugin` was read from.
    pub root: Option<PathBuf>,
}

/// The plugin `spec` names (`name` or `name@marketplace`), installed or
/// offered by an added marketplace.
pub fn find_plugin(ctx: &Context, spec: &str) -> Result<KnownPlugin, InstallError> {
    let dir = ctx.plugins_dir();
    let installed = InstalledPlugins::read(&dir)?;
    let id = match spec.rsplit_once('@') {
        Some(_) => spec.to_owned(),
        None => unique_id(ctx, &installed, spec)?,
    };
    let (name, marketplace) = id.rsplit_once('@').unwrap_or((id.as_str(), ""));
    let known = KnownMarketplaces::read(&dir)?;
    let market = known
        .get(marketplace)
        .and_then(|k| Marketplace::load(&k.install_location).ok());
    let entry = market.as_ref().and_then(|m| m.entry(name).cloned());
    let installs = installed.plugins.get(&id).cloned().unwrap_or_default();
    if entry.is_none() && installs.is_empty() {
        return Err(InstallError::refused(format!(
            "plugin `{id}` not found: it is neither installed nor offered by an added marketplace \
             (see `tack plugin list --available`)"
        )));
    }
    let root = match (installs.first(), &entry, &market) {
        (Some(install), ..) => Some(install.install_path.clone()),
        (None, Some(e), Some(m)) => match &e.source {
            Some(PluginEntrySource::Relative(rel)) => Some(m.relative_dir(rel)?),
            _ => None,
        },
        _ => None,
    };
    let plugin = match &root {
        Some(root) => {
            let source = PluginSource::Installed {
                marketplace: marketplace.to_owned(),
            };
            let mut plugin = Plugin::load_or_named(root, name, source)?;
            if let Some(e) = &entry {
                e.apply_to(&mut plugin).map_err(InstallError::Refused)?;
            }
            Some(plugin)
        }
        None => None,
    };
    Ok(KnownPlugin {
        id: id.clone(),
        marketplace: marketplace.to_owned(),
        entry,
        installs,
        plugin,
        root,
    })
}

/// The one id a bare `name` means: installed, else offered by exactly one
/// added marketplace.
fn unique_id(
    ctx: &Context,
    installed: &InstalledPlugins,
    name: &str,
) -> Result<String, InstallError> {
    let mut ids: Vec<String> = installed
        .plugins
        .keys()
        .filter(|id| id.rsplit_once('@').is_some_and(|(n, _)| n == name))
        .cloned()
        .collect();
    if ids.is_empty() {
        let (offered, _) = available_plugins(ctx)?;
        ids = offered
            .iter()
            .filter(|o| o.name == name)
            .map(Offered::id)
            .collect();
    }
    match ids.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(InstallError::refused(format!(
            "plugin `{name}` not found: it is neither installed nor offered by an added marketplace \
             (see `tack plugin list --available`)"
        ))),
        many => Err(InstallError::refused(format!(
            "several plugins are named `{name}` ({}): use `{name}@<marketplace>`",
            many.join(", ")
        ))),
    }
}
