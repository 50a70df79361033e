//! The terminal UI on a session that runs in another process (`tack
//! attach`): it starts from what the session says on attaching, and leaving
//! it detaches (the session goes on).
//!
//! On attaching the screen shows the conversation so far: the transcript
//! up to the live turn, rendered as `/resume` renders a conversation, then
//! the live turn's events as if they came now, then the questions still open
//! as dialogs; live events follow. Detaching (← on an empty prompt, `/exit`,
//! Ctrl-D, Ctrl-C twice) drops the handle and the events and nothing else:
//! no interrupt, no end of input.

use std::collections::HashSet;
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use tack_runtime::{
    LoopEvent, PermissionMode, RuntimeEvent, RuntimeEvents, RuntimeHandle, SessionInfo,
};
use tack_tui::{NoticeLevel, StatusPatch, UiAction, UiEvent};

use super::super::map::replay;
use super::{Driver, Internal, Slot};

/// A session to drive from here: the connection, and what the session said
/// on attaching.
pub struct Joined {
    pub handle: RuntimeHandle,
    pub events: RuntimeEvents,
    /// The session's `system/init`; `None` until it has started working.
    pub info: Option<SessionInfo>,
    /// Asks still open (permission requests, hook callbacks).
    pub asks: Vec<RuntimeEvent>,
    /// A turn runs (its calls without results are running, not cut off).
    pub running: bool,
    /// The live work's events the transcript does not hold yet.
    pub turn: Vec<RuntimeEvent>,
    /// The background job's id (what `tack attach` takes).
    pub job: String,
    /// The job's session id, for a session that has not said its own yet.
    pub session_id: Option<String>,
}

/// Why an attached terminal leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Leaving {
    /// The user detached.
    Detached,
    /// The session ended.
    Ended,
    /// The connection closed without the session saying it ended.
    Lost,
}

/// The attached session's job, and why the terminal leaves once it does.
#[derive(Debug)]
pub(super) struct Attachment {
    job: String,
    leaving: Option<Leaving>,
}

impl Driver {
    /// Drives the UI on `joined` until the user detaches or the session goes.
    pub async fn attach(
        mut self,
        joined: Joined,
        mut actions: Vec<UiAction>,
    ) -> anyhow::Result<ExitCode> {
        actions.extend(self.join(joined).await);
        self.index_files();
        self.serve(actions).await
    }

    /// Shows the conversation so far, the live turn and the open asks, then
    /// forwards the session's events.
    async fn join(&mut self, joined: Joined) -> Vec<UiAction> {
        let Joined {
            handle,
            events,
            info,
            asks,
            running,
            turn,
            job,
            session_id,
        } = joined;
        self.app.set_detachable(true);
        let mut shown = match &info {
            Some(info) => self.conversation_so_far(info, running, &turn),
            // Not started yet, so no turn is live: what it has is history
            // (a resumed session's conversation).
            None => match handle.conversation().await {
                Ok(messages) => replay(&messages, true),
                Err(_) => Vec::new(),
            },
        };
        shown.push(UiEvent::Notice {
            level: NoticeLevel::Info,
            text: format!(
                "Attached to background session {job} · ← on an empty prompt detaches (it keeps running)"
            ),
        });
        self.attachment = Some(Attachment { job, leaving: None });
        let info = info.unwrap_or_else(|| self.not_started(session_id));
        shown.push(UiEvent::Status(StatusPatch {
            model: Some(info.model.clone()),
            context_window: Some(tack_api::model_limits(&info.model).context_window),
            permission_mode: Some(info.permission_mode),
            session_id: Some(info.session_id.clone()),
            ..StatusPatch::default()
        }));
        self.model = info.model.clone();
        self.forward(events);
        self.slot = Slot::Ready {
            handle,
            info: Box::new(info),
        };
        let mut actions = self.ui(shown);
        // The turn's own asks are shown from `asks`, which has the open ones.
        let live = turn.into_iter().filter(|e| !is_ask(e)).chain(asks);
        for event in live {
            actions.extend(self.runtime_event(event));
        }
        self.refresh_context();
        actions
    }

    /// The transcript's conversation before the live turn, as history.
    fn conversation_so_far(
        &self,
        info: &SessionInfo,
        running: bool,
        turn: &[RuntimeEvent],
    ) -> Vec<UiEvent> {
        let Some(path) = info.transcript_path.as_ref().filter(|p| p.exists()) else {
            return Vec::new();
        };
        let live: HashSet<String> = turn.iter().filter_map(record_uuid).collect();
        match tack_runtime::load_before(path, &live) {
            Ok(mut loaded) => {
                // The loader answers calls left without results; in a
                // running turn they are still running.
                if running {
                    loaded.reopen_last_tool_uses();
                }
                replay(&loaded.messages, !running)
            }
            Err(e) => vec![UiEvent::Notice {
                level: NoticeLevel::Warning,
                text: format!("Could not read the conversation so far: {e}"),
            }],
        }
    }

    /// What is known of a session that has not started working yet (its
    /// `Started` event will say the rest).
    fn not_started(&self, session_id: Option<String>) -> SessionInfo {
        SessionInfo {
            session_id: session_id.unwrap_or_default(),
            cwd: self.place.cwd.clone(),
            model: self.model.clone(),
            tools: Vec::new(),
            permission_mode: PermissionMode::Default,
            api_key_source: String::new(),
            api_provider: String::new(),
            transcript_path: None,
            resumed: false,
            mcp_servers: Vec::new(),
            version: String::new(),
            extensions: Default::default(),
        }
    }

    /// Whether this terminal is attached to a session of another process.
    pub(super) fn is_attached(&self) -> bool {
        self.attachment.is_some()
    }

    /// The session ended, or its connection closed: say so and leave.
    pub(super) fn attached_gone(&mut self, why: Leaving) {
        if let Some(attachment) = &mut self.attachment
            && attachment.leaving.is_none()
        {
            attachment.leaving = Some(why);
            self.exit = Some(match why {
                Leaving::Detached | Leaving::Ended => ExitCode::SUCCESS,
                Leaving::Lost => ExitCode::from(1),
            });
        }
    }

    /// Leaves an attached session: the terminal restored, the connection
    /// dropped (the session goes on unless it ended), one line said.
    pub(super) async fn leave_attached(mut self) -> anyhow::Result<ExitCode> {
        self.attached_gone(Leaving::Detached);
        tack_tui::draw(&mut self.app, &mut self.term)?;
        self.term.erase_live()?;
        self.keys = None;
        self.guard = None;
        // Dropping the handle and (with the forwarding task) the events
        // detaches; nothing is sent.
        self.slot = Slot::Starting;
        let Some(attachment) = self.attachment.take() else {
            return Ok(self.exit.unwrap_or(ExitCode::SUCCESS));
        };
        let id = tack_sys::terminal_text::visible(&attachment.job).into_owned();
        let tack = crate::self_command::tack_command();
        let line = match attachment.leaving.unwrap_or(Leaving::Detached) {
            Leaving::Detached => format!("detached · {id} still running · {tack} attach {id}"),
            Leaving::Ended => format!("background session {id} ended"),
            Leaving::Lost => {
                format!("lost the connection to background session {id} · {tack} agents")
            }
        };
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
        Ok(self.exit.unwrap_or(ExitCode::SUCCESS))
    }

    /// Sends the session's events to the loop, then that they ended.
    pub(super) fn forward(&self, mut events: RuntimeEvents) {
        let (tx, generation) = (self.tx.clone(), self.generation);
        tokio::spawn(async move {
            while let Some(event) = events.next().await {
                if tx.send(Internal::Runtime(generation, event)).is_err() {
                    return;
                }
            }
            let _ = tx.send(Internal::Closed(generation));
        });
    }

    /// A command an attached terminal does not run: `/resume` would leave
    /// the session, `/bg` it is in the background already.
    pub(super) fn not_when_attached(&mut self, what: &str) -> Vec<UiAction> {
        self.app.handle_event(
            UiEvent::Notice {
                level: NoticeLevel::Warning,
                text: format!(
                    "{what} is not available while attached to a background session: ← on an empty prompt detaches"
                ),
            },
            Instant::now(),
        )
    }
}

/// An ask of the session (shown from the open asks, not from the turn).
fn is_ask(event: &RuntimeEvent) -> bool {
    matches!(
        event,
        RuntimeEvent::PermissionRequest(_)
            | RuntimeEvent::HookCallback(_)
            | RuntimeEvent::AskWithdrawn { .. }
    )
}

/// The transcript record an event of the live turn shows, if any.
fn record_uuid(event: &RuntimeEvent) -> Option<String> {
    match event {
        RuntimeEvent::Loop(LoopEvent::AssistantMessage(a)) => Some(a.uuid.clone()),
        RuntimeEvent::Loop(LoopEvent::ToolResults(r)) => Some(r.uuid.clone()),
        RuntimeEvent::Input(input) => input.uuid.clone(),
        _ => None,
    }
}
