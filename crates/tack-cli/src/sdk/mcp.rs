//! In-process MCP servers over the control channel: tack's side of the
//! [`SdkHost`] (an `mcp_message` control request per JSON-RPC message, the
//! SDK's `control_response` routed back to it), and stdin read on a task of
//! its own from the first line on.
//!
//! stdin cannot wait for the front end: the session's start waits for every
//! MCP server's handshake, and an in-process server's answers arrive on stdin.
//! So [`spawn_reader`] reads every line as it comes: answers to tack's
//! `mcp_message` requests go straight to their waiters, every other line to
//! the front end, in order. At EOF the waiters fail and the bridge closes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futures::future::{BoxFuture, FutureExt, ready};
use serde_json::Value;
use std::io::BufRead;
use tack_protocol::control::{
    CliRequest, ControlLine, ControlRequest, ControlResponse, McpMessageRequest,
    McpMessageResponse, StdinLine,
};
use tack_runtime::{SdkBridge, SdkHost};
use tokio::sync::{mpsc, oneshot};

type Answer = Result<Value, String>;

/// Writes `mcp_message` requests on stdout and matches their answers.
#[derive(Default)]
pub struct McpHost {
    state: Mutex<HostState>,
}

#[derive(Default)]
struct HostState {
    closed: bool,
    next_id: u64,
    waiting: HashMap<String, oneshot::Sender<Answer>>,
}

const INPUT_CLOSED: &str = "the SDK closed its input, so the in-process MCP server cannot answer";

impl McpHost {
    fn state(&self) -> MutexGuard<'_, HostState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Routes the SDK's answer to one of tack's `mcp_message` requests;
    /// `false` (and `response` untouched) when it answers something else.
    fn answer(&self, response: &ControlResponse) -> bool {
        let Some(waiter) = self.state().waiting.remove(response.request_id()) else {
            return false;
        };
        let answer = match response {
            ControlResponse::Success(s) => s
                .payload::<McpMessageResponse>()
                .map(|r| r.mcp_response)
                .map_err(|e| format!("the SDK's mcp_message answer cannot be read: {e}")),
            ControlResponse::Error(e) => Err(e.error.clone()),
        };
        let _ = waiter.send(answer);
        true
    }

    /// Fails every request still waiting, and every later one.
    fn close(&self) {
        let mut state = self.state();
        state.closed = true;
        state.waiting.clear();
    }
}

impl SdkHost for McpHost {
    fn send(&self, server: &str, message: Value) -> BoxFuture<'static, Answer> {
        let (tx, rx) = oneshot::channel();
        let id = {
            let mut state = self.state();
            if state.closed {
                return ready(Err(INPUT_CLOSED.to_owned())).boxed();
            }
            state.next_id += 1;
            let id = format!("tack_mcp_{}", state.next_id);
            state.waiting.insert(id.clone(), tx);
            id
        };
        let line = ControlLine::ControlRequest(ControlRequest {
            request_id: id.clone(),
            request: CliRequest::McpMessage(McpMessageRequest {
                server_name: server.to_owned(),
                message,
                extra: Default::default(),
            }),
        });
        if let Err(e) = super::write_line(&line) {
            self.state().waiting.remove(&id);
            return ready(Err(format!("cannot write to the SDK: {e}"))).boxed();
        }
        async move { rx.await.unwrap_or_else(|_| Err(INPUT_CLOSED.to_owned())) }.boxed()
    }
}

/// Reads stdin to its end on a thread of its own (a blocking read on the
/// runtime's pool would hold up its shutdown while the SDK keeps stdin open);
/// returns the lines that are not answers to `host`'s requests (a read error
/// is the last item).
pub fn spawn_reader(
    host: Arc<McpHost>,
    bridge: SdkBridge,
) -> std::io::Result<mpsc::UnboundedReceiver<std::io::Result<String>>> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let failed = line.is_err();
                let to_front = match line {
                    Ok(line) if is_mcp_answer(&line, &host) => continue,
                    other => other,
                };
                if tx.send(to_front).is_err() || failed {
                    break;
                }
            }
            // The connections end first, so a call waiting fails the same way
            // whichever of the two its task sees first.
            bridge.close();
            host.close();
        })?;
    Ok(rx)
}

/// True when `line` answered one of `host`'s requests (and went to it).
fn is_mcp_answer(line: &str, host: &McpHost) -> bool {
    // Only an answer can name one of tack's ids; other lines skip the parse.
    if !line.contains("tack_mcp_") {
        return false;
    }
    match serde_json::from_str::<StdinLine>(line) {
        Ok(StdinLine::ControlResponse(r)) => host.answer(&r.response),
        _ => false,
    }
}

/// The SDK's `mcp_message` request: a message its server sent on its own,
/// into that server's connection; answered `{}`.
pub fn deliver(bridge: &SdkBridge, id: String, request: McpMessageRequest) -> ControlResponse {
    match bridge.deliver(&request.server_name, request.message) {
        Ok(()) => ControlResponse::empty_success(id),
        Err(why) => ControlResponse::error(id, why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[tokio::test]
    async fn answers_reach_their_request_and_eof_fails_the_rest() {
        let host = McpHost::default();
        let (tx, rx) = oneshot::channel();
        host.state().waiting.insert("tack_mcp_1".into(), tx);
        let line = json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": "tack_mcp_1", "response": {"mcp_response": {"jsonrpc": "2.0", "id": 1, "result": {}}}}});
        assert!(is_mcp_answer(&line.to_string(), &host));
        assert_eq!(
            rx.await.unwrap(),
            Ok(json!({"jsonrpc": "2.0", "id": 1, "result": {}}))
        );
        // Someone else's answer is left for the front end.
        let other = json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": "tack_mcp_9", "response": {}}});
        assert!(!is_mcp_answer(&other.to_string(), &host));
        let (tx, rx) = oneshot::channel();
        host.state().waiting.insert("tack_mcp_2".into(), tx);
        host.close();
        assert_eq!(rx.await.ok(), None);
        assert_eq!(
            host.send("calc", json!({})).await,
            Err(INPUT_CLOSED.to_owned())
        );
    }
}
