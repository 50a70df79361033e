//! What a session's extensions look like to a front end: the plugins it
//! loaded or could not load (`system/init`'s `plugins` and `plugin_errors`)
//! and the slash commands a user message may start with (a menu's entries,
//! the SDK's `initialize` answer). Plain values: the runtime makes them, front
//! ends show them.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize, Serializer};

/// One loaded plugin, as `system/init`'s `plugins` lists it:
/// `{name, path, source, version?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginSummary {
    pub name: String,
    #[serde(serialize_with = "lossy_path")]
    pub path: PathBuf,
    /// `name@marketplace`, `name@inline` for a `--plugin-dir` one.
    pub source: String,
    /// The manifest's `version`, as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// A plugin (or a part of one) that did not load, as `system/init`'s
/// `plugin_errors` lists it: `{plugin, type, message, path?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginFailure {
    /// `name@inline`, or `inline[i]` for a `--plugin-dir` that failed before
    /// it had a name.
    pub plugin: String,
    /// Claude Code's open set: `path-not-found`, `manifest-validation-error`,
    /// `component-load-failed`, `hook-load-failed`, `mcp-config-invalid`.
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
    /// The `--plugin-dir` entry, when the plugin did not load at all.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "lossy_optional_path"
    )]
    pub path: Option<PathBuf>,
}

impl PluginFailure {
    /// The warning the user sees.
    pub fn warning(&self) -> String {
        format!("warning: plugin {}: {}", self.plugin, self.message)
    }
}

/// Where a slash command comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CommandSource {
    /// The runtime's own.
    Builtin,
    Project,
    User,
    /// A plugin's.
    Plugin,
}

/// One slash command a user message may start with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SlashCommand {
    /// Without the leading `/`.
    pub name: String,
    pub description: String,
    /// `""` when it takes no arguments.
    pub argument_hint: String,
    pub source: CommandSource,
}

/// A path as text, a part that is not UTF-8 replaced (a plugin folder's name
/// is outside input: writing a record must not fail on it).
fn lossy_path<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&path.to_string_lossy())
}

fn lossy_optional_path<S: Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
    match path {
        Some(path) => lossy_path(path, s),
        None => s.serialize_none(),
    }
}
