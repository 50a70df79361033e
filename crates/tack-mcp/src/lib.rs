//! tack's Model Context Protocol client, on the official Rust SDK (`rmcp`).
//!
//! # The model
//! 1. **Configuration** ([`load_config`]): Claude Code's scopes — user and local
//!    (Claude Code's `~/.claude.json`, which `tack mcp add` writes as `claude
//!    mcp add` does, plus the `<config dir>/mcp.json` older tacks wrote),
//!    project (`.mcp.json`, each server approved in settings) and
//!    `--mcp-config` (`--strict-mcp-config`: only those) — merged by name.
//! 2. **Start-up** ([`McpManager::start`]): every server at once, each within
//!    `MCP_TIMEOUT`, over stdio (own process group, stderr to a log file),
//!    streamable HTTP, legacy SSE, or the Agent SDK's control protocol for
//!    servers in the SDK's own process ([`SdkBridge`]); each `pending` → `connected` / `failed` /
//!    `needs-auth`.
//! 3. **Tools** ([`McpManager::tools`]): each server tool as a
//!    [`tack_tool::Tool`] named `mcp__<server>__<tool>`; the snapshot changes
//!    with `tools/list_changed` and is versioned by a generation counter.
//!    [`ToolSearch`] stands in for them when their definitions are too large.
//! 4. **Resources and prompts**: [`ListMcpResourcesTool`],
//!    [`ReadMcpResourceTool`], `@server:uri` mentions, prompts.
//! 5. **Permission prompts** through an MCP tool (`--permission-prompt-tool`).
//! 6. **`tack mcp`** subcommands as functions returning what to print.
//!
//! The library reads no environment variable: lookups and directories are
//! passed in.
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - MCP configuration: scopes, approvals, `${VAR}`, atomic edits:
//!   `tack-mcp/src/config/{server,file,load,expand,store}.rs`
//! - MCP transports: stdio (process group, stderr log), streamable HTTP, legacy SSE, and
//!   servers in the Agent SDK's process (`{"type": "sdk"}`: `SdkBridge` over the front end's
//!   `SdkHost`, an rmcp `Transport` per server, TypeScript's manifests answering the
//!   handshake): `tack-mcp/src/transport/{stdio,http,sse,sdk}.rs`
//! - MCP start-up, statuses, tool snapshot + generation:
//!   `tack-mcp/src/{manager,connection,handler}.rs`
//! - servers changed while the session runs (the SDKs' `mcp_reconnect`, `mcp_toggle`,
//!   `mcp_set_servers`: what a call named, or a host's `sdk` server, is what a later call may
//!   remove; settings, `.mcp.json`, `--mcp-config` and plugin servers stay), through
//!   `Command::McpControl`; an SDK session always has a manager, empty or not:
//!   `tack-mcp/src/control.rs`, `tack-runtime/src/mcp.rs` (`SessionMcp::control`)
//! - MCP tools (`mcp__server__tool`), result → content blocks, which tools reach the API:
//!   `tack-mcp/src/{tool,result,names,tool_checks}.rs`
//! - ToolSearch deferral: `tack-mcp/src/tool_search.rs`
//! - MCP resources, `@server:uri` mentions, prompts: `tack-mcp/src/{resources,prompts}.rs`
//! - `--permission-prompt-tool`, `tack mcp` subcommands:
//!   `tack-mcp/src/{permission_prompt,commands}.rs`
//! - a server's tool called by a `type: "mcp_tool"` hook (`McpManager::call_tool_text`):
//!   `tack-mcp/src/hook_call.rs`
//! - test MCP server (rmcp): `tack-mcp/src/bin/tack-mcp-fixture/`

mod commands;
mod config;
mod connection;
mod control;
mod handler;
mod hook_call;
mod manager;
pub mod names;
mod permission_prompt;
mod prompts;
mod resources;
mod result;
mod tool;
mod tool_checks;
mod tool_search;
mod transport;

pub use commands::{
    AddArgs, CommandError, HealthCheck, mcp_add, mcp_add_json, mcp_get, mcp_list, mcp_remove,
};
pub use config::store::StoreError;
pub use control::SetServersResult;
pub use permission_prompt::{
    PermissionPromptError, PermissionPromptTool, PromptDecision, parse_answer,
};
pub use prompts::{McpPrompt, PromptArgument, PromptRole, PromptTurn};
pub use resources::{
    ListMcpResourcesTool, McpResource, ReadMcpResourceTool, ResourceMention, find_mentions,
};
pub use transport::http::client as http_client;
pub use transport::sdk::{SdkBridge, SdkHost};

pub use tool_search::{
    DeferralDecision, DeferredTools, TOOL_SEARCH_NAME, ToolSearch, ToolSearchMode, decide_deferral,
    estimate_tool_tokens,
};

pub use config::{
    ConfigIssue, ConfigScope, EntryProblem, IssueKind, LoadOptions, McpConfig, McpConfigError,
    McpPaths, MissingVar, NotStarted, NotStartedReason, ProjectApprovals, RemoteConfig,
    ServerConfig, ServerEntry, StdioConfig, load_all_scopes, load_config, tool_timeout,
};
pub use manager::{
    DEFAULT_STARTUP_TIMEOUT, DEFAULT_TOOL_TIMEOUT, McpManager, McpOptions, ServerConfigError,
    ServerStatus, Status, WeakMcpManager,
};

/// A request to a server that could not be made or failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    #[error("MCP server \"{server}\" not found (connected servers: {available})")]
    UnknownServer { server: String, available: String },
    #[error("MCP server \"{server}\" is not connected ({status}){}", if detail.is_empty() { String::new() } else { format!(": {detail}") })]
    NotConnected {
        server: String,
        status: &'static str,
        detail: String,
    },
    #[error("{0}")]
    Request(String),
    #[error("MCP has been shut down")]
    ShutDown,
}
