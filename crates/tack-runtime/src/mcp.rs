//! A session's MCP servers: configuration (with the session's trust-filtered
//! approvals), parallel start-up bounded by `MCP_TIMEOUT`, their tools in the
//! session's tool set (behind ToolSearch when their definitions would take too
//! much of the context window), a refresh when a server's list changes, and
//! shutdown with the session. The client itself is tack-mcp.

use std::path::Path;
use std::sync::Arc;

use tack_core::executor::ToolSet;
use tack_mcp::{
    DeferredTools, LoadOptions, McpConfig, McpManager, McpOptions, McpPaths, ProjectApprovals,
    ToolSearchMode, decide_deferral,
};
use tack_protocol::stream_json::McpServerStatus;
use tack_tool::Tool;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::deferral::ToolSetParts;
use crate::event::Notice;
use crate::place::Env;
use crate::protocol::op::McpControl;
use tack_extensions::plugins::SessionPlugins;

/// How long a turn waits for a server's changed tool list before it starts
/// without it.
const TOOL_LIST_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// The MCP side of a running session.
pub(crate) struct SessionMcp {
    manager: McpManager,
    /// Expands `${VAR}`s of servers added while the session runs.
    env: Env,
    /// Set when tools are deferred behind ToolSearch.
    deferred: Option<Arc<DeferredTools>>,
    /// The built-ins Claude Code defers go behind ToolSearch too
    /// (`deferral::builtins_deferred`, decided at start).
    pub(crate) defer_builtins: bool,
    /// The manager generation the tool set was built from.
    generation: u64,
}

/// An MCP configuration that cannot be read (a file or `--mcp-config` value).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct McpError(#[from] tack_mcp::McpConfigError);

/// Reads the configuration. `Ok(None)`: no server is configured (nothing to
/// start, ever).
pub(crate) fn load(
    locations: &tack_config::Locations,
    settings: &tack_config::Settings,
    mcp_config: &[String],
    strict: bool,
    plugins: &SessionPlugins,
) -> Result<(Option<McpConfig>, Vec<Notice>), McpError> {
    let paths = McpPaths::from_locations(locations);
    let approvals = ProjectApprovals::from_settings(settings);
    let mut config = tack_mcp::load_config(
        &paths,
        LoadOptions {
            mcp_config,
            strict,
            approvals: &approvals,
        },
    )?;
    if !strict {
        with_plugin_servers(&mut config, plugins);
    }
    let mut notices: Vec<Notice> = config
        .warnings
        .iter()
        .map(|w| Notice::warning(format!("warning: {w}")))
        .collect();
    notices.extend(config.not_started.iter().map(|n| Notice::info(n.message())));
    let any = !config.servers.is_empty() || !config.issues.is_empty();
    Ok((any.then_some(config), notices))
}

/// The plugins' servers beside the configured ones (their `plugin:` names
/// meet no other scope's), sorted by name as the others are.
fn with_plugin_servers(config: &mut McpConfig, plugins: &SessionPlugins) {
    if plugins.mcp_servers.is_empty() && plugins.mcp_issues.is_empty() {
        return;
    }
    for entry in &plugins.mcp_servers {
        config.servers.retain(|s| s.name != entry.name);
        config.servers.push(entry.clone());
    }
    config.servers.sort_by(|a, b| a.name.cmp(&b.name));
    config.issues.extend(plugins.mcp_issues.iter().cloned());
}

impl SessionMcp {
    /// Starts every server; returns at once (call [`SessionMcp::settle`]
    /// before the tools are needed).
    pub(crate) fn start(
        config: &McpConfig,
        cwd: &Path,
        log_dir: &Path,
        env: &Env,
        sdk: Option<tack_mcp::SdkBridge>,
    ) -> SessionMcp {
        let mut options = McpOptions::new(cwd, log_dir).with_env_timeouts(|k| env.get(k));
        options.env = env.0.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        options.sdk = sdk;
        let manager = McpManager::start(config, options, &|k| env.get(k));
        SessionMcp {
            manager,
            env: env.clone(),
            deferred: None,
            defer_builtins: false,
            generation: 0,
        }
    }

    /// Waits until no server is pending (at most `MCP_TIMEOUT`); what is not
    /// connected is reported.
    pub(crate) async fn settle(&self) -> Vec<Notice> {
        self.manager.wait_until_settled().await;
        self.manager
            .report_lines()
            .into_iter()
            .map(Notice::warning)
            .collect()
    }

    pub(crate) fn statuses(&self) -> Vec<McpServerStatus> {
        self.manager.init_statuses()
    }

    /// The session's tools: `builtin`, then the MCP tools (or ToolSearch over
    /// them when deferred: `ENABLE_TOOL_SEARCH`, else when their definitions
    /// pass 10% of `context_window`; with the built-ins Claude Code defers
    /// when `defer_builtins`, see `deferral.rs`), then the resource tools.
    /// `keep` filters out tools a deny rule removes.
    pub(crate) fn tool_set(
        &mut self,
        builtin: &[Arc<dyn Tool>],
        context_window: u64,
        tool_search: Option<&str>,
        keep: &dyn Fn(&dyn Tool) -> bool,
    ) -> ToolSet {
        self.generation = self.manager.generation();
        let mcp: Vec<Arc<dyn Tool>> = self
            .manager
            .tools()
            .into_iter()
            .filter(|t| keep(t.as_ref()))
            .collect();
        let decision = decide_deferral(
            ToolSearchMode::from_env_value(tool_search),
            &mcp,
            context_window,
        );
        let parts = ToolSetParts {
            builtin,
            defer_builtins: self.defer_builtins,
            mcp,
            defer_mcp: decision.defer,
            resources: self.resource_tools(keep),
        };
        crate::deferral::tool_set(parts, &mut self.deferred)
    }

    /// The resource tools, while the session has any server (an SDK
    /// session's manager may have none).
    fn resource_tools(&self, keep: &dyn Fn(&dyn Tool) -> bool) -> Vec<Arc<dyn Tool>> {
        if self.manager.statuses().is_empty() {
            return Vec::new();
        }
        self.manager
            .resource_tools()
            .into_iter()
            .filter(|t| keep(t.as_ref()))
            .collect()
    }

    /// Waits (at most [`TOOL_LIST_WAIT`]) for tool lists being fetched again
    /// after a server said they changed.
    pub(crate) async fn await_tool_lists(&self) {
        self.manager.tool_lists_current(TOOL_LIST_WAIT).await;
    }

    /// True when a server's tools or status changed since the tool set was built.
    pub(crate) fn changed(&self) -> bool {
        self.manager.generation() != self.generation
    }

    /// Carries out `control` (see [`crate::Command::McpControl`]).
    pub(crate) fn control(&self, control: McpControl) -> BoxFuture<'static, Result<Value, String>> {
        let (manager, env) = (self.manager.clone(), self.env.clone());
        Box::pin(async move {
            match control {
                McpControl::Reconnect(server) => {
                    manager.reconnect(&server).await.map(|()| Value::Null)
                }
                McpControl::Toggle { server, enabled } => {
                    manager.toggle(&server, enabled).await.map(|()| Value::Null)
                }
                McpControl::SetServers(servers) => {
                    let done = manager.set_servers(&servers, &|k| env.get(k)).await?;
                    serde_json::to_value(done).map_err(|e| e.to_string())
                }
            }
        })
    }

    pub(crate) fn manager(&self) -> &McpManager {
        &self.manager
    }

    pub(crate) async fn shutdown(&self) {
        self.manager.shutdown().await;
    }
}

/// A sub-agent's tools: `base`, then `mcp` or, by the session's rule
/// (`ENABLE_TOOL_SEARCH`, else 10% of `context_window`), its own ToolSearch
/// over them: a sub-agent must not spend its fresh context on definitions the
/// session itself would defer.
pub(crate) fn subagent_tool_set(
    base: Vec<Arc<dyn Tool>>,
    mcp: Vec<Arc<dyn Tool>>,
    context_window: u64,
    tool_search: Option<&str>,
    defer_builtins: bool,
) -> ToolSet {
    let mode = ToolSearchMode::from_env_value(tool_search);
    let parts = ToolSetParts {
        builtin: &base,
        defer_builtins,
        defer_mcp: decide_deferral(mode, &mcp, context_window).defer,
        mcp,
        resources: Vec::new(),
    };
    crate::deferral::tool_set(parts, &mut None)
}
