//! Language servers as plugins declare them: the manifest's `lspServers` (an
//! object of servers, a `./`-relative path to a JSON file of them, or an
//! array of both) and the plugin's `.lsp.json`, in Claude Code's shape
//! (`docs/lsp.md`). Reading only: nothing here starts a process.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

/// Startup wait when `startupTimeout` is not given.
const DEFAULT_STARTUP: Duration = Duration::from_secs(30);
/// Shutdown wait when `shutdownTimeout` is not given.
const DEFAULT_SHUTDOWN: Duration = Duration::from_secs(5);
/// Restarts after a crash when `maxRestarts` is not given (Claude Code's).
const DEFAULT_MAX_RESTARTS: u32 = 3;

/// One server's configuration, as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerConfig {
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// `.ext` → language id; the extensions the server covers.
    pub extension_to_language: BTreeMap<String, String>,
    #[serde(default)]
    pub transport: Transport,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    pub initialization_options: Option<Value>,
    /// Sent with `workspace/didChangeConfiguration` once initialized.
    pub settings: Option<Value>,
    pub workspace_folder: Option<String>,
    /// Milliseconds.
    pub startup_timeout: Option<u64>,
    /// Milliseconds.
    pub shutdown_timeout: Option<u64>,
    pub restart_on_crash: Option<bool>,
    pub max_restarts: Option<u32>,
}

/// How tack talks to a server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    #[default]
    Stdio,
    /// Declared by Claude Code's schema, implemented by neither.
    Socket,
}

impl ServerConfig {
    pub fn startup_timeout(&self) -> Duration {
        self.startup_timeout
            .map_or(DEFAULT_STARTUP, Duration::from_millis)
    }

    pub fn shutdown_timeout(&self) -> Duration {
        self.shutdown_timeout
            .map_or(DEFAULT_SHUTDOWN, Duration::from_millis)
    }

    /// How many times a crashed server is started again.
    pub fn max_restarts(&self) -> u32 {
        match self.restart_on_crash {
            Some(false) => 0,
            _ => self.max_restarts.unwrap_or(DEFAULT_MAX_RESTARTS),
        }
    }

    /// The language id of `path`'s extension, if the server covers it.
    pub fn language_of(&self, path: &Path) -> Option<&str> {
        let ext = format!(".{}", path.extension()?.to_str()?).to_lowercase();
        self.extension_to_language
            .iter()
            .find(|(e, _)| e.to_lowercase() == ext)
            .map(|(_, lang)| lang.as_str())
    }
}

/// A server of a plugin, ready to start.
#[derive(Debug, Clone, PartialEq)]
pub struct LspServerSpec {
    /// `plugin:<plugin>:<server>`.
    pub name: String,
    pub config: ServerConfig,
}

/// The servers `plugin` (its folder `root`, its manifest's `lspServers`)
/// declares, and what could not be read, as warnings.
pub fn plugin_servers(
    plugin: &str,
    root: &Path,
    manifest: Option<&Value>,
) -> (Vec<LspServerSpec>, Vec<String>) {
    let mut found: BTreeMap<String, ServerConfig> = BTreeMap::new();
    let mut warnings = Vec::new();
    let default = root.join(".lsp.json");
    if default.is_file() {
        read_file(plugin, root, &default, &mut found, &mut warnings);
    }
    let items: Vec<&Value> = match manifest {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(v) => vec![v],
        None => Vec::new(),
    };
    for item in items {
        match item {
            Value::String(rel) => match inside(root, rel) {
                Some(path) if path != default => {
                    read_file(plugin, root, &path, &mut found, &mut warnings);
                }
                Some(_) => {}
                None => warnings.push(format!(
                    "plugin {plugin}: lspServers path {rel} must be relative and inside the plugin folder"
                )),
            },
            Value::Object(_) => add_servers(plugin, root, item, "plugin.json", &mut found, &mut warnings),
            other => warnings.push(format!(
                "plugin {plugin}: lspServers must be a path, an object of servers or an array of them, not {other}"
            )),
        }
    }
    let specs = found
        .into_iter()
        .map(|(server, config)| LspServerSpec {
            name: format!("plugin:{plugin}:{server}"),
            config,
        })
        .collect();
    (specs, warnings)
}

/// `rel` under `root`, or `None` when it is absolute or climbs out.
fn inside(root: &Path, rel: &str) -> Option<PathBuf> {
    let rel = Path::new(rel);
    let ok = rel
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    ok.then(|| root.join(rel))
}

fn read_file(
    plugin: &str,
    root: &Path,
    path: &Path,
    found: &mut BTreeMap<String, ServerConfig>,
    warnings: &mut Vec<String>,
) {
    let shown = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    let text = match tack_sys::read_config_file(path, tack_sys::MAX_CONFIG_BYTES) {
        Ok(text) => text,
        Err(e) => return warnings.push(format!("plugin {plugin}: {shown}: {e}")),
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(value) => add_servers(plugin, root, &value, &shown, found, warnings),
        Err(e) => warnings.push(format!("plugin {plugin}: {shown}: {e}")),
    }
}

fn add_servers(
    plugin: &str,
    root: &Path,
    value: &Value,
    source: &str,
    found: &mut BTreeMap<String, ServerConfig>,
    warnings: &mut Vec<String>,
) {
    let Some(servers) = value.as_object() else {
        return warnings.push(format!(
            "plugin {plugin}: {source}: expected an object of servers"
        ));
    };
    for (name, raw) in servers {
        match checked(raw, root) {
            Ok(config) => {
                found.insert(name.clone(), config);
            }
            Err(e) => warnings.push(format!("plugin {plugin}: {source}: LSP server {name}: {e}")),
        }
    }
}

/// `raw` parsed and checked as Claude Code checks it, `${CLAUDE_PLUGIN_ROOT}`
/// replaced and set in its environment.
fn checked(raw: &Value, root: &Path) -> Result<ServerConfig, String> {
    let mut config: ServerConfig =
        serde_json::from_value(raw.clone()).map_err(|e| e.to_string())?;
    if config.command.is_empty() {
        return Err("command must not be empty".into());
    }
    if config.command.contains(' ') && !config.command.starts_with('/') {
        return Err("Command should not contain spaces. Use args array for arguments.".into());
    }
    if config.extension_to_language.is_empty() {
        return Err("extensionToLanguage must have at least one mapping".into());
    }
    if config.transport == Transport::Socket {
        return Err("transport \"socket\" is not supported; use stdio".into());
    }
    let root_text = root.display().to_string();
    let fill = |s: &str| s.replace("${CLAUDE_PLUGIN_ROOT}", &root_text);
    config.command = fill(&config.command);
    config.args = config.args.iter().map(|a| fill(a)).collect();
    config.workspace_folder = config.workspace_folder.as_deref().map(fill);
    for value in config.env.values_mut() {
        *value = fill(value);
    }
    config
        .env
        .insert("CLAUDE_PLUGIN_ROOT".into(), root_text.clone());
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn manifest_and_lsp_json_servers_are_merged_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join(".lsp.json"),
            json!({"py": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/pylsp", "extensionToLanguage": {".py": "python"}, "startupTimeout": 500}})
                .to_string(),
        )
        .unwrap();
        let manifest = json!([
            {"bad": {"command": "run me", "extensionToLanguage": {".x": "x"}}},
            {"odd": {"command": "odd", "extensionToLanguage": {".o": "o"}, "colour": "red"}},
            "../outside.json"
        ]);
        let (specs, warnings) = plugin_servers("p", root, Some(&manifest));
        let root_text = root.display().to_string();
        let expected = ServerConfig {
            command: format!("{root_text}/bin/pylsp"),
            args: vec![],
            extension_to_language: BTreeMap::from([(".py".into(), "python".into())]),
            transport: Transport::Stdio,
            env: BTreeMap::from([("CLAUDE_PLUGIN_ROOT".into(), root_text.clone())]),
            initialization_options: None,
            settings: None,
            workspace_folder: None,
            startup_timeout: Some(500),
            shutdown_timeout: None,
            restart_on_crash: None,
            max_restarts: None,
        };
        assert_eq!(
            (specs, warnings),
            (
                vec![LspServerSpec {
                    name: "plugin:p:py".into(),
                    config: expected
                }],
                vec![
                    "plugin p: plugin.json: LSP server bad: Command should not contain spaces. Use args array for arguments.".to_owned(),
                    "plugin p: plugin.json: LSP server odd: unknown field `colour`, expected one of `command`, `args`, `extensionToLanguage`, `transport`, `env`, `initializationOptions`, `settings`, `workspaceFolder`, `startupTimeout`, `shutdownTimeout`, `restartOnCrash`, `maxRestarts`".to_owned(),
                    "plugin p: lspServers path ../outside.json must be relative and inside the plugin folder".to_owned(),
                ]
            )
        );
    }

    #[test]
    fn restart_on_crash_false_means_no_restarts() {
        let config: ServerConfig = serde_json::from_value(
            json!({"command": "x", "extensionToLanguage": {".PY": "python"}, "restartOnCrash": false, "maxRestarts": 5}),
        )
        .unwrap();
        assert_eq!(
            (
                config.max_restarts(),
                config.language_of(Path::new("/a/b.py"))
            ),
            (0, Some("python"))
        );
    }
}
