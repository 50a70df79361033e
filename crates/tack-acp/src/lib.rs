//! `tack acp`: tack as an Agent Client Protocol agent (JSON-RPC on stdio),
//! for editors (Zed, JetBrains IDEs, Neovim's CodeCompanion). One more front
//! end of the session protocol: it starts tack sessions
//! (`tack_runtime::start`) and translates, nothing else; what ACP asks and
//! what Claude Code's adapter does is in `docs/acp.md`.
//!
//! # Where things are
//!
//! - JSON-RPC lines, requests both ways, answers routed by id: `rpc.rs`
//! - the methods (`initialize`, `session/new`, `session/load`,
//!   `session/prompt`, `session/set_mode`, `session/cancel`): `agent.rs`
//! - one session: start, event pump, prompts matched to turns, cancel:
//!   `session.rs`
//! - events as `session/update`s (chunks, tool calls, plan), a loaded
//!   conversation replayed: `updates.rs`; tool kinds, titles, diffs:
//!   `tool_call.rs`
//! - prompt content (text, resource links, embedded resources, images) as
//!   the user message: `prompt.rs`
//! - permission asks and their options: `permission.rs`; modes: `modes.rs`;
//!   the client's MCP servers: `mcp.rs`
//! - Read through the editor's `fs/read_text_file` (unsaved buffers), when
//!   offered: `client_fs.rs` (the seam: `tack_runtime::ClientFiles`)

mod agent;
mod client_fs;
mod mcp;
mod modes;
mod permission;
mod prompt;
mod rpc;
mod session;
mod tool_call;
mod updates;

use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, BufReader};

use crate::agent::Agent;
use crate::rpc::{Incoming, Peer};

/// Serves ACP on stdin / stdout until the client closes stdin; the sessions
/// end with it. Must run within a tokio runtime.
pub async fn run() -> std::io::Result<()> {
    serve(tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves ACP on `input` / `output`.
pub async fn serve(
    input: impl tokio::io::AsyncRead + Unpin,
    output: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
) -> std::io::Result<()> {
    let peer = Peer::new(output);
    let agent = Arc::new(Agent::new(peer.clone()));
    let mut lines = BufReader::new(input).lines();
    let mut requests = tokio::task::JoinSet::new();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        match Incoming::parse(&line) {
            Err(error) => peer.respond(serde_json::Value::Null, Err(error)),
            Ok(Incoming::Response { id, result }) => peer.answered(&id, result),
            Ok(Incoming::Notification { method, params }) => agent.notification(&method, &params),
            Ok(Incoming::Request { id, method, params }) => {
                let agent = agent.clone();
                requests.spawn(async move {
                    let named = params["sessionId"].as_str().map(str::to_owned);
                    let answer = agent.request(&method, params).await;
                    agent.peer.respond(id, answer.clone());
                    agent.after(&method, &answer, named.as_deref());
                });
            }
        }
    }
    // The client is gone: open prompts end cancelled, every request still
    // running is answered, and the answers are written before returning.
    agent.cancel_all();
    peer.close();
    while requests.join_next().await.is_some() {}
    peer.flush().await;
    Ok(())
}
