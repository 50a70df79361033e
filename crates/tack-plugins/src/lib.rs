//! Claude Code plugins: a directory with an optional `.claude-plugin/plugin.json`
//! and components in their default folders (`commands/`, `agents/`,
//! `skills/`, `hooks/hooks.json`, `.mcp.json`, `output-styles/`) or where
//! the manifest puts them.
//!
//! This crate reads plugins; it runs nothing. The runtime loads each
//! component kind with the loader it uses for the user's own (commands,
//! agents, skills, hooks, MCP servers), names them `plugin:name`, and applies
//! the same trust and permission rules.
//!
//! It also keeps marketplaces and installed plugins where and as Claude Code
//! keeps them, so a plugin installed by either tool works in both:
//! `<config dir>/plugins/known_marketplaces.json` ([`KnownMarketplaces`]),
//! `installed_plugins.json` ([`InstalledPlugins`]), `marketplaces/<name>/`
//! (clones) and `cache/<marketplace>/<plugin>/<version>/` (installs), with
//! `enabledPlugins` in the scope's settings file. [`enabled_plugins`] is what
//! a session loads. Repositories and marketplace files are hostile input:
//! `git` runs without hooks or `ext::` ([`git`]), paths stay inside their
//! folder, every JSON read is bounded.

mod auto_update;
mod context;
mod copy;
mod enabled;
mod error;
pub mod git;
mod install;
mod installed;
mod known;
mod layers;
mod manifest;
mod marketplace;
mod marketplaces;
mod plugin;
mod source;
mod store;
mod validate;

pub use auto_update::{AutoUpdated, auto_update};
pub use context::{Context, Fetch};
pub use enabled::{EnabledInputs, enabled_plugins};
pub use error::{InstallError, PluginError};
pub use install::{Installed, install, installed_id, set_enabled, uninstall, update};
pub use installed::{INSTALLED_FORMAT_VERSION, Install, InstallScope, InstalledPlugins};
pub use known::{KnownMarketplace, KnownMarketplaces};
pub use layers::{
    LayerLevel, SettingsLayer, extra_marketplaces, marketplace_allowed, marketplace_notes,
    merged_enabled, read_layers, set_setting,
};
pub use manifest::{Author, HooksField, McpField, PluginManifest, parse_manifest};
pub use marketplace::{MARKETPLACE_PATH, Marketplace, MarketplaceEntry, parse_marketplace};
pub use marketplaces::{
    AddedMarketplace, MarketplaceRow, add_marketplace, list_marketplaces, open_marketplace,
    remove_marketplace, update_marketplaces,
};
pub use plugin::{MANIFEST_PATH, Plugin, PluginSource, valid_plugin_name};
pub use source::{MarketplaceSource, PluginEntrySource, parse_marketplace_arg};
pub use store::PluginsDir;
pub use validate::{Validation, validate};
