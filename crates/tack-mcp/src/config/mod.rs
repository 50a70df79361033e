//! Configuration as Claude Code reads it: `.mcp.json`, the user and local
//! scopes, `--mcp-config`, approvals, `${VAR}` expansion, and the atomic edits
//! behind `tack mcp add/remove`.

mod expand;
mod file;
mod load;
mod server;
pub(crate) mod store;

pub use expand::MissingVar;
pub(crate) use file::parse_servers;
pub use file::{ConfigIssue, ConfigScope, McpConfigError, ServerEntry};
pub use load::{
    LoadOptions, McpConfig, McpPaths, NotStarted, NotStartedReason, ProjectApprovals,
    load_all_scopes, load_config,
};
pub use server::{EntryProblem, IssueKind, RemoteConfig, ServerConfig, StdioConfig, tool_timeout};
