//! The agent's methods: `initialize`, `authenticate`, `session/new`,
//! `session/load`, `session/resume`, `session/fork`, `session/list`,
//! `session/prompt`, `session/set_mode`, `session/close`, and the
//! `session/cancel` notification. Each only translates: the sessions are
//! tack's (`crate::session`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use agent_client_protocol::Error;
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, AuthMethod, AuthMethodAgent, ClientCapabilities, CloseSessionRequest,
    CloseSessionResponse, ConfigOptionUpdate, CurrentModeUpdate, ForkSessionRequest,
    ForkSessionResponse, Implementation, InitializeRequest, InitializeResponse,
    ListSessionsRequest, ListSessionsResponse, LoadSessionRequest, LoadSessionResponse,
    McpCapabilities, McpServer, NewSessionRequest, NewSessionResponse, PromptCapabilities,
    PromptRequest, PromptResponse, ResumeSessionRequest, ResumeSessionResponse,
    SessionCapabilities, SessionCloseCapabilities, SessionForkCapabilities, SessionId, SessionInfo,
    SessionListCapabilities, SessionResumeCapabilities, SessionUpdate,
    SetSessionConfigOptionRequest, SetSessionConfigOptionResponse, SetSessionModeRequest,
    SetSessionModeResponse,
};
use tack_runtime::{Env, Place, SessionChoice, UserInput};

use crate::client_fs::FsCapabilities;
use crate::peer::{self, Peer, invalid_params};
use crate::session::{self, Opening, Session};

/// The agent: its open sessions and what the client offers.
#[derive(Debug, Default)]
pub struct Agent {
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    /// What `initialize` said the client offers.
    client: Mutex<ClientCapabilities>,
}

impl Agent {
    /// `initialize`: what tack offers; the client's capabilities are kept.
    pub fn initialize(&self, request: InitializeRequest) -> InitializeResponse {
        *self
            .client
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = request.client_capabilities;
        initialize(credentials_configured())
    }

    pub async fn new_session(
        &self,
        peer: &Peer,
        request: NewSessionRequest,
    ) -> Result<NewSessionResponse, Error> {
        let choice = SessionChoice::New { id: None };
        let opened = self
            .open(peer, request.cwd, &request.mcp_servers, choice, Open::New)
            .await?;
        let session = &opened.session;
        Ok(NewSessionResponse::new(session.id.clone())
            .modes(session.modes())
            .config_options(session.config_options()))
    }

    pub async fn load_session(
        &self,
        peer: &Peer,
        request: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, Error> {
        let choice = SessionChoice::Resume(request.session_id.0.to_string());
        let opened = self
            .open(
                peer,
                request.cwd,
                &request.mcp_servers,
                choice,
                Open::Replay,
            )
            .await?;
        let session = &opened.session;
        Ok(LoadSessionResponse::new()
            .modes(session.modes())
            .config_options(session.config_options()))
    }

    /// `session/resume`: `session/load` without the conversation sent
    /// back; a session open here already is answered as it is.
    pub async fn resume_session(
        &self,
        peer: &Peer,
        request: ResumeSessionRequest,
    ) -> Result<ResumeSessionResponse, Error> {
        if let Ok(session) = self.session(&request.session_id) {
            return Ok(ResumeSessionResponse::new()
                .modes(session.modes())
                .config_options(session.config_options()));
        }
        let choice = SessionChoice::Resume(request.session_id.0.to_string());
        let opened = self
            .open(peer, request.cwd, &request.mcp_servers, choice, Open::New)
            .await?;
        let session = &opened.session;
        Ok(ResumeSessionResponse::new()
            .modes(session.modes())
            .config_options(session.config_options()))
    }

    /// `session/fork`: a new session whose conversation (and transcript) is
    /// a copy of session `sessionId`'s, as `tack --resume <id>
    /// --fork-session` makes it; the original is left as it is, open or not.
    pub async fn fork_session(
        &self,
        peer: &Peer,
        request: ForkSessionRequest,
    ) -> Result<ForkSessionResponse, Error> {
        let choice = SessionChoice::Resume(request.session_id.0.to_string());
        let opened = self
            .open(peer, request.cwd, &request.mcp_servers, choice, Open::Fork)
            .await?;
        let session = &opened.session;
        Ok(ForkSessionResponse::new(session.id.clone())
            .modes(session.modes())
            .config_options(session.config_options()))
    }

    /// `session/list`, as the adapter answers it: tack's sessions of
    /// `cwd`, or of every folder when it names none, newest first, each
    /// with the folder it ran in (one that names none is left out) and
    /// titled by its first prompt; all in one page.
    pub fn list_sessions(
        &self,
        request: ListSessionsRequest,
    ) -> Result<ListSessionsResponse, Error> {
        let failed = |e: &dyn std::fmt::Display| peer::internal(e.to_string());
        let here = std::env::current_dir().map_err(|e| failed(&e))?;
        let cwd = request.cwd.clone().unwrap_or(here);
        let place = Place::new(cwd.clone(), Env::from_process()).map_err(|e| failed(&e))?;
        let store = place.session_store();
        let found = match &request.cwd {
            Some(cwd) => store.list_sessions(cwd),
            None => store.list_all_sessions(),
        };
        let sessions = found
            .map_err(|e| failed(&e))?
            .iter()
            .filter_map(|s| {
                let head = tack_runtime::session_head(&s.path);
                let cwd = request.cwd.clone().or(head.cwd)?;
                let title = head.first_prompt.as_deref().map(title);
                Some(
                    SessionInfo::new(s.session_id.clone(), cwd)
                        .title(title)
                        .updated_at(s.modified_display()),
                )
            })
            .collect();
        Ok(ListSessionsResponse::new(sessions))
    }

    pub async fn prompt(&self, request: PromptRequest) -> Result<PromptResponse, Error> {
        let session = self.session(&request.session_id)?;
        let prompt =
            serde_json::to_value(&request.prompt).map_err(|e| peer::internal(e.to_string()))?;
        let message = crate::prompt::user_message(&prompt)
            .ok_or_else(|| invalid_params("`prompt` is a list of content blocks"))?;
        let mut input = UserInput::text("");
        input.message = message;
        session.prompt(input).await
    }

    pub async fn set_mode(
        &self,
        peer: &Peer,
        request: SetSessionModeRequest,
    ) -> Result<SetSessionModeResponse, Error> {
        let session = self.session(&request.session_id)?;
        let mode = request.mode_id;
        session.set_mode(&mode.0).await?;
        let update = SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(mode));
        peer::send(peer, &session.id, update);
        // As the adapter does: the config options follow.
        let options = ConfigOptionUpdate::new(session.config_options());
        peer::send(
            peer,
            &session.id,
            SessionUpdate::ConfigOptionUpdate(options),
        );
        Ok(SetSessionModeResponse::new())
    }

    /// `session/set_config_option`: the mode (as `session/set_mode`, the
    /// editor hears the mode) or the model (from the next turn); answered
    /// with the options as they are now.
    pub async fn set_config_option(
        &self,
        peer: &Peer,
        request: SetSessionConfigOptionRequest,
    ) -> Result<SetSessionConfigOptionResponse, Error> {
        let session = self.session(&request.session_id)?;
        let config = request.config_id.0.to_string();
        let Some(value) = request.value.as_value_id().map(|v| v.0.to_string()) else {
            let why = format!("Invalid value for config option {config}: not a choice");
            return Err(invalid_params(why));
        };
        match config.as_str() {
            "mode" => {
                session.set_mode(&value).await?;
                let update = CurrentModeUpdate::new(value.clone());
                peer::send(peer, &session.id, SessionUpdate::CurrentModeUpdate(update));
            }
            "model" => session.set_model(&value)?,
            other => return Err(invalid_params(format!("Unknown config option: {other}"))),
        }
        Ok(SetSessionConfigOptionResponse::new(
            session.config_options(),
        ))
    }

    /// What follows the answer to `session/new` or `session/load`: the
    /// session lists its commands (after the answer, so the client knows
    /// the session).
    pub fn opened(&self, peer: &Peer, id: &SessionId) {
        if let Ok(session) = self.session(id) {
            peer::send(peer, &session.id, session.commands.clone());
        }
    }

    /// `session/cancel`.
    pub fn cancel(&self, id: &SessionId) {
        if let Ok(session) = self.session(id) {
            session.cancel();
        }
    }

    /// `session/close`: the session is cancelled, ended and forgotten.
    pub fn close(&self, request: &CloseSessionRequest) -> Result<CloseSessionResponse, Error> {
        let id = &request.session_id;
        let session = (self.lock().remove(&*id.0))
            .ok_or_else(|| invalid_params(format!("Session not found: {}", id.0)))?;
        session.close();
        Ok(CloseSessionResponse::new())
    }

    /// Cancels every session's open prompts.
    pub fn cancel_all(&self) {
        let sessions: Vec<Arc<Session>> = self.lock().values().cloned().collect();
        for session in sessions {
            session.cancel();
        }
    }

    async fn open(
        &self,
        peer: &Peer,
        cwd: std::path::PathBuf,
        mcp_servers: &[McpServer],
        choice: SessionChoice,
        how: Open,
    ) -> Result<session::Opened, Error> {
        if !cwd.is_absolute() {
            return Err(invalid_params("`cwd` must be an absolute path"));
        }
        let servers = serde_json::to_value(mcp_servers).unwrap_or_default();
        let client = self
            .client
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let opening = Opening {
            cwd,
            choice,
            mcp_config: crate::mcp::mcp_config(&servers),
            fs: FsCapabilities::of(&client),
            terminal: client.terminal,
            replay: how == Open::Replay,
            fork: how == Open::Fork,
        };
        let opened = session::open(peer, opening).await?;
        self.lock()
            .insert(opened.session.id.clone(), opened.session.clone());
        Ok(opened)
    }

    fn session(&self, id: &SessionId) -> Result<Arc<Session>, Error> {
        self.lock()
            .get(&*id.0)
            .cloned()
            .ok_or_else(|| invalid_params(format!("Session not found: {}", id.0)))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A session's title as the adapter makes it (`sanitizeTitle`): on one
/// line, at most 256 characters, the last an ellipsis when cut.
fn title(prompt: &str) -> String {
    const MAX: usize = 256;
    let line = prompt.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.chars().count() <= MAX {
        true => line,
        false => line.chars().take(MAX - 1).chain(['…']).collect(),
    }
}

/// How a session is opened: as it is, its conversation sent back
/// (`session/load`), or copied into a new session (`session/fork`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    New,
    Replay,
    Fork,
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
pub fn initialize(credentials: bool) -> InitializeResponse {
    let auth_methods = match credentials {
        true => Vec::new(),
        false => vec![AuthMethod::Agent(
            AuthMethodAgent::new("api-key", "API key").description(
                "Set ANTHROPIC_API_KEY (or a provider: CLAUDE_CODE_USE_BEDROCK, CLAUDE_CODE_USE_VERTEX) in the editor's environment for the agent, then restart it",
            ),
        )],
    };
    // Prompts sent while a turn runs are queued, each answered at its own
    // turn's end (`crate::session`), as the adapter says of itself.
    let queueing = serde_json::json!({"claudeCode": {"promptQueueing": true}});
    let capabilities = AgentCapabilities::new()
        .meta(queueing.as_object().cloned())
        .load_session(true)
        .prompt_capabilities(
            PromptCapabilities::new()
                .image(true)
                .audio(false)
                .embedded_context(true),
        )
        .mcp_capabilities(McpCapabilities::new().http(true).sse(true))
        .session_capabilities(
            SessionCapabilities::new()
                .fork(SessionForkCapabilities::new())
                .list(SessionListCapabilities::new())
                .resume(SessionResumeCapabilities::new())
                .close(SessionCloseCapabilities::new()),
        );
    InitializeResponse::new(ProtocolVersion::V1)
        .agent_capabilities(capabilities)
        .agent_info(Implementation::new("tack", env!("CARGO_PKG_VERSION")).title("tack"))
        .auth_methods(auth_methods)
}
