//! `tack acp`: tack as an Agent Client Protocol agent (JSON-RPC on stdio),
//! for editors (Zed, JetBrains IDEs, Neovim's CodeCompanion). One more front
//! end of the session protocol: it starts tack sessions
//! (`tack_runtime::start`) and translates, nothing else; what ACP asks and
//! what Claude Code's adapter does is in `docs/acp.md`.
//!
//! # Where things are
//!
//! - JSON-RPC, requests both ways, the schema's types: the
//!   `agent-client-protocol` crate; the handlers registered on its
//!   connection: here; what the crate leaves to tack (the transport on
//!   tokio's stdio, error answers): `peer.rs`
//! - the methods (`initialize`, `session/new`, `session/load`,
//!   `session/resume`, `session/fork`, `session/list`, `session/prompt`,
//!   `session/set_mode`, `session/set_config_option`, `session/close`,
//!   `session/cancel`): `agent.rs`
//! - one session: start, event pump, prompts matched to turns, cancel:
//!   `session.rs`
//! - events as `session/update`s (chunks, tool calls, plan, usage), a loaded
//!   conversation replayed: `updates.rs`; tool kinds, titles, diffs:
//!   `tool_call.rs`
//! - prompt content (text, resource links, embedded resources, images) as
//!   the user message: `prompt.rs`
//! - permission asks and their options: `permission.rs`; modes: `modes.rs`;
//!   the config options (mode, model): `config.rs`;
//!   the client's MCP servers: `mcp.rs`
//! - Read through the editor's `fs/read_text_file` (unsaved buffers), when
//!   offered: `client_fs.rs` (the seam: `tack_runtime::ClientFiles`)
//! - Bash in the editor's terminal (`terminal/*`), when offered:
//!   `terminal.rs` (the seam: `tack_runtime::ClientTerminals`)

mod agent;
mod client_fs;
mod config;
mod mcp;
mod modes;
mod peer;
mod permission;
mod prompt;
mod session;
mod terminal;
mod tool_call;
mod updates;

use std::sync::Arc;

use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema::{
    AuthenticateRequest, AuthenticateResponse, CancelNotification, CloseSessionRequest,
    ForkSessionRequest, ForkSessionResponse, InitializeRequest, ListSessionsRequest,
    LoadSessionRequest, NewSessionRequest, NewSessionResponse, PromptRequest, ResumeSessionRequest,
    SessionId, SetSessionConfigOptionRequest, SetSessionModeRequest,
};
use agent_client_protocol::{Error, JsonRpcResponse, on_receive_notification, on_receive_request};
use tokio_util::task::TaskTracker;

use crate::agent::Agent;
use crate::peer::Peer;

/// Serves ACP on stdin / stdout until the client closes stdin; the sessions
/// end with it. Must run within a tokio runtime.
pub async fn run() -> std::io::Result<()> {
    serve(tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves ACP on `input` / `output`.
///
/// The protocol crate's connection reads, parses and dispatches; its
/// dispatch loop waits for each handler, so a handler that waits on a
/// session (which waits on the client: permission asks, file reads) answers
/// from a tokio task of its own ([`later`]). The crate's futures need no
/// executor of their own: they run on tack's tokio runtime.
pub async fn serve(
    input: impl tokio::io::AsyncRead + Unpin + Send + 'static,
    output: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
) -> std::io::Result<()> {
    let agent = Arc::new(Agent::default());
    let tasks = TaskTracker::new();
    let (a, t) = (agent.clone(), tasks.clone());
    let builder = agent_client_protocol::Agent
        .v1()
        .name("tack")
        .on_receive_request(
            {
                let agent = agent.clone();
                async move |request: InitializeRequest, responder, _: Peer| {
                    responder.respond(agent.initialize(request))
                }
            },
            on_receive_request!(),
        )
        // Nothing to log in to: a key or a provider comes from the
        // environment and settings, as for `tack -p`.
        .on_receive_request(
            async |_: AuthenticateRequest, responder, _: Peer| {
                responder.respond(AuthenticateResponse::new())
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let agent = agent.clone();
                async move |request: ListSessionsRequest, responder, _: Peer| {
                    responder.respond_with_result(agent.list_sessions(request))
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (agent, tasks) = (agent.clone(), tasks.clone());
                async move |request: NewSessionRequest, responder, peer: Peer| {
                    let (a, p) = (agent.clone(), peer.clone());
                    let answer = async move { a.new_session(&p, request).await };
                    let id = |opened: &NewSessionResponse| opened.session_id.clone();
                    open_later(&tasks, responder, &agent, peer, answer, id);
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (agent, tasks) = (agent.clone(), tasks.clone());
                async move |request: LoadSessionRequest, responder, peer: Peer| {
                    let (a, p, id) = (agent.clone(), peer.clone(), request.session_id.clone());
                    let answer = async move { a.load_session(&p, request).await };
                    open_later(&tasks, responder, &agent, peer, answer, move |_| id);
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (agent, tasks) = (agent.clone(), tasks.clone());
                async move |request: ResumeSessionRequest, responder, peer: Peer| {
                    let (a, p, id) = (agent.clone(), peer.clone(), request.session_id.clone());
                    let answer = async move { a.resume_session(&p, request).await };
                    open_later(&tasks, responder, &agent, peer, answer, move |_| id);
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (agent, tasks) = (agent.clone(), tasks.clone());
                async move |request: ForkSessionRequest, responder, peer: Peer| {
                    let (a, p) = (agent.clone(), peer.clone());
                    let answer = async move { a.fork_session(&p, request).await };
                    let id = |opened: &ForkSessionResponse| opened.session_id.clone();
                    open_later(&tasks, responder, &agent, peer, answer, id);
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (agent, tasks) = (agent.clone(), tasks.clone());
                async move |request: PromptRequest, responder, _: Peer| {
                    let agent = agent.clone();
                    let answer = async move { agent.prompt(request).await };
                    later(&tasks, responder, answer, |_| {});
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (agent, tasks) = (agent.clone(), tasks.clone());
                async move |request: SetSessionModeRequest, responder, peer: Peer| {
                    let agent = agent.clone();
                    let answer = async move { agent.set_mode(&peer, request).await };
                    later(&tasks, responder, answer, |_| {});
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let (agent, tasks) = (agent.clone(), tasks.clone());
                async move |request: SetSessionConfigOptionRequest, responder, peer: Peer| {
                    let agent = agent.clone();
                    let answer = async move { agent.set_config_option(&peer, request).await };
                    later(&tasks, responder, answer, |_| {});
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let agent = agent.clone();
                async move |request: CloseSessionRequest, responder, _: Peer| {
                    responder.respond_with_result(agent.close(&request))
                }
            },
            on_receive_request!(),
        )
        .on_receive_notification(
            {
                let agent = agent.clone();
                async move |cancel: CancelNotification, _: Peer| {
                    agent.cancel(&cancel.session_id);
                    Ok(())
                }
            },
            on_receive_notification!(),
        );
    builder
        .connect_with(peer::lines(input, output), async move |peer: Peer| {
            wind_down(peer, a, t).await
        })
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))
}

/// Once the client is gone: open prompts end cancelled, and every request
/// still running is answered before the connection ends.
async fn wind_down(peer: Peer, agent: Arc<Agent>, tasks: TaskTracker) -> Result<(), Error> {
    peer.incoming_closed().await;
    agent.cancel_all();
    tasks.close();
    tasks.wait().await;
    Ok(())
}

/// Answers through `responder` once `answer` is ready, from a task of its
/// own; `then` runs after the answer is on its way (with it, if it is no
/// error): a session's first updates follow the answer that names it.
fn later<T: JsonRpcResponse + Clone + Send + 'static>(
    tasks: &TaskTracker,
    responder: Responder<T>,
    answer: impl Future<Output = Result<T, Error>> + Send + 'static,
    then: impl FnOnce(Option<&T>) + Send + 'static,
) {
    tasks.spawn(async move {
        let answer = answer.await;
        let sent = answer.as_ref().ok().cloned();
        let _ = responder.respond_with_result(answer);
        then(sent.as_ref());
    });
}

/// Opens a session from a task of its own ([`later`]): once the answer
/// naming it is on its way, the session lists its commands.
fn open_later<T: JsonRpcResponse + Clone + Send + 'static>(
    tasks: &TaskTracker,
    responder: Responder<T>,
    agent: &Arc<Agent>,
    peer: Peer,
    answer: impl Future<Output = Result<T, Error>> + Send + 'static,
    id: impl FnOnce(&T) -> SessionId + Send + 'static,
) {
    let agent = agent.clone();
    later(tasks, responder, answer, move |opened| {
        if let Some(opened) = opened {
            agent.opened(&peer, &id(opened));
        }
    });
}
