//! The files servers are read from, and the errors reading them.
//!
//! | scope | file | where in the file |
//! |---|---|---|
//! | user | `~/.claude.json` (then `<tack config dir>/mcp.json`) | `mcpServers` |
//! | local | `~/.claude.json` (then `<tack config dir>/mcp.json`) | `projects["<abs project dir>"].mcpServers` |
//! | project | `<project>/.mcp.json` | `mcpServers` |
//! | dynamic | each `--mcp-config` file or JSON string | `mcpServers` |
//!
//! `tack mcp add` writes where `claude mcp add` does: Claude Code's
//! `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json`), whose top-level
//! `mcpServers` is the user scope and `projects[path].mcpServers` the local
//! scope, so each tool lists the other's servers. tack's own `mcp.json`,
//! which older tacks wrote in the same layout, is still read (above
//! `.claude.json` at the same scope) and `tack mcp remove` edits it too.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tack_protocol::json_kind::kind_of;
use tack_sys::config_file::{is_missing, read_config_file};

use super::server::{IssueKind, ServerConfig};

/// Where a server entry comes from. The derived order is the precedence: an
/// entry of a later scope replaces one of the same name from an earlier scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConfigScope {
    /// A plugin's `.mcp.json` or manifest `mcpServers` (named
    /// `plugin:<plugin>:<server>`, so no other scope's name meets them).
    Plugin,
    /// All projects of this user.
    User,
    /// `.mcp.json`, shared with the project (needs approval).
    Project,
    /// This user, this project only.
    Local,
    /// `--mcp-config`.
    Dynamic,
}

impl ConfigScope {
    /// `user`, `project`, `local` or `dynamic`.
    pub fn as_str(self) -> &'static str {
        match self {
            ConfigScope::User => "user",
            ConfigScope::Project => "project",
            ConfigScope::Local => "local",
            ConfigScope::Dynamic => "dynamic",
            ConfigScope::Plugin => "plugin",
        }
    }

    /// The scope of `--scope`/`-s`: `local`, `project` or `user`.
    pub fn parse(text: &str) -> Option<ConfigScope> {
        match text {
            "local" => Some(ConfigScope::Local),
            "project" => Some(ConfigScope::Project),
            "user" => Some(ConfigScope::User),
            _ => None,
        }
    }

    /// How `claude mcp get` names the scope.
    pub fn describe(self) -> &'static str {
        match self {
            ConfigScope::User => "User config (available in all your projects)",
            ConfigScope::Project => "Project config (shared via .mcp.json)",
            ConfigScope::Local => "Local config (private to you in this project)",
            ConfigScope::Dynamic => "Dynamic config (from command line)",
            ConfigScope::Plugin => "Plugin config (from a plugin)",
        }
    }
}

impl fmt::Display for ConfigScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerEntry {
    /// The name in `mcpServers` (tool names use its normalised form).
    pub name: String,
    pub scope: ConfigScope,
    /// The file it was read from, or `--mcp-config argument N` for inline JSON.
    pub origin: String,
    /// As written: `${VAR}`s are expanded when the server starts.
    pub config: ServerConfig,
    /// The entry's `timeout` ([`super::tool_timeout`]): its tool calls fail
    /// after this instead of `MCP_TOOL_TIMEOUT`.
    pub tool_timeout: Option<std::time::Duration>,
}

/// An entry that was skipped, reported beside the servers that start (the
/// init record's `mcp_server_errors`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigIssue {
    pub server: String,
    pub origin: String,
    pub kind: IssueKind,
    pub message: String,
}

impl fmt::Display for ConfigIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: MCP server \"{}\": {}",
            self.origin, self.server, self.message
        )
    }
}

/// A configuration file that cannot be used at all.
#[derive(Debug, thiserror::Error)]
pub enum McpConfigError {
    #[error("cannot read MCP config {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("invalid MCP config {origin}: {message} at line {line} column {column}")]
    Syntax {
        origin: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("invalid MCP config {origin}: {message}")]
    Shape { origin: String, message: String },
}

/// The servers of one file or JSON string.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub(crate) servers: Vec<ServerEntry>,
    pub(crate) issues: Vec<ConfigIssue>,
}

/// Parses JSON text, naming `origin` in errors.
pub(crate) fn parse_json(text: &str, origin: &str) -> Result<Value, McpConfigError> {
    serde_json::from_str(text).map_err(|e| McpConfigError::Syntax {
        origin: origin.to_string(),
        line: e.line(),
        column: e.column(),
        message: tack_config::json_object_file::without_position(&e.to_string()),
    })
}

/// Reads `{"mcpServers": {...}}` (`.mcp.json`, `--mcp-config`).
pub(crate) fn parse_mcp_document(
    doc: &Value,
    scope: ConfigScope,
    origin: &str,
) -> Result<Parsed, McpConfigError> {
    let shape = |message: String| McpConfigError::Shape {
        origin: origin.to_string(),
        message,
    };
    let Some(obj) = doc.as_object() else {
        return Err(shape(format!(
            "expected an object with `mcpServers`, found {}",
            kind_of(doc)
        )));
    };
    let Some(servers) = obj.get("mcpServers") else {
        return Err(shape("missing `mcpServers`".into()));
    };
    parse_servers(servers, scope, origin).map_err(shape)
}

/// Reads an `mcpServers` object; `Err` when it is not an object.
pub(crate) fn parse_servers(
    servers: &Value,
    scope: ConfigScope,
    origin: &str,
) -> Result<Parsed, String> {
    let Some(map) = servers.as_object() else {
        return Err(format!(
            "`mcpServers` must be an object, found {}",
            kind_of(servers)
        ));
    };
    let mut parsed = Parsed::default();
    for (name, value) in map {
        if name.trim().is_empty() {
            parsed.issues.push(ConfigIssue {
                server: name.clone(),
                origin: origin.to_string(),
                kind: IssueKind::InvalidConfig,
                message: "a server needs a non-empty name".into(),
            });
            continue;
        }
        match ServerConfig::from_json(value) {
            Ok(config) => parsed.servers.push(ServerEntry {
                name: name.clone(),
                scope,
                origin: origin.to_string(),
                config,
                tool_timeout: super::tool_timeout(value),
            }),
            Err(problem) => parsed.issues.push(ConfigIssue {
                server: name.clone(),
                origin: origin.to_string(),
                kind: problem.kind,
                message: problem.message,
            }),
        }
    }
    Ok(parsed)
}

/// `~/.claude.json` also keeps Claude Code's per-project history, so it is
/// allowed to be larger than other configuration files.
pub(crate) const MAX_USER_FILE_BYTES: u64 = tack_config::json_object_file::MAX_STATE_FILE_BYTES;

/// Reads the user and local scopes from a file with `~/.claude.json`'s layout.
/// A missing file has no servers.
pub(crate) fn parse_user_file(path: &Path, project_dir: &Path) -> Result<Parsed, McpConfigError> {
    let text = match read_config_file(path, MAX_USER_FILE_BYTES) {
        Ok(text) => text,
        Err(e) if is_missing(&e) => return Ok(Parsed::default()),
        Err(source) => {
            return Err(McpConfigError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let origin = path.display().to_string();
    let doc = parse_json(&text, &origin)?;
    let shape = |message: String| McpConfigError::Shape {
        origin: origin.clone(),
        message,
    };
    let Some(obj) = doc.as_object() else {
        return Err(shape(format!(
            "expected an object, found {}",
            kind_of(&doc)
        )));
    };
    let mut parsed = Parsed::default();
    if let Some(servers) = obj.get("mcpServers") {
        let user = parse_servers(servers, ConfigScope::User, &origin).map_err(shape)?;
        parsed.servers.extend(user.servers);
        parsed.issues.extend(user.issues);
    }
    let project_key = project_dir.to_string_lossy();
    if let Some(servers) = obj
        .get("projects")
        .and_then(|p| p.get(project_key.as_ref()))
        .and_then(|p| p.get("mcpServers"))
    {
        let local = parse_servers(servers, ConfigScope::Local, &origin)
            .map_err(|m| shape(format!("projects[\"{project_key}\"]: {m}")))?;
        parsed.servers.extend(local.servers);
        parsed.issues.extend(local.issues);
    }
    Ok(parsed)
}
