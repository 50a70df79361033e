//! A session's plugins ([`tack_plugins`]): which ones load, and each of their
//! components handed to the loader tack has for the user's own, namespaced
//! `plugin:name` as Claude Code names them:
//!
//! - commands (`commands/`): [`crate::custom_commands`], `/plugin:command`;
//! - agents (`agents/`): [`crate::agents`], `plugin:agent` in the Agent tool;
//! - skills (`skills/`): [`crate::skills`], `plugin:skill`;
//! - hooks (`hooks/hooks.json`, manifest `hooks`): checked with tack-hooks'
//!   `HooksConfig`, `${CLAUDE_PLUGIN_ROOT}` / `${CLAUDE_PLUGIN_DATA}` replaced
//!   and set in the hook's environment ([`PluginHooks`]; the session runs them);
//! - MCP servers (`.mcp.json`, manifest `mcpServers`): tack-mcp's
//!   [`ServerEntry`]s named `plugin:<plugin>:<server>` (tools
//!   `mcp__plugin_<plugin>_<server>__<tool>`);
//! - output styles (`output-styles/`): [`SessionPlugins::output_style_paths`]
//!   for [`crate::output_styles`], `plugin:style`.
//!
//! Where plugins come from: `--plugin-dir` ([`PluginDir`]; the SDKs' `plugins`
//! option) for one session; the installed, enabled plugins join the same list
//! ([`session_plugins`], [`installed_plugins`]). A plugin that cannot be read,
//! or a component of one, is a [`PluginFailure`] (a warning, and
//! `system/init`'s `plugin_errors`); the session goes on without it. No
//! plugin: nothing here reads anything.

mod installed;

use std::path::{Path, PathBuf};

use serde_json::Value;
use tack_mcp::{ConfigIssue, ConfigScope, ServerConfig, ServerEntry};
use tack_plugins::{HooksField, McpField, Plugin, PluginError, PluginSource};
use tack_protocol::extensions::{PluginFailure, PluginSummary};

pub use installed::{installed_plugins, plugin_layers};

/// A `--plugin-dir`: a plugin folder for one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginDir {
    /// Relative to the cwd.
    pub path: PathBuf,
    /// Its MCP servers start (not with `--plugin-dir-no-mcp`, the TypeScript
    /// SDK's `skipMcpDiscovery`).
    pub mcp: bool,
}

impl PluginDir {
    pub fn new(path: impl Into<PathBuf>) -> PluginDir {
        PluginDir {
            path: path.into(),
            mcp: true,
        }
    }

    pub fn without_mcp(self) -> PluginDir {
        PluginDir { mcp: false, ..self }
    }
}

/// A part of a loaded `plugin` that did not load.
fn component_failure(plugin: &Plugin, kind: &str, message: String) -> PluginFailure {
    PluginFailure {
        plugin: plugin.id(),
        kind: kind.to_owned(),
        message,
        path: None,
    }
}

/// One plugin's folders (or files) of one component kind, with the
/// namespace its components are named with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginPaths {
    pub plugin: String,
    pub paths: Vec<PathBuf>,
}

/// One hooks configuration of a plugin, its placeholders replaced.
#[derive(Debug, Clone, PartialEq)]
pub struct PluginHooks {
    /// Names it in messages: `plugin <id> (<file>)`.
    pub source: String,
    /// The events object (`{"SessionStart": [...]}`).
    pub hooks: Value,
    /// `CLAUDE_PLUGIN_ROOT`, `CLAUDE_PLUGIN_DATA`.
    pub env: Vec<(String, String)>,
}

/// One of [`Plugin`]'s component path lists (`Plugin::command_paths`, ...).
type ComponentPaths = fn(&Plugin) -> Result<Vec<PathBuf>, PluginError>;

/// A session's plugins and their components, read once at start.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionPlugins {
    pub plugins: Vec<Plugin>,
    pub failures: Vec<PluginFailure>,
    pub commands: Vec<PluginPaths>,
    pub agents: Vec<PluginPaths>,
    pub skills: Vec<PluginPaths>,
    pub hooks: Vec<PluginHooks>,
    pub mcp_servers: Vec<ServerEntry>,
    pub mcp_issues: Vec<ConfigIssue>,
}

/// The session's plugins: each `--plugin-dir` (relative to `cwd`; without
/// its MCP servers when `--plugin-dir-no-mcp`), then
/// `installed` (the enabled installed plugins, already read). A second plugin
/// of a name is a failure. `claude_dir` holds `plugins/data/`
/// (`${CLAUDE_PLUGIN_DATA}`).
pub fn session_plugins(
    dirs: &[PluginDir],
    installed: Vec<Plugin>,
    cwd: &Path,
    claude_dir: Option<&Path>,
) -> SessionPlugins {
    let mut out = SessionPlugins::default();
    if dirs.is_empty() && installed.is_empty() {
        return out;
    }
    let mut candidates: Vec<(Plugin, bool)> = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        let root = cwd.join(&dir.path);
        let failure = |kind: &str, message: String| PluginFailure {
            plugin: format!("inline[{i}]"),
            kind: kind.to_owned(),
            message,
            path: Some(root.clone()),
        };
        if !root.is_dir() {
            let message = format!("{} is not a folder", root.display());
            out.failures.push(failure("path-not-found", message));
            continue;
        }
        match Plugin::load(&root, PluginSource::Dir) {
            Ok(plugin) => candidates.push((plugin, dir.mcp)),
            Err(e) => out
                .failures
                .push(failure("manifest-validation-error", e.to_string())),
        }
    }
    candidates.extend(installed.into_iter().map(|p| (p, true)));
    for (plugin, mcp) in candidates {
        if out.plugins.iter().any(|p| p.name == plugin.name) {
            out.failures.push(PluginFailure {
                plugin: plugin.id(),
                kind: "manifest-validation-error".to_owned(),
                message: format!(
                    "another plugin named `{}` is loaded already; {} skipped",
                    plugin.name,
                    plugin.root.display()
                ),
                path: Some(plugin.root.clone()),
            });
            continue;
        }
        out.add(plugin, claude_dir, mcp);
    }
    out
}

impl SessionPlugins {
    /// The plugins loaded, as `system/init` lists them.
    pub fn summaries(&self) -> Vec<PluginSummary> {
        self.plugins
            .iter()
            .map(|p| PluginSummary {
                name: p.name.clone(),
                path: p.root.clone(),
                source: p.id(),
                version: p.manifest.version.clone(),
            })
            .collect()
    }

    /// Each plugin's output style files and folders, for the output styles'
    /// loader; a path that cannot be used is left out (it is
    /// reported by `tack plugin validate`).
    pub fn output_style_paths(&self) -> Vec<PluginPaths> {
        self.plugins
            .iter()
            .filter_map(|p| {
                let paths = p.output_style_paths().ok()?;
                (!paths.is_empty()).then(|| PluginPaths {
                    plugin: p.name.clone(),
                    paths,
                })
            })
            .collect()
    }

    /// Reads `plugin`'s components; a component that cannot be used is a
    /// failure, the others load.
    fn add(&mut self, plugin: Plugin, claude_dir: Option<&Path>, mcp: bool) {
        let kinds: [(_, ComponentPaths); 3] = [
            (&mut self.commands, Plugin::command_paths),
            (&mut self.agents, Plugin::agent_paths),
            (&mut self.skills, Plugin::skill_paths),
        ];
        for (list, paths) in kinds {
            match paths(&plugin) {
                Ok(paths) if paths.is_empty() => {}
                Ok(paths) => list.push(PluginPaths {
                    plugin: plugin.name.clone(),
                    paths,
                }),
                Err(e) => self.failures.push(component_failure(
                    &plugin,
                    "component-load-failed",
                    e.to_string(),
                )),
            }
        }
        let root = plugin.root.to_string_lossy().into_owned();
        let data = claude_dir
            .map(|d| plugin.data_dir(d))
            .unwrap_or_else(|| plugin.root.join(".data"))
            .to_string_lossy()
            .into_owned();
        self.add_hooks(&plugin, &root, &data);
        if mcp {
            self.add_mcp(&plugin, &root, &data);
        }
        self.plugins.push(plugin);
    }

    fn add_hooks(&mut self, plugin: &Plugin, root: &str, data: &str) {
        let fields = match plugin.hooks() {
            Ok(fields) => fields,
            Err(e) => {
                let failure = component_failure(plugin, "hook-load-failed", e.to_string());
                self.failures.push(failure);
                return;
            }
        };
        if fields.is_empty() {
            return;
        }
        let env = vec![
            ("CLAUDE_PLUGIN_ROOT".to_owned(), root.to_owned()),
            ("CLAUDE_PLUGIN_DATA".to_owned(), data.to_owned()),
        ];
        for field in fields {
            let read = match &field {
                HooksField::Path(rel) => read_json(plugin, rel),
                HooksField::Inline(value) => Ok((value.clone(), "plugin.json".to_owned())),
            };
            let checked = read.and_then(|(mut value, file)| {
                substitute(&mut value, root, data);
                // hooks.json: `{"description"?, "hooks": {...}}`; inline: either.
                let hooks = match value.get_mut("hooks") {
                    Some(inner) => inner.take(),
                    None => value,
                };
                let source = format!("plugin {} ({file})", plugin.id());
                tack_hooks::HooksConfig::from_value(&source, &hooks)
                    .map(|_| (source, hooks))
                    .map_err(|e| e.to_string())
            });
            match checked {
                Ok((source, hooks)) => self.hooks.push(PluginHooks {
                    source,
                    hooks,
                    env: env.clone(),
                }),
                Err(message) => {
                    self.failures
                        .push(component_failure(plugin, "hook-load-failed", message))
                }
            }
        }
    }

    fn add_mcp(&mut self, plugin: &Plugin, root: &str, data: &str) {
        let fields = match plugin.mcp_servers() {
            Ok(fields) => fields,
            Err(e) => {
                let failure = component_failure(plugin, "mcp-config-invalid", e.to_string());
                self.failures.push(failure);
                return;
            }
        };
        for field in fields {
            let read = match &field {
                McpField::Path(rel) => read_json(plugin, rel),
                McpField::Inline(value) => Ok((value.clone(), "plugin.json".to_owned())),
            };
            let (mut doc, file) = match read {
                Ok(read) => read,
                Err(message) => {
                    let failure = component_failure(plugin, "mcp-config-invalid", message);
                    self.failures.push(failure);
                    continue;
                }
            };
            substitute(&mut doc, root, data);
            // `{"mcpServers": {...}}`, or the servers object itself.
            let servers = match doc.get_mut("mcpServers") {
                Some(inner) => inner.take(),
                None => doc,
            };
            let Value::Object(servers) = servers else {
                let message = format!("{file}: `mcpServers` must be an object");
                let failure = component_failure(plugin, "mcp-config-invalid", message);
                self.failures.push(failure);
                continue;
            };
            let origin = plugin.root.join(&file).display().to_string();
            for (name, value) in servers {
                let name = format!("plugin:{}:{name}", plugin.name);
                match ServerConfig::from_json(&value) {
                    Ok(config) => self.mcp_servers.push(ServerEntry {
                        name,
                        scope: ConfigScope::Plugin,
                        origin: origin.clone(),
                        config,
                        tool_timeout: tack_mcp::tool_timeout(&value),
                    }),
                    Err(problem) => self.mcp_issues.push(ConfigIssue {
                        server: name,
                        origin: origin.clone(),
                        kind: problem.kind,
                        message: problem.message,
                    }),
                }
            }
        }
    }
}

/// A plugin's JSON file (`./`-relative), bounded as every configuration
/// file; with its path for messages.
fn read_json(plugin: &Plugin, relative: &str) -> Result<(Value, String), String> {
    let path = plugin.resolve(relative).map_err(|e| e.to_string())?;
    let text = tack_sys::read_config_file(&path, tack_sys::MAX_CONFIG_BYTES)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not valid JSON: {e}", path.display()))?;
    Ok((value, relative.trim_start_matches("./").to_owned()))
}

/// `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` replaced in every
/// string of `value`.
fn substitute(value: &mut Value, root: &str, data: &str) {
    match value {
        Value::String(s) => {
            if s.contains("${CLAUDE_PLUGIN_") {
                *s = s
                    .replace("${CLAUDE_PLUGIN_ROOT}", root)
                    .replace("${CLAUDE_PLUGIN_DATA}", data);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| substitute(v, root, data)),
        Value::Object(map) => map.values_mut().for_each(|v| substitute(v, root, data)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn placeholders_are_replaced_in_every_string() {
        let mut v = serde_json::json!({
            "a": ["${CLAUDE_PLUGIN_ROOT}/run.sh", 3],
            "b": {"c": "${CLAUDE_PLUGIN_DATA}/x ${CLAUDE_PLUGIN_ROOT}"}
        });
        substitute(&mut v, "/p", "/d");
        assert_eq!(
            v,
            serde_json::json!({"a": ["/p/run.sh", 3], "b": {"c": "/d/x /p"}})
        );
    }
}
