//! Which servers a session starts: every scope read, merged by name (local >
//! project > user; `--mcp-config` above all), project servers filtered by the
//! approval settings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tack_sys::config_file::{MAX_CONFIG_BYTES, is_missing, read_config_file};

use super::file::{
    ConfigIssue, ConfigScope, McpConfigError, Parsed, ServerEntry, parse_json, parse_mcp_document,
    parse_user_file,
};

/// Where MCP configuration lives; the caller passes every directory in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpPaths {
    /// Relative `--mcp-config` paths resolve against it.
    pub cwd: PathBuf,
    /// `<project>/.mcp.json`; also the key of the local scope.
    pub project_dir: PathBuf,
    /// The user/local file older tacks wrote, `<tack config dir>/mcp.json`:
    /// still read (above Claude Code's file at the same scope) so no server
    /// is lost, and `tack mcp remove` takes entries out of it; never added to.
    pub tack_file: Option<PathBuf>,
    /// Claude Code's `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json`):
    /// the user and local scopes, read and written by `tack mcp add/remove`
    /// as `claude mcp` does.
    pub claude_file: Option<PathBuf>,
}

impl McpPaths {
    /// `<tack_user_dir>/mcp.json` and Claude Code's `.claude.json`: in `$HOME`,
    /// or in `$CLAUDE_CONFIG_DIR` when that is set (recognised by
    /// `claude_user_dir` not being `~/.claude`).
    pub fn new(
        cwd: &Path,
        project_dir: &Path,
        home_dir: Option<&Path>,
        tack_user_dir: Option<&Path>,
        claude_user_dir: Option<&Path>,
    ) -> McpPaths {
        let claude_file = match (home_dir, claude_user_dir) {
            (Some(home), Some(dir)) if dir == home.join(".claude") => {
                Some(home.join(".claude.json"))
            }
            (_, Some(dir)) => Some(dir.join(".claude.json")),
            (Some(home), None) => Some(home.join(".claude.json")),
            (None, None) => None,
        };
        McpPaths {
            cwd: cwd.to_path_buf(),
            project_dir: project_dir.to_path_buf(),
            tack_file: tack_user_dir.map(|d| d.join("mcp.json")),
            claude_file,
        }
    }

    /// From tack-config's locations (the same directories settings use).
    pub fn from_locations(locations: &tack_config::Locations) -> McpPaths {
        McpPaths::new(
            &locations.cwd,
            &locations.project_dir,
            locations.home_dir.as_deref(),
            locations.tack_user_dir.as_deref(),
            locations.claude_user_dir.as_deref(),
        )
    }

    /// `<project>/.mcp.json`.
    pub fn project_file(&self) -> PathBuf {
        self.project_dir.join(".mcp.json")
    }
}

/// The `.mcp.json` approval settings (`enableAllProjectMcpServers`,
/// `enabledMcpjsonServers`, `disabledMcpjsonServers`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectApprovals {
    pub enable_all: bool,
    pub enabled: Vec<String>,
    pub disabled: Vec<String>,
}

impl ProjectApprovals {
    /// From merged settings.
    pub fn from_settings(settings: &tack_config::Settings) -> ProjectApprovals {
        ProjectApprovals {
            enable_all: settings.enable_all_project_mcp_servers(),
            enabled: settings.enabled_mcpjson_servers().to_vec(),
            disabled: settings.disabled_mcpjson_servers().to_vec(),
        }
    }

    /// `None` when the project server may start. A disabled server stays off
    /// even when all project servers are enabled.
    pub fn refusal(&self, name: &str) -> Option<NotStartedReason> {
        if self.disabled.iter().any(|n| n == name) {
            Some(NotStartedReason::Disabled)
        } else if self.enable_all || self.enabled.iter().any(|n| n == name) {
            None
        } else {
            Some(NotStartedReason::NeedsApproval)
        }
    }
}

/// Why a configured server is not started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotStartedReason {
    /// A `.mcp.json` server not listed in `enabledMcpjsonServers` (and
    /// `enableAllProjectMcpServers` is not set).
    NeedsApproval,
    /// Listed in `disabledMcpjsonServers`.
    Disabled,
}

/// A configured server that is not started, for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotStarted {
    pub name: String,
    pub origin: String,
    /// `stdio`, `http` or `sse`.
    pub transport: &'static str,
    pub reason: NotStartedReason,
}

impl NotStarted {
    /// What to tell the user.
    pub fn message(&self) -> String {
        let NotStarted { name, origin, .. } = self;
        match self.reason {
            NotStartedReason::NeedsApproval => format!(
                "project MCP server \"{name}\" ({origin}) is not approved: add it to \"enabledMcpjsonServers\" or set \"enableAllProjectMcpServers\": true in your settings"
            ),
            NotStartedReason::Disabled => format!(
                "project MCP server \"{name}\" ({origin}) is disabled by \"disabledMcpjsonServers\""
            ),
        }
    }
}

/// What `--mcp-config` and `--strict-mcp-config` say.
#[derive(Debug, Clone, Copy)]
pub struct LoadOptions<'a> {
    /// Each value: a JSON object, or the path of a file holding one.
    pub mcp_config: &'a [String],
    /// Only the `--mcp-config` servers.
    pub strict: bool,
    pub approvals: &'a ProjectApprovals,
}

/// The servers of a session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpConfig {
    /// One entry per name (the highest scope's), sorted by name.
    pub servers: Vec<ServerEntry>,
    /// Project servers left off by the approval settings.
    pub not_started: Vec<NotStarted>,
    /// Entries that could not be read (bad type, missing command, ...).
    pub issues: Vec<ConfigIssue>,
    /// Problems with Claude Code's `~/.claude.json` (its servers are then
    /// skipped, the session goes on).
    pub warnings: Vec<String>,
}

/// Reads every scope. A file of tack's, `.mcp.json` or a `--mcp-config` value
/// that cannot be read or parsed is an error naming it; a bad entry inside a
/// good file is only reported ([`McpConfig::issues`]).
pub fn load_config(
    paths: &McpPaths,
    options: LoadOptions<'_>,
) -> Result<McpConfig, McpConfigError> {
    let mut config = McpConfig::default();
    let mut entries: Vec<ServerEntry> = Vec::new();
    let mut add = |parsed: Parsed, config: &mut McpConfig| {
        entries.extend(parsed.servers);
        config.issues.extend(parsed.issues);
    };
    if !options.strict {
        for parsed in read_scoped_files(paths, &mut config.warnings)? {
            add(parsed, &mut config);
        }
    }
    for (i, value) in options.mcp_config.iter().enumerate() {
        add(read_dynamic(value, i + 1, &paths.cwd)?, &mut config);
    }

    // Unapproved project servers drop out before the merge, so that a user or
    // local entry of the same name still starts.
    let mut refused = Vec::new();
    entries.retain(|e| {
        let refusal = (e.scope == ConfigScope::Project)
            .then(|| options.approvals.refusal(&e.name))
            .flatten();
        if let Some(reason) = refusal {
            refused.push(NotStarted {
                name: e.name.clone(),
                origin: e.origin.clone(),
                transport: e.config.transport(),
                reason,
            });
        }
        refusal.is_none()
    });
    // Later scopes win; within a scope the later source (tack's file after
    // Claude Code's) wins. The sort is stable, so source order is kept.
    entries.sort_by_key(|e| e.scope);
    let mut by_name: BTreeMap<String, ServerEntry> = BTreeMap::new();
    for entry in entries {
        by_name.insert(entry.name.clone(), entry);
    }
    refused.retain(|r| !by_name.contains_key(&r.name));
    config.not_started = refused;
    config.servers = by_name.into_values().collect();
    Ok(config)
}

/// Every entry of the user, project and local scopes, shadowed ones included,
/// in precedence order (for `tack mcp get/remove/list`).
pub fn load_all_scopes(
    paths: &McpPaths,
) -> Result<(Vec<ServerEntry>, Vec<String>), McpConfigError> {
    let mut warnings = Vec::new();
    let mut entries: Vec<ServerEntry> = read_scoped_files(paths, &mut warnings)?
        .into_iter()
        .flat_map(|p| p.servers)
        .collect();
    entries.sort_by_key(|e| e.scope);
    Ok((entries, warnings))
}

/// Claude Code's file, tack's file, `.mcp.json`, in that order.
fn read_scoped_files(
    paths: &McpPaths,
    warnings: &mut Vec<String>,
) -> Result<Vec<Parsed>, McpConfigError> {
    let mut out = Vec::new();
    if let Some(file) = &paths.claude_file {
        match parse_user_file(file, &paths.project_dir) {
            Ok(parsed) => out.push(parsed),
            Err(e) => warnings.push(format!("ignoring MCP servers of Claude Code's config: {e}")),
        }
    }
    if let Some(file) = &paths.tack_file {
        out.push(parse_user_file(file, &paths.project_dir)?);
    }
    let project = paths.project_file();
    // The checkout wrote `.mcp.json`: one that cannot be read or parsed is
    // skipped with a warning rather than stopping tack.
    match read_config_file(&project, MAX_CONFIG_BYTES) {
        Ok(text) => {
            let origin = project.display().to_string();
            match parse_json(&text, &origin)
                .and_then(|doc| parse_mcp_document(&doc, ConfigScope::Project, &origin))
            {
                Ok(parsed) => out.push(parsed),
                Err(e) => warnings.push(format!("{e}; its MCP servers are skipped")),
            }
        }
        Err(e) if is_missing(&e) => {}
        Err(source) => warnings.push(format!(
            "{}; its MCP servers are skipped",
            McpConfigError::Read {
                path: project,
                source,
            }
        )),
    }
    Ok(out)
}

/// One `--mcp-config` value: inline JSON if it starts with `{`, else a path.
fn read_dynamic(value: &str, index: usize, cwd: &Path) -> Result<Parsed, McpConfigError> {
    let trimmed = value.trim_start();
    if trimmed.starts_with('{') {
        let origin = format!("--mcp-config argument {index}");
        let doc = parse_json(trimmed, &origin)?;
        return parse_mcp_document(&doc, ConfigScope::Dynamic, &origin);
    }
    let path = cwd.join(value);
    let text =
        read_config_file(&path, MAX_CONFIG_BYTES).map_err(|source| McpConfigError::Read {
            path: path.clone(),
            source,
        })?;
    let origin = path.display().to_string();
    let doc = parse_json(&text, &origin)?;
    parse_mcp_document(&doc, ConfigScope::Dynamic, &origin)
}
