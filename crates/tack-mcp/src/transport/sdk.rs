//! Servers that live in the Agent SDK's process (`create_sdk_mcp_server` /
//! `createSdkMcpServer`, configured as `{"type": "sdk"}`), reached over the
//! SDK's control protocol.
//!
//! # The model
//! The front end that speaks the control protocol implements [`SdkHost`]:
//! it writes one `mcp_message` control request per JSON-RPC message tack's
//! client sends and resolves with the SDK's `mcp_response`. The [`SdkBridge`]
//! it builds around that host is handed to the manager
//! (`McpOptions::sdk`); each server connects through an [`SdkTransport`], an
//! rmcp [`Transport`] over a channel, so the rest of tack (handshake, tool
//! listing, calls, timeouts, `list_changed`) is the same client as for any
//! server.
//!
//! - A request's reply is the `mcp_response` of its control request; its `id`
//!   is set to the request's (an SDK's answer is trusted for the payload only).
//!   An error answer, or an SDK that has gone, fails that request alone.
//! - Notifications and responses tack sends wait for the SDK's ack (which
//!   carries nothing), so the handshake's `notifications/initialized` is
//!   through before the first `tools/list` is written.
//! - Messages the server starts itself (the TypeScript SDK sends its
//!   `notifications/tools/list_changed` as an SDK → CLI `mcp_message`) go in
//!   through [`SdkBridge::deliver`].
//! - The TypeScript SDK sends each server's `initialize` result and first
//!   `tools/list` in its `initialize` request (`sdkMcpServerManifests`), having
//!   done that handshake itself: [`SdkBridge::set_manifest`] keeps them, and
//!   the transport answers those two requests from them (and does not repeat
//!   `notifications/initialized`), as Claude Code does.
//! - A server's own tool-call timeout (the TypeScript SDK's
//!   `sdkMcpServerConfigs.<name>.timeout`) is kept by
//!   [`SdkBridge::set_tool_timeout`]; its tools use it instead of
//!   `MCP_TOOL_TIMEOUT`.
//! - [`SdkBridge::close`] (the SDK closed its input) ends every connection.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures::future::{BoxFuture, FutureExt};
use rmcp::model::{
    ClientJsonRpcMessage, ErrorData, JsonRpcMessage, RequestId, ServerJsonRpcMessage,
    ServerNotification,
};
use rmcp::service::RoleClient;
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::handler::Events;

/// The front end that carries JSON-RPC messages to the SDK's servers.
pub trait SdkHost: Send + Sync + 'static {
    /// Sends `message` to the SDK's server `server` as one `mcp_message`
    /// control request. The request is written before this returns (so
    /// messages reach the SDK in the order they are sent); the future
    /// resolves with the answer's `mcp_response`, or the SDK's error (or why
    /// there will be no answer).
    fn send(&self, server: &str, message: Value) -> BoxFuture<'static, Result<Value, String>>;
}

/// The SDK's servers as tack's MCP client reaches them; clones share them.
#[derive(Clone)]
pub struct SdkBridge {
    inner: Arc<Inner>,
}

struct Inner {
    host: Arc<dyn SdkHost>,
    state: Mutex<State>,
    next_id: AtomicU64,
}

#[derive(Default)]
struct State {
    closed: bool,
    /// Each connected server's incoming messages, by the id of its transport.
    servers: HashMap<String, Open>,
    manifests: HashMap<String, Manifest>,
    /// Per-server tool-call timeouts the host declared.
    tool_timeouts: HashMap<String, Duration>,
}

/// One open connection, as the bridge sees it.
struct Open {
    id: u64,
    incoming: mpsc::UnboundedSender<ServerJsonRpcMessage>,
    events: Arc<Events>,
}

/// What the SDK learnt from a server before the session started.
#[derive(Debug, Clone, Default)]
struct Manifest {
    initialize: Option<Value>,
    tools_list: Option<Value>,
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl std::fmt::Debug for SdkBridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = lock(&self.inner.state);
        f.debug_struct("SdkBridge")
            .field("closed", &state.closed)
            .field("servers", &state.servers.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Two bridges are equal when they are the same one.
impl PartialEq for SdkBridge {
    fn eq(&self, other: &SdkBridge) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl SdkBridge {
    pub fn new(host: Arc<dyn SdkHost>) -> SdkBridge {
        SdkBridge {
            inner: Arc::new(Inner {
                host,
                state: Mutex::new(State::default()),
                next_id: AtomicU64::new(0),
            }),
        }
    }

    /// Keeps what the SDK captured of `server` (`{initializeResult,
    /// toolsListResult?}`) to answer the first `initialize` and `tools/list`
    /// with. A manifest without an object `initializeResult` is ignored: the
    /// handshake then goes to the SDK.
    pub fn set_manifest(&self, server: &str, manifest: &Value) {
        let Some(initialize) = manifest.get("initializeResult").filter(|v| v.is_object()) else {
            return;
        };
        let tools_list = manifest
            .get("toolsListResult")
            .filter(|v| v.is_object())
            .cloned();
        lock(&self.inner.state).manifests.insert(
            server.to_owned(),
            Manifest {
                initialize: Some(initialize.clone()),
                tools_list,
            },
        );
    }

    /// `server`'s tool calls fail after `timeout` (instead of
    /// `MCP_TOOL_TIMEOUT`); for a server that connects after this.
    pub fn set_tool_timeout(&self, server: &str, timeout: Duration) {
        lock(&self.inner.state)
            .tool_timeouts
            .insert(server.to_owned(), timeout);
    }

    /// The timeout the host declared for `server`'s tool calls, if any.
    pub(crate) fn tool_timeout(&self, server: &str) -> Option<Duration> {
        lock(&self.inner.state).tool_timeouts.get(server).copied()
    }

    /// A JSON-RPC message the SDK's server `server` sent on its own (an SDK →
    /// CLI `mcp_message`): into that server's connection.
    pub fn deliver(&self, server: &str, message: Value) -> Result<(), String> {
        let message: ServerJsonRpcMessage =
            serde_json::from_value(message).map_err(|e| format!("not a JSON-RPC message: {e}"))?;
        let state = lock(&self.inner.state);
        let Some(open) = state.servers.get(server) else {
            return Err(format!(
                "no in-process MCP server \"{server}\" is connected"
            ));
        };
        if let JsonRpcMessage::Notification(n) = &message
            && matches!(
                n.notification,
                ServerNotification::ToolListChangedNotification(_)
            )
        {
            // Counted now, not when the client gets to it: a turn that starts
            // after this line waits for the new list.
            open.events.note_list_change();
        }
        open.incoming
            .send(message)
            .map_err(|_| format!("the connection to \"{server}\" has ended"))
    }

    /// The SDK has gone (its input closed): every connection ends, and no new
    /// one opens.
    pub fn close(&self) {
        let mut state = lock(&self.inner.state);
        state.closed = true;
        state.servers.clear();
    }

    /// A transport to `server`; it replaces an earlier one.
    pub(crate) fn open(&self, server: &str, events: Arc<Events>) -> Result<SdkTransport, String> {
        let mut state = lock(&self.inner.state);
        if state.closed {
            return Err("the Agent SDK has closed the session's input".to_owned());
        }
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = mpsc::unbounded_channel();
        let replies = sender.downgrade();
        let open = Open {
            id,
            incoming: sender,
            events,
        };
        state.servers.insert(server.to_owned(), open);
        Ok(SdkTransport {
            server: server.to_owned(),
            id,
            bridge: self.clone(),
            replies,
            incoming: receiver,
            manifest: state.manifests.remove(server).unwrap_or_default(),
            handshake_done: false,
        })
    }

    fn forget(&self, server: &str, id: u64) {
        let mut state = lock(&self.inner.state);
        if state.servers.get(server).is_some_and(|open| open.id == id) {
            state.servers.remove(server);
        }
    }
}

/// Why a message could not be sent.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct SdkTransportError(String);

/// One connection to an SDK server, as rmcp's client sees it.
pub(crate) struct SdkTransport {
    server: String,
    id: u64,
    bridge: SdkBridge,
    /// Where replies go: weak, so the connection ends when the bridge lets go.
    replies: mpsc::WeakUnboundedSender<ServerJsonRpcMessage>,
    incoming: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    manifest: Manifest,
    /// The SDK did the handshake: its `notifications/initialized` is not repeated.
    handshake_done: bool,
}

impl Drop for SdkTransport {
    fn drop(&mut self) {
        self.bridge.forget(&self.server, self.id);
    }
}

impl SdkTransport {
    /// The manifest's answer to `method`, once.
    fn local_answer(&mut self, method: &str) -> Option<Value> {
        match method {
            "initialize" => {
                let answer = self.manifest.initialize.take();
                self.handshake_done = answer.is_some();
                answer
            }
            "tools/list" => self.manifest.tools_list.take(),
            _ => None,
        }
    }

    fn reply(&self, message: ServerJsonRpcMessage) {
        if let Some(replies) = self.replies.upgrade() {
            // A closed receiver: the connection is over, nobody waits.
            let _ = replies.send(message);
        }
    }
}

impl Transport<RoleClient> for SdkTransport {
    type Error = SdkTransportError;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), SdkTransportError>> + Send + 'static {
        let value = match serde_json::to_value(&item) {
            Ok(value) => value,
            Err(e) => return futures::future::ready(Err(SdkTransportError(e.to_string()))).boxed(),
        };
        let method = value.get("method").and_then(Value::as_str).unwrap_or("");
        let request_id = match &item {
            JsonRpcMessage::Request(r) => Some(r.id.clone()),
            JsonRpcMessage::Response(_)
            | JsonRpcMessage::Notification(_)
            | JsonRpcMessage::Error(_) => None,
        };
        let Some(id) = request_id else {
            if self.handshake_done && method == "notifications/initialized" {
                self.handshake_done = false;
                return futures::future::ready(Ok(())).boxed();
            }
            // Written now; the ack carries nothing.
            let ack = self.bridge.inner.host.send(&self.server, value);
            return async move {
                let _ = ack.await;
                Ok(())
            }
            .boxed();
        };
        if let Some(result) = self.local_answer(method) {
            self.reply(reply_to(&id, json!({"result": result})));
            return futures::future::ready(Ok(())).boxed();
        }
        let answer = self.bridge.inner.host.send(&self.server, value);
        let replies = self.replies.clone();
        async move {
            let reply = match answer.await {
                Ok(response) => reply_to(&id, response),
                Err(why) => error_reply(&id, why),
            };
            if let Some(replies) = replies.upgrade() {
                let _ = replies.send(reply);
            }
            Ok(())
        }
        .boxed()
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), SdkTransportError> {
        self.bridge.forget(&self.server, self.id);
        Ok(())
    }
}

/// The SDK's `mcp_response` as the reply to request `id`.
fn reply_to(id: &RequestId, response: Value) -> ServerJsonRpcMessage {
    let Value::Object(mut response) = response else {
        return error_reply(
            id,
            format!("the SDK answered with {response}, not a JSON-RPC reply"),
        );
    };
    response.insert("jsonrpc".into(), json!("2.0"));
    response.insert("id".into(), json!(id));
    match serde_json::from_value(Value::Object(response)) {
        Ok(reply) => reply,
        Err(e) => error_reply(id, format!("the SDK's reply cannot be read: {e}")),
    }
}

fn error_reply(id: &RequestId, why: String) -> ServerJsonRpcMessage {
    JsonRpcMessage::error(ErrorData::internal_error(why, None), Some(id.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_reply_takes_the_requests_id() {
        let id = RequestId::Number(7);
        let reply = serde_json::to_value(reply_to(
            &id,
            json!({"jsonrpc": "2.0", "result": {"tools": []}, "id": 0}),
        ))
        .unwrap();
        assert_eq!(
            reply,
            json!({"jsonrpc": "2.0", "id": 7, "result": {"tools": []}})
        );
        let bad = serde_json::to_value(reply_to(&id, json!("nope"))).unwrap();
        assert_eq!(
            bad,
            json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32603,
                "message": "the SDK answered with \"nope\", not a JSON-RPC reply"}})
        );
    }
}
