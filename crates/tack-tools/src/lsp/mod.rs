//! The `LSP` tool and the language servers behind it, as Claude Code has them
//! (since 2.0.74; sources and what is unconfirmed: `docs/lsp.md`).
//!
//! - servers as plugins declare them (`lspServers`, `.lsp.json`): `config.rs`
//! - JSON-RPC framing on stdio (`Content-Length`): `framing.rs`
//! - one server process, its requests and published diagnostics: `server.rs`
//! - the session's servers: started on first use, started again after a crash
//!   (`maxRestarts`), stopped with the session; edits synced: `servers.rs`
//! - answers as the tool's text: `format.rs`; diagnostics after an edit as
//!   Claude Code's `<new-diagnostics>` reminder: `diagnostics.rs`
//! - the tool, and the file tools wrapped so that their edits reach the
//!   servers: `tool.rs`, `synced.rs`

mod config;
mod diagnostics;
mod format;
mod framing;
mod server;
mod servers;
mod synced;
mod tool;

use std::path::Path;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use tack_tool::Tool;

pub use config::{LspServerSpec, ServerConfig, Transport, plugin_servers};
pub use server::LspError;
pub use servers::LspServers;

/// The tool's name.
pub const LSP_TOOL_NAME: &str = "LSP";

/// What the model asks the server for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Operation {
    GoToDefinition,
    FindReferences,
    Hover,
    DocumentSymbol,
    WorkspaceSymbol,
    GoToImplementation,
    PrepareCallHierarchy,
    IncomingCalls,
    OutgoingCalls,
}

impl Operation {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Operation::GoToDefinition => "goToDefinition",
            Operation::FindReferences => "findReferences",
            Operation::Hover => "hover",
            Operation::DocumentSymbol => "documentSymbol",
            Operation::WorkspaceSymbol => "workspaceSymbol",
            Operation::GoToImplementation => "goToImplementation",
            Operation::PrepareCallHierarchy => "prepareCallHierarchy",
            Operation::IncomingCalls => "incomingCalls",
            Operation::OutgoingCalls => "outgoingCalls",
        }
    }
}

/// `tools` with the `LSP` tool added and the file tools (Write, Edit,
/// MultiEdit) wrapped so that each edit is synced to the server covering the
/// file and its new diagnostics reach the model with the next request.
pub fn with_lsp(tools: Vec<Arc<dyn Tool>>, servers: &LspServers) -> Vec<Arc<dyn Tool>> {
    let mut out: Vec<Arc<dyn Tool>> = tools
        .into_iter()
        .map(|t| synced::synced(t, servers))
        .collect();
    out.push(Arc::new(tool::LspTool::new(servers.clone())));
    out
}

/// `path` as a `file://` URI (bytes outside the unreserved set and `/`
/// percent-encoded).
pub(crate) fn file_uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.as_os_str().as_encoded_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(*b as char);
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A `file://` URI's path, percent-decoded; other URIs unchanged.
pub(crate) fn uri_path(uri: &str) -> String {
    let Some(rest) = uri.strip_prefix("file://") else {
        return uri.to_owned();
    };
    crate::percent::percent_decode(rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn uris_round_trip_odd_paths() {
        let path = Path::new("/tmp/a b/ü%.py");
        let uri = file_uri(path);
        assert_eq!(
            (uri.as_str(), uri_path(&uri)),
            (
                "file:///tmp/a%20b/%C3%BC%25.py",
                "/tmp/a b/ü%.py".to_owned()
            )
        );
    }
}
