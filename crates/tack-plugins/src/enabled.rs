//! The plugins a session loads: those enabled in the merged settings and
//! installed where this project can use them. For the runtime; runs nothing.
//!
//! Trust: a project or local settings file turns a plugin on only when the
//! folder is trusted (its `false` always counts). A plugin that is enabled
//! but missing, or broken, is a warning and the session goes on without it.

use std::collections::BTreeMap;
use std::path::Path;

use crate::install::load_installed;
use crate::installed::InstalledPlugins;
use crate::known::KnownMarketplaces;
use crate::layers::{SettingsLayer, merged_enabled};
use crate::marketplace::Marketplace;
use crate::plugin::Plugin;
use crate::store::PluginsDir;

/// What [`enabled_plugins`] reads.
#[derive(Debug, Clone, Copy)]
pub struct EnabledInputs<'a> {
    /// The settings files, lowest precedence first ([`crate::read_layers`]).
    pub layers: &'a [SettingsLayer],
    /// Whether the project's own settings may turn plugins on.
    pub project_trusted: bool,
    /// Claude Code's config dir (`$CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub claude_dir: &'a Path,
    /// The project (project- and local-scope installs are per project).
    pub project_dir: &'a Path,
}

/// The installed and enabled plugins, in id order, and a warning for each
/// one left out.
pub fn enabled_plugins(inputs: &EnabledInputs) -> (Vec<Plugin>, Vec<String>) {
    let (enabled, mut warnings) = merged_enabled(inputs.layers, inputs.project_trusted);
    if !enabled.values().any(|on| *on) {
        return (Vec::new(), warnings);
    }
    let dir = PluginsDir::new(inputs.claude_dir);
    let installed = match InstalledPlugins::read(&dir) {
        Ok(installed) => installed,
        Err(e) => {
            warnings.push(format!("plugins not loaded: {e}"));
            return (Vec::new(), warnings);
        }
    };
    let mut markets = MarketCache::new(&dir);
    let mut plugins = Vec::new();
    for (id, _) in enabled.iter().filter(|(_, on)| **on) {
        let installs = installed
            .plugins
            .get(id)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let Some(install) = installs
            .iter()
            .find(|i| i.applies_in(inputs.project_dir))
            .or_else(|| installs.first())
        else {
            warnings.push(format!(
                "plugin {id} is enabled but not installed (`tack plugin install {id}`)"
            ));
            continue;
        };
        let entry = id
            .rsplit_once('@')
            .and_then(|(name, market)| markets.get(market)?.entry(name).cloned());
        match load_installed(id, install, entry.as_ref()) {
            Ok(plugin) => plugins.push(plugin),
            Err(e) => warnings.push(e),
        }
    }
    (plugins, warnings)
}

/// Marketplace files, each read once (a missing one is no entry: the
/// plugin's own manifest still loads).
struct MarketCache {
    known: Option<KnownMarketplaces>,
    read: BTreeMap<String, Option<Marketplace>>,
}

impl MarketCache {
    fn new(dir: &PluginsDir) -> MarketCache {
        MarketCache {
            known: KnownMarketplaces::read(dir).ok(),
            read: BTreeMap::new(),
        }
    }

    fn get(&mut self, name: &str) -> Option<&Marketplace> {
        let known = &self.known;
        self.read
            .entry(name.to_owned())
            .or_insert_with(|| {
                let location = &known.as_ref()?.get(name)?.install_location;
                Marketplace::load(location).ok()
            })
            .as_ref()
    }
}
