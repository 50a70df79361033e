//! JSON-RPC 2.0 as ACP carries it: one JSON object per line on stdio.
//!
//! Both sides send requests: the client asks the agent (`session/prompt`),
//! the agent asks the client (`session/request_permission`,
//! `fs/read_text_file`). [`Peer`] is the agent's half: everything it writes
//! goes through one writer task, so lines never interleave, and the client's
//! answers to the agent's requests are routed back by id.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

/// JSON-RPC's and ACP's error codes.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
}

/// An error answer: its code and message.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

impl RpcError {
    pub fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError {
            code: code::INVALID_PARAMS,
            message: message.into(),
        }
    }

    pub fn internal(message: impl Into<String>) -> RpcError {
        RpcError {
            code: code::INTERNAL_ERROR,
            message: message.into(),
        }
    }
}

/// One line read from the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// The answer to one of the agent's requests.
    Response {
        id: Value,
        result: Result<Value, RpcError>,
    },
}

impl Incoming {
    /// Reads one line; a line that is no JSON-RPC message is the error to
    /// answer with (id `null`).
    pub fn parse(line: &str) -> Result<Incoming, RpcError> {
        let value: Value = serde_json::from_str(line).map_err(|e| RpcError {
            code: code::PARSE_ERROR,
            message: format!("not JSON: {e}"),
        })?;
        let invalid = |message: &str| RpcError {
            code: code::INVALID_REQUEST,
            message: message.to_owned(),
        };
        let Value::Object(mut object) = value else {
            return Err(invalid("a message is a JSON object"));
        };
        let id = object.remove("id");
        let params = object.remove("params").unwrap_or(Value::Null);
        match (object.remove("method"), id) {
            (Some(Value::String(method)), Some(id)) => Ok(Incoming::Request { id, method, params }),
            (Some(Value::String(method)), None) => Ok(Incoming::Notification { method, params }),
            (Some(_), _) => Err(invalid("`method` is a string")),
            (None, Some(id)) => {
                let result = match (object.remove("result"), object.remove("error")) {
                    (_, Some(error)) => Err(RpcError {
                        code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                        message: error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                    }),
                    (result, None) => Ok(result.unwrap_or(Value::Null)),
                };
                Ok(Incoming::Response { id, result })
            }
            (None, None) => Err(invalid("neither a request nor a response")),
        }
    }
}

type Waiting = HashMap<u64, oneshot::Sender<Result<Value, RpcError>>>;

/// What the writer task is given.
#[derive(Debug)]
enum Write {
    Line(String),
    /// Answered once every line before it is written.
    Flush(oneshot::Sender<()>),
}

/// The agent's side of the connection: cheap to clone, usable from any task.
#[derive(Clone, Debug)]
pub struct Peer {
    lines: mpsc::UnboundedSender<Write>,
    waiting: Arc<Mutex<Waiting>>,
    next_id: Arc<std::sync::atomic::AtomicU64>,
}

impl Peer {
    /// A peer writing to `out` (a task of its own, until every clone is gone).
    pub fn new(mut out: impl AsyncWrite + Unpin + Send + 'static) -> Peer {
        let (lines, mut rx) = mpsc::unbounded_channel::<Write>();
        tokio::spawn(async move {
            while let Some(write) = rx.recv().await {
                let mut line = match write {
                    Write::Line(line) => line,
                    Write::Flush(done) => {
                        let _ = done.send(());
                        continue;
                    }
                };
                line.push('\n');
                if out.write_all(line.as_bytes()).await.is_err() || out.flush().await.is_err() {
                    break;
                }
            }
        });
        Peer {
            lines,
            waiting: Arc::default(),
            next_id: Arc::default(),
        }
    }

    fn send(&self, message: Value) {
        // A closed writer means the client is gone: nothing left to tell.
        let _ = self.lines.send(Write::Line(message.to_string()));
    }

    /// Returns once everything sent so far is written (or the writer is gone).
    pub async fn flush(&self) {
        let (done, written) = oneshot::channel();
        if self.lines.send(Write::Flush(done)).is_ok() {
            let _ = written.await;
        }
    }

    pub fn respond(&self, id: Value, result: Result<Value, RpcError>) {
        self.send(match result {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(RpcError { code, message }) => json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": code, "message": message},
            }),
        });
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Asks the client; the answer comes when [`Peer::answered`] routes it.
    /// A connection that closes first reads as an internal error.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.lock().insert(id, tx);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        rx.await
            .unwrap_or_else(|_| Err(RpcError::internal("the client closed the connection")))
    }

    /// Routes the client's answer to the request it answers.
    pub fn answered(&self, id: &Value, result: Result<Value, RpcError>) {
        let waiting = id.as_u64().and_then(|id| self.lock().remove(&id));
        if let Some(tx) = waiting {
            let _ = tx.send(result);
        }
    }

    /// Drops every request still waiting (the client closed stdin).
    pub fn close(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting> {
        // A panic while holding the map leaves it whole: use it anyway.
        self.waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn lines_parse_as_requests_notifications_and_responses() {
        assert_eq!(
            Incoming::parse(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"a":1}}"#),
            Ok(Incoming::Request {
                id: json!(1),
                method: "initialize".into(),
                params: json!({"a": 1}),
            })
        );
        assert_eq!(
            Incoming::parse(r#"{"jsonrpc":"2.0","method":"session/cancel","params":{}}"#),
            Ok(Incoming::Notification {
                method: "session/cancel".into(),
                params: json!({}),
            })
        );
        assert_eq!(
            Incoming::parse(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}"#),
            Ok(Incoming::Response {
                id: json!(3),
                result: Err(RpcError {
                    code: -1,
                    message: "no".into()
                }),
            })
        );
        assert_eq!(
            Incoming::parse("[1]"),
            Err(RpcError {
                code: code::INVALID_REQUEST,
                message: "a message is a JSON object".into()
            })
        );
        assert_eq!(
            Incoming::parse("{").map_err(|e| e.code),
            Err(code::PARSE_ERROR)
        );
    }
}
