//! `tack mcp add | add-json | list | get | remove`, like `claude mcp`: each
//! function edits or reads the configuration and returns the text to print.
//! The CLI parses the flags into these arguments.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use tack_protocol::name::is_valid_name;

use crate::config::store::{StoreError, delete_server, put_server};
use crate::config::{
    ConfigScope, LoadOptions, McpConfig, McpConfigError, McpPaths, ProjectApprovals, RemoteConfig,
    ServerConfig, ServerEntry, StdioConfig, load_all_scopes, load_config,
};
use crate::manager::{McpManager, McpOptions, Status};

/// Why a command did nothing.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// Bad arguments: the message says which and what to write instead.
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Config(#[from] McpConfigError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// `tack mcp add [--transport stdio|http|sse] [-s scope] [-e K=V]... [--header "K: V"]... <name> <command-or-url> [args...]`
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddArgs {
    pub name: String,
    /// `stdio` (default), `http` or `sse`.
    pub transport: Option<String>,
    /// The command (stdio) or URL (http, sse).
    pub command_or_url: String,
    /// The command's arguments (stdio only).
    pub args: Vec<String>,
    /// `local` (default), `project` or `user`.
    pub scope: Option<String>,
    /// `-e KEY=VALUE` (stdio only).
    pub env: Vec<String>,
    /// `--header "Name: value"` (http and sse only).
    pub headers: Vec<String>,
}

/// `tack mcp add`.
pub fn mcp_add(paths: &McpPaths, args: &AddArgs) -> Result<String, CommandError> {
    check_name(&args.name)?;
    let scope = parse_scope(args.scope.as_deref())?;
    let transport = args.transport.as_deref().unwrap_or("stdio");
    let config = match transport {
        "stdio" => {
            if !args.headers.is_empty() {
                return Err(usage("--header is only for http and sse servers"));
            }
            ServerConfig::Stdio(StdioConfig {
                command: args.command_or_url.clone(),
                args: args.args.clone(),
                env: parse_pairs(&args.env, '=', "-e", "KEY=VALUE")?,
            })
        }
        "http" | "sse" => {
            if !args.env.is_empty() {
                return Err(usage(
                    "-e/--env is only for stdio servers; use --header for http and sse",
                ));
            }
            if !args.args.is_empty() {
                return Err(usage(&format!(
                    "an {transport} server takes a URL and no further arguments (got: {})",
                    args.args.join(" ")
                )));
            }
            let remote = RemoteConfig {
                url: args.command_or_url.clone(),
                headers: parse_pairs(&args.headers, ':', "--header", "Name: value")?,
            };
            if transport == "http" {
                ServerConfig::Http(remote)
            } else {
                ServerConfig::Sse(remote)
            }
        }
        other => {
            return Err(usage(&format!(
                "unknown transport `{other}`: use stdio, http or sse"
            )));
        }
    };
    if args.command_or_url.trim().is_empty() {
        return Err(usage(if transport == "stdio" {
            "missing the command to run"
        } else {
            "missing the server URL"
        }));
    }
    add(paths, &args.name, scope, &config)
}

/// `tack mcp add-json <name> '<json>' [-s scope]`.
pub fn mcp_add_json(
    paths: &McpPaths,
    name: &str,
    json: &str,
    scope: Option<&str>,
) -> Result<String, CommandError> {
    check_name(name)?;
    let scope = parse_scope(scope)?;
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| usage(&format!("invalid JSON: {e}")))?;
    let config = ServerConfig::from_json(&value)
        .map_err(|p| usage(&format!("invalid server configuration: {p}")))?;
    if let ServerConfig::Sdk { .. } = config {
        return Err(usage(
            "an \"sdk\" server lives in an Agent SDK program, which passes it to each session it starts; it cannot be stored",
        ));
    }
    add(paths, name, scope, &config)
}

fn add(
    paths: &McpPaths,
    name: &str,
    scope: ConfigScope,
    config: &ServerConfig,
) -> Result<String, CommandError> {
    let (entries, _) = load_all_scopes(paths)?;
    if entries.iter().any(|e| e.name == name && e.scope == scope) {
        return Err(usage(&format!(
            "MCP server {name} already exists in {scope} config"
        )));
    }
    let path = put_server(paths, scope, name, config)?;
    let what = match config {
        ServerConfig::Stdio(s) => format!(
            "Added stdio MCP server {name} with command: {} to {scope} config",
            command_line(s)
        ),
        ServerConfig::Http(r) => format!(
            "Added HTTP MCP server {name} with URL: {} to {scope} config",
            r.url
        ),
        ServerConfig::Sse(r) => format!(
            "Added SSE MCP server {name} with URL: {} to {scope} config",
            r.url
        ),
        ServerConfig::Sdk { .. } => format!("Added SDK MCP server {name} to {scope} config"),
    };
    let headers = match config {
        ServerConfig::Http(r) | ServerConfig::Sse(r) if !r.headers.is_empty() => format!(
            "\nHeaders: {}",
            serde_json::to_string_pretty(&r.headers).unwrap_or_default()
        ),
        ServerConfig::Stdio(_)
        | ServerConfig::Http(_)
        | ServerConfig::Sse(_)
        | ServerConfig::Sdk { .. } => String::new(),
    };
    Ok(format!(
        "{what}{headers}\nFile modified: {}",
        path.display()
    ))
}

/// What `list` and `get` need to check servers live.
#[derive(Clone, Copy)]
pub struct HealthCheck<'a> {
    pub approvals: &'a ProjectApprovals,
    /// Expands `${VAR}`s.
    pub lookup: &'a dyn Fn(&str) -> Option<String>,
    /// How long each server gets to connect.
    pub timeout: Duration,
    /// stdio servers' stderr logs.
    pub log_dir: &'a Path,
}

/// `tack mcp list`: every configured server with its live status.
pub async fn mcp_list(paths: &McpPaths, check: HealthCheck<'_>) -> Result<String, CommandError> {
    let config = load_config(
        paths,
        LoadOptions {
            mcp_config: &[],
            strict: false,
            approvals: check.approvals,
        },
    )?;
    if config.servers.is_empty() && config.not_started.is_empty() {
        return Ok("No MCP servers configured. Use `tack mcp add` to add a server.".into());
    }
    let statuses = check_health(&config, paths, check).await;
    let (entries, _) = load_all_scopes(paths)?;
    let mut out = String::from("Checking MCP server health...\n");
    for (name, status) in &statuses {
        let summary = config
            .servers
            .iter()
            .chain(entries.iter())
            .find(|e| &e.name == name)
            .map(|e| e.config.summary())
            .unwrap_or_default();
        // Names and commands come from files a repository wrote.
        let line = format!("{name}: {summary} - {}", status_label(*status));
        out.push('\n');
        out.push_str(&tack_sys::terminal_text::visible(&line));
    }
    Ok(out)
}

/// `tack mcp get <name>`: the effective entry of `name`, its scope and status.
pub async fn mcp_get(
    paths: &McpPaths,
    name: &str,
    check: HealthCheck<'_>,
) -> Result<String, CommandError> {
    let (entries, _) = load_all_scopes(paths)?;
    let Some(entry) = entries.iter().rev().find(|e| e.name == name) else {
        return Err(usage(&format!("No MCP server found with name: {name}")));
    };
    let config = McpConfig {
        servers: vec![entry.clone()],
        ..McpConfig::default()
    };
    let refused = (entry.scope == ConfigScope::Project)
        .then(|| check.approvals.refusal(name))
        .flatten();
    let status = match refused {
        Some(_) => Status::Disabled,
        None => check_health(&config, paths, check)
            .await
            .into_iter()
            .next()
            .map_or(Status::Failed, |(_, s)| s),
    };
    let mut out = format!(
        "{name}:\n  Scope: {}\n  Status: {}\n",
        entry.scope.describe(),
        status_label(status)
    );
    out.push_str(&describe(&entry.config));
    out.push_str(&format!(
        "\nTo remove this server, run: tack mcp remove \"{name}\" -s {}",
        entry.scope
    ));
    Ok(tack_sys::terminal_text::visible(&out).into_owned())
}

fn describe(config: &ServerConfig) -> String {
    let mut out = format!("  Type: {}\n", config.transport());
    match config {
        ServerConfig::Stdio(s) => {
            out.push_str(&format!(
                "  Command: {}\n  Args: {}\n",
                s.command,
                s.args.join(" ")
            ));
            if !s.env.is_empty() {
                out.push_str("  Environment:\n");
                for (k, v) in &s.env {
                    out.push_str(&format!("    {k}={v}\n"));
                }
            }
        }
        ServerConfig::Http(r) | ServerConfig::Sse(r) => {
            out.push_str(&format!("  URL: {}\n", r.url));
            if !r.headers.is_empty() {
                out.push_str("  Headers:\n");
                for (k, v) in &r.headers {
                    out.push_str(&format!("    {k}: {v}\n"));
                }
            }
        }
        ServerConfig::Sdk { .. } => out.push_str("  Served by the Agent SDK program\n"),
    }
    out
}

/// `tack mcp remove <name> [-s scope]`: the entry goes from every file of
/// its scope that has it, Claude Code's `.claude.json` and the `mcp.json` an
/// older tack wrote alike.
pub fn mcp_remove(
    paths: &McpPaths,
    name: &str,
    scope: Option<&str>,
) -> Result<String, CommandError> {
    let removed = |scope: ConfigScope, files: &[std::path::PathBuf]| {
        let mut out = format!("Removed MCP server \"{name}\" from {scope} config");
        for path in files {
            out.push_str(&format!("\nFile modified: {}", path.display()));
        }
        out
    };
    if let Some(scope) = scope {
        let scope = parse_scope(Some(scope))?;
        return match delete_server(paths, scope, name)?.as_slice() {
            [] => Err(usage(&format!(
                "No {scope}-scoped MCP server found with name: {name}"
            ))),
            files => Ok(removed(scope, files)),
        };
    }
    let (entries, _) = load_all_scopes(paths)?;
    let mut scopes: Vec<&ServerEntry> = Vec::new();
    for e in entries.iter().filter(|e| e.name == name) {
        if !scopes.iter().any(|s| s.scope == e.scope) {
            scopes.push(e);
        }
    }
    match scopes.as_slice() {
        [] => Err(usage(&format!("No MCP server found with name: \"{name}\""))),
        [only] => {
            let files = delete_server(paths, only.scope, name)?;
            Ok(removed(only.scope, &files))
        }
        several => {
            let mut message = format!("MCP server \"{name}\" exists in multiple scopes:\n");
            for e in several {
                message.push_str(&format!("  - {}: {}\n", e.scope, e.origin));
            }
            message.push_str("\nTo remove from a specific scope, use:\n");
            for e in several {
                message.push_str(&format!("  tack mcp remove \"{name}\" -s {}\n", e.scope));
            }
            Err(usage(message.trim_end()))
        }
    }
}

/// Connects to `config`'s servers (briefly) and returns each one's status.
async fn check_health(
    config: &McpConfig,
    paths: &McpPaths,
    check: HealthCheck<'_>,
) -> Vec<(String, Status)> {
    let mut options = McpOptions::new(paths.cwd.clone(), check.log_dir);
    options.startup_timeout = check.timeout;
    let manager = McpManager::connect(config, options, check.lookup).await;
    let statuses = manager
        .statuses()
        .into_iter()
        .map(|s| (s.name, s.status))
        .collect();
    manager.shutdown().await;
    statuses
}

fn status_label(status: Status) -> &'static str {
    match status {
        Status::Connected => "✓ Connected",
        Status::Failed => "✗ Failed to connect",
        Status::NeedsAuth => "⚠ Needs authentication",
        Status::Pending => "… Still connecting",
        Status::Disabled => "⚠ Not approved (see enabledMcpjsonServers)",
    }
}

fn command_line(s: &StdioConfig) -> String {
    std::iter::once(s.command.as_str())
        .chain(s.args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

fn usage(message: &str) -> CommandError {
    CommandError::Usage(message.to_string())
}

fn check_name(name: &str) -> Result<(), CommandError> {
    if is_valid_name(name) {
        Ok(())
    } else {
        Err(usage(&format!(
            "Invalid name {name}. Names can only contain letters, numbers, hyphens, and underscores."
        )))
    }
}

fn parse_scope(scope: Option<&str>) -> Result<ConfigScope, CommandError> {
    match scope {
        None => Ok(ConfigScope::Local),
        Some(s) => ConfigScope::parse(s).ok_or_else(|| {
            usage(&format!(
                "Invalid scope: {s}. Must be one of: local, user, project"
            ))
        }),
    }
}

/// `KEY=VALUE` / `Name: value` pairs.
fn parse_pairs(
    items: &[String],
    separator: char,
    flag: &str,
    form: &str,
) -> Result<BTreeMap<String, String>, CommandError> {
    items
        .iter()
        .map(|item| {
            let (k, v) = item
                .split_once(separator)
                .ok_or_else(|| usage(&format!("invalid {flag} value `{item}`: expected {form}")))?;
            let k = k.trim();
            if k.is_empty() {
                return Err(usage(&format!("invalid {flag} value `{item}`: empty name")));
            }
            let v = if separator == ':' { v.trim_start() } else { v };
            Ok((k.to_string(), v.to_string()))
        })
        .collect()
}
