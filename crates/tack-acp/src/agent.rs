//! The agent's methods: `initialize`, `authenticate`, `session/new`,
//! `session/load`, `session/prompt`, `session/set_mode`, and the
//! `session/cancel` notification. Each only translates: the sessions are
//! tack's (`crate::session`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tack_runtime::{SessionChoice, UserInput};

use crate::client_fs::FsCapabilities;
use crate::rpc::{Peer, RpcError, code};
use crate::session::{self, Opening, Session};

/// The ACP version tack speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// The agent: its connection and its open sessions.
#[derive(Debug)]
pub struct Agent {
    pub peer: Peer,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    /// What `initialize` said the client's file system offers.
    fs: Mutex<FsCapabilities>,
}

impl Agent {
    pub fn new(peer: Peer) -> Agent {
        Agent {
            peer,
            sessions: Mutex::default(),
            fs: Mutex::default(),
        }
    }

    /// The answer to one request.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        match method {
            "initialize" => {
                let caps = FsCapabilities::of(&params["clientCapabilities"]);
                *self
                    .fs
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = caps;
                Ok(initialize(credentials_configured()))
            }
            // Nothing to log in to: a key or a provider comes from the
            // environment and settings, as for `tack -p`.
            "authenticate" => Ok(json!({})),
            "session/new" => self.open(&params, SessionChoice::New { id: None }).await,
            "session/load" => {
                let id = text(&params, "sessionId")?;
                let opened = self.open(&params, SessionChoice::Resume(id)).await?;
                Ok(json!({"modes": opened["modes"]}))
            }
            "session/prompt" => {
                let session = self.session(&params)?;
                let message = crate::prompt::user_message(&params["prompt"]).ok_or_else(|| {
                    RpcError::invalid_params("`prompt` is a list of content blocks")
                })?;
                let mut input = UserInput::text("");
                input.message = message;
                session.prompt(input).await
            }
            "session/set_mode" => {
                let session = self.session(&params)?;
                let mode = text(&params, "modeId")?;
                session.set_mode(&mode).await?;
                self.peer.notify(
                    "session/update",
                    json!({"sessionId": session.id, "update": {"sessionUpdate": "current_mode_update", "currentModeId": mode}}),
                );
                Ok(json!({}))
            }
            other => Err(RpcError {
                code: code::METHOD_NOT_FOUND,
                message: format!("Method not found: {other}"),
            }),
        }
    }

    /// What follows an answer: a session just opened lists its commands
    /// (after the answer, so the client knows the session).
    /// `loaded`: the id `session/load` named.
    pub fn after(&self, method: &str, answer: &Result<Value, RpcError>, loaded: Option<&str>) {
        let id = match (method, answer) {
            ("session/new", Ok(answer)) => answer["sessionId"].as_str(),
            ("session/load", Ok(_)) => loaded,
            _ => None,
        };
        if let Some(session) = id.and_then(|id| self.lock().get(id).cloned()) {
            let id = &session.id;
            let update = json!({"sessionUpdate": "available_commands_update", "availableCommands": session.commands});
            self.peer
                .notify("session/update", json!({"sessionId": id, "update": update}));
        }
    }

    /// A notification from the client: `session/cancel`; others are ignored.
    pub fn notification(&self, method: &str, params: &Value) {
        if method == "session/cancel"
            && let Ok(session) = self.session(params)
        {
            session.cancel();
        }
    }

    /// Cancels every session's open prompts.
    pub fn cancel_all(&self) {
        let sessions: Vec<Arc<Session>> = self.lock().values().cloned().collect();
        for session in sessions {
            session.cancel();
        }
    }

    async fn open(&self, params: &Value, choice: SessionChoice) -> Result<Value, RpcError> {
        let cwd = PathBuf::from(text(params, "cwd")?);
        if !cwd.is_absolute() {
            return Err(RpcError::invalid_params("`cwd` must be an absolute path"));
        }
        let opening = Opening {
            cwd,
            choice,
            mcp_config: crate::mcp::mcp_config(&params["mcpServers"]),
            fs: *self
                .fs
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        };
        let opened = session::open(&self.peer, opening).await?;
        let id = opened.session.id.clone();
        self.lock().insert(id.clone(), opened.session);
        Ok(json!({"sessionId": id, "modes": opened.modes}))
    }

    fn session(&self, params: &Value) -> Result<Arc<Session>, RpcError> {
        let id = text(params, "sessionId")?;
        self.lock()
            .get(&id)
            .cloned()
            .ok_or_else(|| RpcError::invalid_params(format!("Session not found: {id}")))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn text(params: &Value, key: &str) -> Result<String, RpcError> {
    params
        .get(key)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| RpcError::invalid_params(format!("`{key}` is required")))
}

/// Whether the environment names a key or a provider (what `tack -p`
/// would use); settings' `apiKeyHelper` is not looked at.
fn credentials_configured() -> bool {
    [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
    ]
    .iter()
    .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()))
}

/// The answer to `initialize`.
pub fn initialize(credentials: bool) -> Value {
    let auth_methods = match credentials {
        true => json!([]),
        false => json!([{
            "id": "api-key",
            "name": "API key",
            "description": "Set ANTHROPIC_API_KEY (or a provider: CLAUDE_CODE_USE_BEDROCK, CLAUDE_CODE_USE_VERTEX) in the editor's environment for the agent, then restart it",
        }]),
    };
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": {
            "loadSession": true,
            "promptCapabilities": {"image": true, "audio": false, "embeddedContext": true},
            "mcpCapabilities": {"http": true, "sse": true},
        },
        "agentInfo": {"name": "tack", "title": "tack", "version": env!("CARGO_PKG_VERSION")},
        "authMethods": auth_methods,
    })
}
