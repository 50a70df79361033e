//! One ACP session: a tack session started in the editor's folder, its
//! events translated into `session/update`s, its permission asks put to the
//! editor, and each `session/prompt` answered when its turn ends.
//!
//! A prompt is matched to its turn by the user message's uuid (the turn's
//! result echoes it), so prompts the editor queues behind a running turn are
//! each answered at their own end. `session/cancel` answers every open
//! prompt `cancelled` at once and interrupts the turn, dropping the queued
//! ones; the turn's own end comes later and finds nobody waiting.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    AvailableCommand, AvailableCommandInput, AvailableCommandsUpdate, ConfigOptionUpdate,
    CurrentModeUpdate, PromptResponse, RequestPermissionRequest, SessionConfigOption, SessionId,
    SessionModeState, SessionUpdate, StopReason, ToolCallUpdate, UnstructuredCommandInput,
};
use tack_protocol::PermissionMode;
use tack_runtime::{
    AskAnswer, ClientFiles, ClientTerminals, Env, LoopEvent, Op, Place, RuntimeEvent,
    RuntimeEvents, RuntimeHandle, SessionChoice, SessionOptions, TurnEnd, UserInput,
};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::client_fs::{EditorFiles, FsCapabilities};
use crate::modes::session_modes;
use crate::peer::{self, Peer, internal, invalid_params};
use crate::permission;
use crate::terminal::EditorTerminal;
use crate::updates::Translator;

type Answer = oneshot::Sender<Result<PromptResponse, Error>>;
/// The session's translation, shared with the editor's terminal.
type Shared = Arc<Mutex<Translator>>;

fn lock(t: &Shared) -> std::sync::MutexGuard<'_, Translator> {
    t.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
type Prompts = Arc<Mutex<HashMap<String, Answer>>>;

/// A running session.
#[derive(Debug)]
pub struct Session {
    pub id: String,
    /// The slash commands a prompt may start with, as ACP's
    /// `available_commands_update` lists them.
    pub commands: SessionUpdate,
    handle: RuntimeHandle,
    prompts: Prompts,
    /// `session/close`: the event pump stops, which ends the session.
    closed: CancellationToken,
    /// The mode and the model its config options show chosen.
    chosen: Mutex<Chosen>,
    /// The model it started with (the model option's `default`).
    start_model: String,
    /// It may switch to `bypassPermissions`.
    bypass: bool,
}

/// What the config options show chosen.
#[derive(Debug)]
struct Chosen {
    mode: PermissionMode,
    /// The model option's value (`default`, an alias, a model id).
    model: String,
}

/// What `session/new` and `session/load` need to open one.
#[derive(Debug)]
pub struct Opening {
    pub cwd: PathBuf,
    pub choice: SessionChoice,
    /// The client's MCP servers as an `--mcp-config` value.
    pub mcp_config: Option<String>,
    /// What the client's file system offers.
    pub fs: FsCapabilities,
    /// The client offers terminals (Bash runs in them).
    pub terminal: bool,
    /// Send the conversation so far as updates first (`session/load`).
    pub replay: bool,
    /// Copy the conversation into a new session (`session/fork`).
    pub fork: bool,
}

/// A session opened.
#[derive(Debug)]
pub struct Opened {
    pub session: Arc<Session>,
}

/// Starts the session and its event pump. A resumed conversation is sent
/// first, as updates, before the answer (`session/load`).
pub async fn open(peer: &Peer, opening: Opening) -> Result<Opened, Error> {
    let failed = |e: &dyn std::fmt::Display| internal(e.to_string());
    let place = Place::new(opening.cwd.clone(), Env::from_process()).map_err(|e| failed(&e))?;
    let loaded = tack_runtime::load_settings_from(&place, None, None).map_err(|e| failed(&e))?;
    let mut options = SessionOptions::default();
    // The editor is the person who answers prompts.
    options.permissions.prompts = true;
    options.conversation.session = opening.choice;
    options.conversation.fork = opening.fork;
    options.extensions.mcp_config.extend(opening.mcp_config);
    let session_id = Arc::new(OnceLock::new());
    if opening.fs != FsCapabilities::default() {
        let files = EditorFiles {
            peer: peer.clone(),
            session_id: session_id.clone(),
            caps: opening.fs,
        };
        options.extensions.client_files = Some(ClientFiles(Arc::new(files)));
    }
    let translator = Arc::new(Mutex::new(Translator::new(opening.cwd)));
    if opening.terminal {
        let terminal = EditorTerminal {
            peer: peer.clone(),
            session_id: session_id.clone(),
            translator: translator.clone(),
        };
        options.extensions.client_terminal = Some(ClientTerminals(Arc::new(terminal)));
    }
    let runtime = tack_runtime::start(place, &loaded, options)
        .await
        .map_err(|e| failed(&e))?;
    let id = runtime.info().session_id.clone();
    let _ = session_id.set(id.clone());
    let mode = runtime.info().permission_mode;
    let commands = available_commands(&runtime.info().extensions.slash_commands);
    for message in runtime.messages().iter().filter(|_| opening.replay) {
        for update in lock(&translator).message(message, false) {
            peer::notify(peer, &id, update);
        }
    }
    let start_model = runtime.info().model.clone();
    let (handle, events) = runtime.spawn();
    let session = Arc::new(Session {
        id: id.clone(),
        commands,
        handle,
        prompts: Arc::default(),
        closed: CancellationToken::new(),
        chosen: Mutex::new(Chosen {
            mode,
            model: "default".to_owned(),
        }),
        start_model,
        bypass: mode == PermissionMode::BypassPermissions,
    });
    tokio::spawn(pump(peer.clone(), session.clone(), events, translator));
    Ok(Opened { session })
}

impl Session {
    /// Runs `input` as a turn; the answer is the prompt's result.
    pub async fn prompt(&self, mut input: UserInput) -> Result<PromptResponse, Error> {
        let uuid = uuid::Uuid::new_v4().to_string();
        input.uuid = Some(uuid.clone());
        let (tx, rx) = oneshot::channel();
        self.lock().insert(uuid, tx);
        self.handle
            .submit(input)
            .map_err(|_| internal("the session has ended"))?;
        rx.await
            .unwrap_or_else(|_| Err(internal("the session has ended")))
    }

    /// Every open prompt answers `cancelled` now; the turn stops.
    pub fn cancel(&self) {
        let open: Vec<_> = self.lock().drain().map(|(_, tx)| tx).collect();
        for tx in open {
            let _ = tx.send(Ok(PromptResponse::new(StopReason::Cancelled)));
        }
        // Its reply (the turn's end) is not awaited: the prompt has its answer.
        drop(self.handle.interrupt_with_receipt(true));
    }

    /// `session/close`: cancelled as by `session/cancel`, then ended (its
    /// events are dropped, which ends the runtime's task).
    pub fn close(&self) {
        self.cancel();
        self.closed.cancel();
    }

    pub async fn set_mode(&self, mode: &str) -> Result<(), Error> {
        let mode = mode
            .parse::<PermissionMode>()
            .map_err(|e| invalid_params(e.to_string()))?;
        match self.handle.set_permission_mode(mode).await {
            Ok(Ok(())) => {
                self.chosen().mode = mode;
                Ok(())
            }
            Ok(Err(e)) => Err(invalid_params(e.to_string())),
            Err(_) => Err(internal("the session has ended")),
        }
    }

    /// The model option's choice `value` (`default`: the model it started
    /// with), from the next turn on.
    pub fn set_model(&self, value: &str) -> Result<(), Error> {
        if !crate::config::is_model(value, &self.start_model) {
            let why = format!("Invalid value for config option model: {value}");
            return Err(invalid_params(why));
        }
        let model = (value != "default").then(|| value.to_owned());
        (self.handle.send(Op::SetModel(model))).map_err(|_| internal("the session has ended"))?;
        self.chosen().model = value.to_owned();
        Ok(())
    }

    /// The `modes` object of the answers that open it.
    pub fn modes(&self) -> SessionModeState {
        session_modes(self.chosen().mode, self.bypass)
    }

    /// Its config options: the mode and the model, as chosen now.
    pub fn config_options(&self) -> Vec<SessionConfigOption> {
        let model = self.chosen().model.clone();
        crate::config::options(&self.modes(), &model, &self.start_model)
    }

    /// The editor's mode menu and config options follow a mode the session
    /// switched to itself (a permission answer's).
    fn mode_switched(&self, peer: &Peer, mode: PermissionMode) {
        self.chosen().mode = mode;
        let update = CurrentModeUpdate::new(mode.as_str());
        peer::send(peer, &self.id, SessionUpdate::CurrentModeUpdate(update));
        let options = ConfigOptionUpdate::new(self.config_options());
        peer::send(peer, &self.id, SessionUpdate::ConfigOptionUpdate(options));
    }

    fn chosen(&self) -> std::sync::MutexGuard<'_, Chosen> {
        self.chosen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Answer>> {
        self.prompts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Reads the session's events until it ends.
async fn pump(peer: Peer, session: Arc<Session>, mut events: RuntimeEvents, t: Shared) {
    let update = |update| peer::notify(&peer, &session.id, update);
    loop {
        let event = tokio::select! {
            event = events.next() => event,
            () = session.closed.cancelled() => None,
        };
        let Some(event) = event else { break };
        match &event {
            RuntimeEvent::PermissionRequest(request) => {
                let mut t = lock(&t);
                if let Some(call) = t.before_permission(request) {
                    update(call);
                }
                let call =
                    serde_json::from_value::<ToolCallUpdate>(t.permission_tool_call(request));
                drop(t);
                let (peer, answers, request) = (peer.clone(), events.answers(), request.clone());
                let (id, session) = (SessionId::new(session.id.as_str()), session.clone());
                tokio::spawn(async move {
                    let outcome = match call {
                        Ok(call) => {
                            let options = permission::options(&request);
                            let ask = RequestPermissionRequest::new(id.clone(), call, options);
                            peer.send_request(ask).block_task().await
                        }
                        Err(e) => Err(internal(e.to_string())),
                    };
                    let answer = permission::answer(&request, &outcome);
                    // The editor's mode menu follows, as after `session/set_mode`.
                    let mode = permission::mode_set(&answer);
                    // Withdrawn meanwhile (the turn was cancelled): nothing waits.
                    let _ = answers.answer(request.id, AskAnswer::Permission(answer));
                    if let Some(mode) = mode {
                        session.mode_switched(&peer, mode);
                    }
                });
            }
            RuntimeEvent::TurnEnded(end) => {
                if let Some(usage) = lock(&t).usage(&end.record) {
                    peer::send(&peer, &session.id, usage);
                }
                let waiting = (end.record.user_message_uuid.as_ref())
                    .and_then(|uuid| session.lock().remove(uuid));
                if let Some(tx) = waiting {
                    let _ = tx.send(stop_reason(end));
                }
            }
            RuntimeEvent::Ended => break,
            // Sent under the lock: a terminal shown meanwhile comes after
            // its call's announcement.
            other => {
                // The model entered plan mode: the editor hears it first, as
                // the adapter's PostToolUse hook tells it.
                if entered_plan_mode(other) {
                    session.mode_switched(&peer, PermissionMode::Plan);
                }
                lock(&t).event(other).into_iter().for_each(update);
            }
        }
    }
    // The session is gone: whoever still waits hears so.
    for (_, tx) in session.lock().drain() {
        let _ = tx.send(Err(internal("the session has ended")));
    }
}

/// Whether `event` ends the main thread's EnterPlanMode call, done.
fn entered_plan_mode(event: &RuntimeEvent) -> bool {
    let RuntimeEvent::Loop(LoopEvent::ToolResults(results)) = event else {
        return false;
    };
    (results.results.iter()).any(|r| r.tool_name == "EnterPlanMode" && !r.is_error)
}

/// Slash commands as ACP's `available_commands_update`.
fn available_commands(commands: &[tack_runtime::SlashCommand]) -> SessionUpdate {
    let commands = commands
        .iter()
        .map(|c| {
            let hint = (!c.argument_hint.is_empty()).then(|| {
                AvailableCommandInput::Unstructured(UnstructuredCommandInput::new(
                    c.argument_hint.as_str(),
                ))
            });
            AvailableCommand::new(c.name.as_str(), c.description.as_str()).input(hint)
        })
        .collect();
    SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(commands))
}

/// A turn's end as the prompt's answer, as Claude Code's adapter reads a
/// result: max tokens and turn limits are stop reasons, other failures are
/// errors carrying what went wrong.
fn stop_reason(end: &TurnEnd) -> Result<PromptResponse, Error> {
    let record = &end.record;
    let reason = match (record.subtype.as_str(), record.stop_reason.as_deref()) {
        (_, Some("max_tokens")) => StopReason::MaxTokens,
        ("error_max_turns" | "error_max_budget_usd", _) => StopReason::MaxTurnRequests,
        _ if end.ok => StopReason::EndTurn,
        _ => {
            let why = end
                .error_line
                .clone()
                .or_else(|| record.result.clone())
                .unwrap_or_else(|| record.subtype.clone());
            return Err(internal(why));
        }
    };
    Ok(PromptResponse::new(reason))
}
