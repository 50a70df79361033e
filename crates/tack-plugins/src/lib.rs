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
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - plugin manifests (`.claude-plugin/plugin.json`) and a plugin's component paths, kept
//!   inside its folder: `tack-plugins/src/{manifest,plugin}.rs`
//! - marketplaces and installed plugins where Claude Code keeps them
//!   (`$CLAUDE_CONFIG_DIR/plugins/`: `known_marketplaces.json`, `installed_plugins.json` v2,
//!   `marketplaces/<name>/`, `cache/<marketplace>/<plugin>/<version>/`): sources,
//!   `marketplace.json` (`strict`, entry components), add/update/remove,
//!   install/uninstall/enable/disable/update, `validate`, the reserved names (one check for
//!   `add` and `validate`), the hostile-repo `git` runner and copier:
//!   `tack-plugins/src/{source,marketplace,marketplaces,reserved,known,installed,install,validate,git,copy,store}.rs`
//! - what the added marketplaces offer, installed or not (`list --available`, `details`,
//!   `/plugin`): `tack-plugins/src/catalog.rs`
//! - settings layers for plugins (`enabledPlugins`, `extraKnownMarketplaces`,
//!   `strictKnownMarketplaces`; writes keep other keys) and `enabled_plugins` (what a session
//!   loads; broken ones are warnings): `tack-plugins/src/{layers,enabled}.rs`
//! - marketplace `autoUpdate` (Claude Code's switch in `known_marketplaces.json`, or on an
//!   `extraKnownMarketplaces` entry): refreshed and their installed plugins made again at the
//!   current version, under the plugins folder's lock, on a thread a terminal UI session spawns
//!   after reading its settings (never on the start-up path; never in a `-p`, SDK or `tack
//!   batch` session, which runs no `git` at its start; `DISABLE_AUTOUPDATER` turns it off; URL
//!   marketplaces are left to `tack plugin marketplace update`); each update a notice, loaded
//!   by the next session: `tack-plugins/src/auto_update.rs`, `tack-runtime/src/extensions.rs`
//!   `spawn_auto_update`

mod auto_update;
mod catalog;
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
mod reserved;
mod source;
mod store;
mod validate;

pub use auto_update::{AutoUpdated, auto_update};
pub use catalog::{KnownPlugin, Offered, available_plugins, find_plugin};
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
pub use plugin::{DefaultPlace, MANIFEST_PATH, Plugin, PluginSource, valid_plugin_name};
pub use reserved::{RESERVED_NAMES, check_marketplace_name};
pub use source::{MarketplaceSource, PluginEntrySource, parse_marketplace_arg};
pub use store::PluginsDir;
pub use validate::{Validation, validate};
