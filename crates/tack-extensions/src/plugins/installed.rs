//! The installed plugins a session's settings enable, as `tack plugin` (and
//! Claude Code) keep them, and the settings layers their keys are read from.

use std::path::PathBuf;

use tack_config::{Locations, Scope, Settings};
use tack_plugins::{LayerLevel, Plugin, SettingsLayer};

/// The installed plugins `settings` enable; nothing is read unless a
/// settings file names `enabledPlugins` or `extraKnownMarketplaces`. A
/// project's enabling counts once it is trusted (`locations`'
/// `workspace_trusted`; else one warning a plugin); the marketplaces settings
/// name are reported, not added (invariant 24). Also the warnings, each a
/// `warning: ...` line.
pub fn installed_plugins(locations: &Locations, settings: &Settings) -> (Vec<Plugin>, Vec<String>) {
    let Some(claude_dir) = locations.claude_user_dir.as_deref() else {
        return (Vec::new(), Vec::new());
    };
    let keys = settings.unknown_keys();
    let (enables, declares) = (
        keys.contains_key("enabledPlugins"),
        keys.contains_key("extraKnownMarketplaces"),
    );
    if !enables && !declares {
        return (Vec::new(), Vec::new());
    }
    let trusted = locations.workspace_trusted;
    let (layers, mut warnings) = plugin_layers(locations);
    if declares {
        let dir = tack_plugins::PluginsDir::new(claude_dir);
        let known = tack_plugins::KnownMarketplaces::read(&dir).unwrap_or_default();
        let added = |name: &str| known.get(name).is_some();
        warnings.extend(tack_plugins::marketplace_notes(&layers, trusted, added));
    }
    let mut plugins = Vec::new();
    if enables {
        let (enabled, more) = tack_plugins::enabled_plugins(&tack_plugins::EnabledInputs {
            layers: &layers,
            project_trusted: trusted,
            claude_dir,
            project_dir: &locations.project_dir,
        });
        plugins = enabled;
        warnings.extend(more);
    }
    let warnings = warnings
        .into_iter()
        .map(|w| format!("warning: {w}"))
        .collect();
    (plugins, warnings)
}

/// Every settings file, read for its plugin keys (`enabledPlugins`,
/// `extraKnownMarketplaces`, ...), lowest precedence first; a file that
/// cannot be read is a warning.
pub fn plugin_layers(locations: &Locations) -> (Vec<SettingsLayer>, Vec<String>) {
    let files: Vec<(LayerLevel, PathBuf)> = locations
        .files()
        .into_iter()
        .filter_map(|source| {
            let level = match source.scope() {
                Scope::User => LayerLevel::User,
                Scope::Project => LayerLevel::Project,
                Scope::Local => LayerLevel::Local,
                Scope::Flag => LayerLevel::Flag,
            };
            Some((level, source.file_path()?.to_path_buf()))
        })
        .collect();
    tack_plugins::read_layers(&files)
}
