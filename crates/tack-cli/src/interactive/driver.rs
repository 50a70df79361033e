//! The interactive session's loop: keys, the runtime's events and the
//! results of background work in; the UI drawn after each batch; the UI's
//! actions turned into runtime commands.
//!
//! The runtime is the only thing this talks to for the conversation: it
//! persists, runs hooks and decides permissions. This loop owns what is the
//! front end's: the terminal, which runtime is current (a new one on `/clear`
//! and `/resume`) and permission replies until the user answers. The
//! user's `@` mentions, `!commands` and `#notes` are the runtime's too.

use std::collections::HashMap;
use std::io::{self, Stdout};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use crossterm::event::EventStream;
use futures::StreamExt;
use tack_runtime::{
    AskAnswer, AskId, CommandSource, LoadedSettings, Op, PermissionAnswer, Place, Runtime,
    RuntimeEvent, RuntimeHandle, SessionChoice, SessionInfo, SessionOptions, SessionSnapshot,
    SlashCommand, StartError, UserInput,
};
use tack_tui::commands::MenuEntry;
use tack_tui::input::FileIndex;
use tack_tui::input::external_editor::{edit_in_editor, launch_editor};
use tack_tui::status::StatusLineCommand;
use tack_tui::{
    App, InlineTerminal, NoticeLevel, Prompt, StatusPatch, TerminalGuard, TurnSummary, UiAction,
    UiEvent, WallClock,
};
use tokio::sync::mpsc;

mod attached;
mod background;
mod exit;
mod keybindings;
mod permissions;
mod plugins;
mod rewind;
mod status_line;
mod vim;

use super::info;
use super::map::{EventMap, replay};
use super::status_facts::SessionLabels;
pub use attached::Joined;

/// Claude Code's wait before the Notification hook's `idle_prompt`.
const IDLE_NOTIFICATION: Duration = Duration::from_secs(60);
/// Most messages handled before a frame is drawn (a burst of stream deltas
/// becomes one frame; keys still get their turn).
const BATCH: usize = 64;
/// Files listed for `@` completion.
const MAX_FILES: usize = 50_000;
/// How long exit waits for the session to end (its SessionEnd hooks get 1.5 s).
const END_WAIT: Duration = Duration::from_secs(3);

/// Which runtime is current.
enum Slot {
    /// `tack_runtime::start` is running.
    Starting,
    Ready {
        handle: RuntimeHandle,
        info: Box<SessionInfo>,
    },
    /// The old runtime is ending (`/clear`, `/resume`); `next` starts after its `Ended`.
    Switching { next: SessionChoice },
    /// The session could not start; why.
    Failed(String),
}

/// What background work reports.
// Runtime events are the common case (every stream delta) and go by value,
// as in the runtime's own channel.
#[allow(clippy::large_enum_variant)]
enum Internal {
    Started(u64, Box<Result<Runtime, StartError>>),
    Runtime(u64, RuntimeEvent),
    /// The session's events ended (after `Ended`, or a lost connection).
    Closed(u64),
    Ui(Vec<UiEvent>),
    Files(FileIndex),
    /// The conversation was rewound (see `rewind.rs`).
    Rewound(Box<tack_runtime::ConversationRewound>),
    /// The status line's `refreshInterval` elapsed.
    StatusTick,
    /// `keybindings.json` was written or replaced.
    KeybindingsChanged,
}

/// What the driver starts from (see [`super::run`]).
pub struct Setup {
    pub app: App,
    pub term: InlineTerminal<Stdout>,
    pub guard: TerminalGuard,
    pub place: Place,
    pub loaded: LoadedSettings,
    pub options: SessionOptions,
    pub project_dir: PathBuf,
    /// The model shown until the session has started.
    pub model: String,
    /// Typed for the user at start (`tack "prompt"`).
    pub first_prompt: Option<String>,
    /// `--resume` without an id: open the picker.
    pub pick_session: bool,
    pub notices: Vec<UiEvent>,
    /// Session facts for the status line.
    pub labels: SessionLabels,
}

pub struct Driver {
    app: App,
    term: InlineTerminal<Stdout>,
    guard: Option<TerminalGuard>,
    keys: Option<EventStream>,
    place: Place,
    loaded: LoadedSettings,
    options: SessionOptions,
    project_dir: PathBuf,
    model: String,
    status_line: Option<StatusLineCommand>,
    labels: SessionLabels,
    /// Counts status-line runs: runs overlap (a turn ends while `/model`
    /// changes the model), and only the newest one's line may be shown.
    status_runs: Arc<AtomicU64>,
    tx: mpsc::UnboundedSender<Internal>,
    rx: mpsc::UnboundedReceiver<Internal>,
    slot: Slot,
    generation: u64,
    map: EventMap,
    replies: HashMap<String, AskId>,
    /// Actions for a runtime that is not ready yet.
    waiting: Vec<UiAction>,
    /// The task that hands the UI the last mode change's answer (each one
    /// waits for the one before: the UI must hear them in order).
    mode_answer: Option<tokio::task::JoinHandle<()>>,
    opened: Instant,
    exit: Option<ExitCode>,
    /// Attached to a background session (`tack attach`).
    attachment: Option<attached::Attachment>,
    /// `/bg`: the session to resume in the background once this one ended.
    backgrounding: Option<String>,
    /// The status line's `refreshInterval` timer, while there is one.
    _status_timer: Option<status_line::Timer>,
    /// The watch that reads `keybindings.json` again when it changes.
    _keybindings_watch: Option<keybindings::Watch>,
    /// The vim mode the status line was last told.
    vim_mode: Option<tack_tui::input::VimMode>,
}

impl Driver {
    pub fn new(setup: Setup) -> (Driver, Vec<UiAction>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let status_line = setup
            .loaded
            .settings
            .status_line()
            .and_then(StatusLineCommand::from_settings);
        let mut driver = Driver {
            map: EventMap::default(),
            app: setup.app,
            term: setup.term,
            guard: Some(setup.guard),
            keys: Some(EventStream::new()),
            place: setup.place,
            loaded: setup.loaded,
            options: setup.options,
            project_dir: setup.project_dir,
            model: setup.model,
            status_line,
            labels: setup.labels,
            status_runs: Arc::default(),
            tx,
            rx,
            slot: Slot::Starting,
            generation: 0,
            replies: HashMap::new(),
            waiting: Vec::new(),
            mode_answer: None,
            opened: Instant::now(),
            exit: None,
            attachment: None,
            backgrounding: None,
            _status_timer: None,
            _keybindings_watch: None,
            vim_mode: None,
        };
        driver._status_timer = status_line::Timer::start(driver.status_line.as_ref(), &driver.tx);
        driver._keybindings_watch = keybindings::watch(&driver.place.claude_dir, &driver.tx);
        driver.vim_mode = driver.app.vim_mode();
        let mut actions = driver.ui(setup.notices);
        actions.extend(driver.load_keybindings());
        if let Some(prompt) = setup.first_prompt {
            driver.app.set_input(prompt);
            let enter = crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Enter);
            actions.extend(driver.app.handle_key(enter, Instant::now()));
        }
        if setup.pick_session {
            actions.push(UiAction::ListSessions);
        }
        (driver, actions)
    }

    /// Runs until the user leaves.
    pub async fn run(mut self, actions: Vec<UiAction>) -> anyhow::Result<ExitCode> {
        let choice = match &self.options.conversation.session {
            // `--resume` without an id: a new session, and the picker.
            SessionChoice::Resume(id) if id.is_empty() => SessionChoice::New { id: None },
            other => other.clone(),
        };
        self.start_session(choice);
        self.index_files();
        self.serve(actions).await
    }

    /// The loop: keys, events and background work until the user leaves.
    async fn serve(mut self, mut actions: Vec<UiAction>) -> anyhow::Result<ExitCode> {
        loop {
            let mut queue = std::mem::take(&mut actions);
            while !queue.is_empty() && self.exit.is_none() {
                let action = queue.remove(0);
                queue.extend(self.act(action).await?);
            }
            if self.exit.is_some() {
                break;
            }
            tack_tui::draw(&mut self.app, &mut self.term)?;
            let tick = self.app.next_tick();
            tokio::select! {
                key = next_key(&mut self.keys) => match key {
                    Some(Ok(event)) => {
                        actions = self.app.handle_terminal_event(event, Instant::now());
                        self.after_key();
                    }
                    Some(Err(e)) => return Err(e.into()),
                    // The terminal is gone.
                    None => self.exit = Some(ExitCode::SUCCESS),
                },
                Some(msg) = self.rx.recv() => {
                    actions = self.internal(msg);
                    for _ in 1..BATCH {
                        match self.rx.try_recv() {
                            Ok(msg) => actions.extend(self.internal(msg)),
                            Err(_) => break,
                        }
                    }
                }
                () = sleep_until(tick) => self.app.tick(Instant::now()),
            }
            if self.exit.is_some() {
                break;
            }
        }
        if self.is_attached() {
            return self.leave_attached().await;
        }
        self.shutdown().await
    }

    /// Feeds events to the UI; returns what it asks for.
    fn ui(&mut self, events: impl IntoIterator<Item = UiEvent>) -> Vec<UiAction> {
        let mut actions = Vec::new();
        for event in events {
            actions.extend(self.app.handle_event(event, Instant::now()));
        }
        actions
    }

    fn notice(&mut self, level: NoticeLevel, text: impl Into<String>) -> Vec<UiAction> {
        self.ui([UiEvent::Notice {
            level,
            text: text.into(),
        }])
    }

    fn start_session(&mut self, choice: SessionChoice) {
        self.generation += 1;
        let generation = self.generation;
        let mut options = self.options.clone();
        options.conversation.session = choice;
        let (place, loaded, tx) = (self.place.clone(), self.loaded.clone(), self.tx.clone());
        tokio::spawn(async move {
            let result = tack_runtime::start(place, &loaded, options).await;
            let _ = tx.send(Internal::Started(generation, Box::new(result)));
        });
        self.slot = Slot::Starting;
    }

    fn index_files(&self) {
        let (root, tx) = (self.place.cwd.clone(), self.tx.clone());
        tokio::task::spawn_blocking(move || {
            let _ = tx.send(Internal::Files(FileIndex::build(&root, MAX_FILES)));
        });
    }

    fn internal(&mut self, msg: Internal) -> Vec<UiAction> {
        match msg {
            Internal::Started(generation, result) if generation == self.generation => match *result
            {
                Ok(runtime) => self.ready(runtime),
                Err(e) => {
                    let text = format!("The session could not start: {e}");
                    self.slot = Slot::Failed(text.clone());
                    let mut actions = self.notice(NoticeLevel::Error, text);
                    actions.extend(self.flush_waiting());
                    actions
                }
            },
            // A start that was overtaken by another one.
            Internal::Started(..) => Vec::new(),
            Internal::Runtime(generation, event) if generation == self.generation => {
                self.runtime_event(event)
            }
            Internal::Runtime(..) => Vec::new(),
            Internal::Closed(generation) if generation == self.generation => {
                self.attached_gone(attached::Leaving::Lost);
                Vec::new()
            }
            Internal::Closed(_) => Vec::new(),
            Internal::Ui(events) => self.ui(events),
            Internal::Files(index) => {
                self.app.set_file_index(index);
                Vec::new()
            }
            Internal::Rewound(rewound) => self.rewound(*rewound),
            Internal::StatusTick => {
                self.refresh_status_line();
                Vec::new()
            }
            Internal::KeybindingsChanged => self.load_keybindings(),
        }
    }

    /// A runtime has started: show its conversation, then forward its events.
    fn ready(&mut self, runtime: Runtime) -> Vec<UiAction> {
        let runtime = runtime.with_idle_notification(IDLE_NOTIFICATION);
        let info = runtime.info().clone();
        let mut events = replay(runtime.messages(), true);
        if let Some(agent) = &info.extensions.main_agent {
            // Claude Code names the agent in its start-up header.
            events.push(UiEvent::Notice {
                level: NoticeLevel::Info,
                text: format!("@{agent}"),
            });
        }
        if info.resumed {
            events.push(UiEvent::Notice {
                level: NoticeLevel::Info,
                text: format!(
                    "Resumed session {} ({} messages)",
                    info.session_id,
                    runtime.messages().len()
                ),
            });
        }
        self.model = info.model.clone();
        self.app
            .set_custom_commands(&menu_entries(&info.extensions.slash_commands));
        let branch = tack_git::head::head(&info.cwd).map(|head| head.name().to_owned());
        events.push(UiEvent::Status(StatusPatch {
            model: Some(info.model.clone()),
            context_window: Some(tack_api::model_limits(&info.model).context_window),
            session_cost_usd: Some(0.0),
            permission_mode: Some(info.permission_mode),
            git_branch: Some(branch),
            session_id: Some(info.session_id.clone()),
            ..StatusPatch::default()
        }));
        let (handle, runtime_events) = runtime.spawn();
        self.forward(runtime_events);
        self.map = EventMap::default();
        self.replies.clear();
        self.slot = Slot::Ready {
            handle,
            info: Box::new(info),
        };
        let mut actions = self.ui(events);
        self.refresh_context();
        self.refresh_status_line();
        actions.extend(self.flush_waiting());
        actions
    }

    fn flush_waiting(&mut self) -> Vec<UiAction> {
        std::mem::take(&mut self.waiting)
    }

    fn runtime_event(&mut self, event: RuntimeEvent) -> Vec<UiAction> {
        if let (RuntimeEvent::Started(started), Slot::Ready { info, .. }) = (&event, &mut self.slot)
        {
            info.clone_from(started);
        }
        let mut mapped = self.map.map(event);
        if let Some((id, ask)) = mapped.reply {
            self.replies.insert(id, ask);
        }
        if let Some(withdrawn) = mapped.withdrawn {
            // Its dialog closes (another terminal answered, or the turn ended).
            self.replies.retain(|id, ask| {
                if *ask == withdrawn {
                    let id = id.clone();
                    mapped.events.push(UiEvent::PermissionWithdrawn { id });
                }
                *ask != withdrawn
            });
        }
        let mut actions = self.ui(mapped.events);
        if mapped.turn_ended {
            self.refresh_context();
            self.refresh_status_line();
        }
        if mapped.ended && self.is_attached() {
            self.attached_gone(attached::Leaving::Ended);
        } else if mapped.ended {
            self.replies.clear();
            match std::mem::replace(&mut self.slot, Slot::Starting) {
                Slot::Switching { next } => self.start_session(next),
                Slot::Starting | Slot::Ready { .. } | Slot::Failed(_) => {
                    let text = "The session ended.".to_owned();
                    self.slot = Slot::Failed(text.clone());
                    actions.extend(self.notice(NoticeLevel::Error, text));
                }
            }
        }
        actions
    }

    fn handle(&self) -> Option<&RuntimeHandle> {
        match &self.slot {
            Slot::Ready { handle, .. } => Some(handle),
            Slot::Starting | Slot::Switching { .. } | Slot::Failed(_) => None,
        }
    }

    /// An action that needs the runtime while there is none: kept for it, or
    /// answered with the reason there is none.
    fn not_ready(&mut self, action: UiAction) -> Vec<UiAction> {
        let reason = match &self.slot {
            Slot::Starting | Slot::Switching { .. } => {
                self.waiting.push(action);
                return Vec::new();
            }
            Slot::Failed(reason) => reason.clone(),
            Slot::Ready { .. } => "the session is not available".to_owned(),
        };
        match action {
            UiAction::Submit(_) | UiAction::Compact { .. } => self.ui([turn_failed(reason)]),
            _ => self.notice(NoticeLevel::Error, reason),
        }
    }

    /// One UI action, each kind to its handler.
    async fn act(&mut self, action: UiAction) -> anyhow::Result<Vec<UiAction>> {
        Ok(match action {
            UiAction::Submit(prompt) => self.submit(prompt),
            UiAction::RunShell(command) => self.run_shell(command),
            UiAction::AddMemory(note) => self.add_note(note),
            UiAction::Interrupt => self.interrupt(),
            UiAction::SetPermissionMode(mode) => self.set_permission_mode(mode),
            UiAction::AddAllowRule { rule } => self.add_allow_rule(rule),
            UiAction::SetModel(name) => self.set_model(name),
            UiAction::Compact { instructions } => self.compact(instructions),
            UiAction::AnswerPermission { id, answer } => self.answer_permission(&id, answer),
            UiAction::ListSessions => self.list_sessions(),
            UiAction::ListRewindPoints => self.list_rewind_points(),
            UiAction::Rewind { id, restore } => self.rewind(id, restore),
            UiAction::Resume { .. } if self.is_attached() => self.not_when_attached("/resume"),
            UiAction::Resume { session_id } => self.switch(SessionChoice::Resume(session_id)),
            // Answered before the session starts (`super::trust`).
            UiAction::Trust(_) => Vec::new(),
            UiAction::Command { name, args } => self.command(&name, &args).await?,
            UiAction::OpenExternalEditor { text } => self.open_editor(text).await?,
            UiAction::SetEditorMode { vim } => {
                self.save_editor_mode(vim);
                Vec::new()
            }
            UiAction::Exit | UiAction::Detach => {
                self.exit = Some(ExitCode::SUCCESS);
                Vec::new()
            }
        })
    }

    /// `!command`: the runtime runs it and puts it into the conversation;
    /// its output is shown when it is there.
    fn run_shell(&mut self, command: String) -> Vec<UiAction> {
        let Some(handle) = self.handle() else {
            return self.not_ready(UiAction::RunShell(command));
        };
        let ran = handle.run_shell(command);
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let event = match ran.await {
                Ok(run) => UiEvent::Notice {
                    level: NoticeLevel::Info,
                    text: run.shown(),
                },
                Err(_) => UiEvent::Notice {
                    level: NoticeLevel::Error,
                    text: "The command did not run: the session ended.".to_owned(),
                },
            };
            let _ = tx.send(Internal::Ui(vec![event]));
        });
        Vec::new()
    }

    /// `#note`: the runtime writes it to the project's memory file.
    fn add_note(&mut self, note: String) -> Vec<UiAction> {
        let Some(handle) = self.handle() else {
            return self.not_ready(UiAction::AddMemory(note));
        };
        let written = handle.add_note(note);
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let event = match written.await {
                Ok(Ok(file)) => UiEvent::Notice {
                    level: NoticeLevel::Info,
                    text: format!(
                        "Added to {} (read by sessions started from now on)",
                        file.display()
                    ),
                },
                Ok(Err(e)) => UiEvent::Notice {
                    level: NoticeLevel::Error,
                    text: format!("Could not add the note: {e}"),
                },
                Err(_) => UiEvent::Notice {
                    level: NoticeLevel::Error,
                    text: "The note was not added: the session ended.".to_owned(),
                },
            };
            let _ = tx.send(Internal::Ui(vec![event]));
        });
        Vec::new()
    }

    fn set_model(&mut self, name: String) -> Vec<UiAction> {
        let Some(handle) = self.handle() else {
            return self.not_ready(UiAction::SetModel(name));
        };
        let _ = handle.send(Op::SetModel(Some(name.clone())));
        self.options.request.model = Some(name.clone());
        self.model =
            tack_runtime::session_model(&self.options, &self.place.env, &self.loaded.settings);
        let model = self.model.clone();
        let mut actions = self.ui([UiEvent::Status(StatusPatch {
            model: Some(model.clone()),
            context_window: Some(tack_api::model_limits(&model).context_window),
            ..StatusPatch::default()
        })]);
        actions.extend(self.notice(
            NoticeLevel::Info,
            format!("Model set to {model} (from the next turn on)"),
        ));
        self.refresh_status_line();
        actions
    }

    fn compact(&mut self, instructions: Option<String>) -> Vec<UiAction> {
        let Some(handle) = self.handle() else {
            return self.not_ready(UiAction::Compact { instructions });
        };
        let _ = handle.send(Op::Compact { instructions });
        self.ui([UiEvent::TurnStarted])
    }

    fn answer_permission(&mut self, id: &str, answer: tack_tui::PermissionAnswer) -> Vec<UiAction> {
        if let Some(ask) = self.replies.remove(id) {
            let answer = match answer {
                tack_tui::PermissionAnswer::Allow => PermissionAnswer::allow(),
                tack_tui::PermissionAnswer::AllowAlways { rule } => {
                    PermissionAnswer::allow_always(&rule)
                }
                tack_tui::PermissionAnswer::Deny { feedback } => {
                    if feedback.is_none() {
                        self.map.interrupted();
                    }
                    PermissionAnswer::reject(feedback.as_deref())
                }
            };
            if let Some(handle) = self.handle() {
                // Withdrawn meanwhile: the runtime has moved on.
                let _ = handle.answer(ask, AskAnswer::Permission(answer));
            }
        }
        Vec::new()
    }

    /// `/resume`: the sessions of this directory but the current one, for the picker.
    fn list_sessions(&mut self) -> Vec<UiAction> {
        let store = self.place.session_store();
        let cwd = self.place.cwd.clone();
        let current = match &self.slot {
            Slot::Ready { info, .. } => Some(info.session_id.clone()),
            Slot::Starting | Slot::Switching { .. } | Slot::Failed(_) => None,
        };
        let tx = self.tx.clone();
        tokio::task::spawn_blocking(move || {
            let event = match store.list_sessions(&cwd) {
                Ok(mut sessions) => {
                    sessions.retain(|s| Some(&s.session_id) != current.as_ref());
                    UiEvent::Sessions {
                        sessions,
                        clock: WallClock::system(),
                    }
                }
                Err(e) => UiEvent::Notice {
                    level: NoticeLevel::Error,
                    text: format!("Could not list the sessions: {e}"),
                },
            };
            let _ = tx.send(Internal::Ui(vec![event]));
        });
        Vec::new()
    }

    /// Ctrl+G: the prompt edited in `$VISUAL` / `$EDITOR`.
    async fn open_editor(&mut self, text: String) -> anyhow::Result<Vec<UiAction>> {
        let Some(editor) = self.editor() else {
            return Ok(self.notice(
                NoticeLevel::Warning,
                "Set $VISUAL or $EDITOR to edit the prompt in an editor.",
            ));
        };
        let dir = std::env::temp_dir();
        Ok(
            match self
                .suspended(move || edit_in_editor(&editor, &text, &dir))
                .await?
            {
                Ok(edited) => {
                    self.app.set_input(edited);
                    Vec::new()
                }
                Err(e) => self.notice(NoticeLevel::Error, e.to_string()),
            },
        )
    }

    fn submit(&mut self, prompt: Prompt) -> Vec<UiAction> {
        let Some(handle) = self.handle() else {
            return self.not_ready(UiAction::Submit(prompt));
        };
        // `@` mentions are resolved by the runtime, under the permission rules,
        // and a custom command's `/name args` is expanded there too.
        match handle.submit(UserInput::text(prompt.text)) {
            Ok(()) => Vec::new(),
            Err(e) => self.ui([turn_failed(e.to_string())]),
        }
    }

    fn interrupt(&mut self) -> Vec<UiAction> {
        match &self.slot {
            Slot::Ready { handle, .. } => {
                self.map.interrupted();
                let handle = handle.clone();
                tokio::spawn(async move {
                    let _ = handle.interrupt().await;
                });
                Vec::new()
            }
            Slot::Starting | Slot::Switching { .. } | Slot::Failed(_) => {
                // A prompt waiting for the runtime is dropped; its turn ends here.
                let before = self.waiting.len();
                self.waiting
                    .retain(|a| !matches!(a, UiAction::Submit(_) | UiAction::Compact { .. }));
                if self.waiting.len() == before {
                    return Vec::new();
                }
                self.ui([UiEvent::TurnResult(TurnSummary {
                    interrupted: true,
                    error: None,
                    cost_usd: 0.0,
                    session_cost_usd: self.map.session_cost(),
                    input_tokens: 0,
                    output_tokens: 0,
                    duration: Duration::ZERO,
                })])
            }
        }
    }

    /// Ends the current runtime (its turn interrupted, its input closed) and
    /// starts `next` once it has ended.
    fn switch(&mut self, next: SessionChoice) -> Vec<UiAction> {
        match std::mem::replace(&mut self.slot, Slot::Starting) {
            Slot::Ready { handle, .. } => {
                let _ = handle.send(Op::Interrupt { receipt: None });
                drop(handle);
                self.slot = Slot::Switching { next };
            }
            Slot::Switching { .. } => self.slot = Slot::Switching { next },
            // A start in flight is overtaken (its result is dropped).
            Slot::Starting | Slot::Failed(_) => self.start_session(next),
        }
        Vec::new()
    }

    /// The built-in commands that show something.
    async fn command(&mut self, name: &str, args: &str) -> anyhow::Result<Vec<UiAction>> {
        let text = match name {
            "mcp" | "agents" => match &self.slot {
                Slot::Ready { info, .. } if name == "mcp" => info::mcp(info),
                Slot::Ready { info, .. } => info::agents(info),
                Slot::Starting | Slot::Switching { .. } | Slot::Failed(_) => {
                    "The session has not started.".to_owned()
                }
            },
            "model" => {
                let options = super::model_picker::model_options(&self.place.env);
                let current = self.model.clone();
                return Ok(self.ui([UiEvent::Models { options, current }]));
            }
            "config" => info::config(&self.loaded.settings, &self.model),
            "bg" if self.is_attached() => return Ok(self.not_when_attached("/bg")),
            "bg" => return Ok(self.send_to_background()),
            "memory" => return self.memory(args).await,
            "keybindings" => return self.keybindings_command().await,
            "plugin" => return Ok(self.plugin_command(args)),
            "cost" | "context" | "permissions" | "status" | "hooks" | "sandbox" => {
                let Some(handle) = self.handle().cloned() else {
                    return Ok(self.not_ready(UiAction::Command {
                        name: name.to_owned(),
                        args: args.to_owned(),
                    }));
                };
                let view = self.snapshot_view(name);
                // Asked now: it answers after the ops sent before it.
                let snapshot = handle.snapshot();
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let events = match snapshot.await {
                        Ok(s) => view(&s),
                        Err(e) => vec![UiEvent::Notice {
                            level: NoticeLevel::Error,
                            text: e.to_string(),
                        }],
                    };
                    let _ = tx.send(Internal::Ui(events));
                });
                return Ok(Vec::new());
            }
            other => format!("/{other} is not available in tack yet."),
        };
        Ok(self.notice(NoticeLevel::Info, text))
    }

    /// How a snapshot is shown for `name`.
    fn snapshot_view(&self, name: &str) -> SnapshotView {
        match name {
            "cost" => {
                let wall = self.opened.elapsed();
                shown(move |s| info::cost(s, wall))
            }
            "context" => shown(info::context),
            "permissions" => Box::new(info::permissions_view),
            "hooks" => shown(|s| info::hooks(&s.hooks)),
            "sandbox" => shown(|s| s.sandbox.clone()),
            _ => {
                let info = match &self.slot {
                    Slot::Ready { info, .. } => (**info).clone(),
                    Slot::Starting | Slot::Switching { .. } | Slot::Failed(_) => {
                        return shown(|_| "The session has not started.".to_owned());
                    }
                };
                let settings = self.loaded.settings.clone();
                let trusted = self.loaded.trust.trusted;
                shown(move |s| info::status(s, &info, &settings, trusted))
            }
        }
    }

    /// `/memory`: the memory files; `/memory edit` opens the project's in the editor.
    async fn memory(&mut self, args: &str) -> anyhow::Result<Vec<UiAction>> {
        let file = tack_runtime::project_memory_file(&self.project_dir);
        if args == "edit" {
            let Some(editor) = self.editor() else {
                return Ok(self.notice(
                    NoticeLevel::Warning,
                    "Set $VISUAL or $EDITOR to edit the memory file.",
                ));
            };
            let path = file.clone();
            let status = self
                .suspended(move || launch_editor(&editor, &path))
                .await?;
            return Ok(match status {
                Ok(s) if s.success() => {
                    self.notice(NoticeLevel::Info, format!("Edited {}", file.display()))
                }
                Ok(s) => self.notice(NoticeLevel::Error, format!("The editor exited with {s}")),
                Err(e) => self.notice(NoticeLevel::Error, format!("Could not run the editor: {e}")),
            });
        }
        let found =
            tack_runtime::discover_memory_files(&self.place.cwd, self.place.home_dir.as_deref());
        let paths: Vec<&std::path::Path> = found.iter().map(|f| f.path.as_path()).collect();
        let text = info::memory(&paths, &file);
        Ok(self.notice(NoticeLevel::Info, text))
    }

    fn editor(&self) -> Option<String> {
        self.place
            .env
            .get("VISUAL")
            .or_else(|| self.place.env.get("EDITOR"))
    }

    /// Runs `work` (an editor) with the terminal handed over: the live area
    /// erased, raw mode off, keys not read; afterwards the UI takes it back.
    async fn suspended<T: Send + 'static>(
        &mut self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> anyhow::Result<T> {
        tack_tui::draw(&mut self.app, &mut self.term)?;
        self.term.erase_live()?;
        self.keys = None;
        self.guard = None;
        let result = tokio::task::spawn_blocking(work).await;
        self.guard = Some(TerminalGuard::enter(&mut io::stdout())?);
        let (width, height) = crossterm::terminal::size()?;
        self.app.set_size(width, height);
        self.term = InlineTerminal::new(io::stdout(), width, height);
        self.keys = Some(EventStream::new());
        Ok(result?)
    }

    /// Puts the context estimate on the status line.
    fn refresh_context(&self) {
        let Some(handle) = self.handle().cloned() else {
            return;
        };
        let tx = self.tx.clone();
        tokio::spawn(async move {
            if let Ok(s) = handle.snapshot().await {
                let _ = tx.send(Internal::Ui(vec![UiEvent::Status(StatusPatch {
                    context_used: Some(s.context.current()),
                    context_window: Some(s.context.window),
                    ..StatusPatch::default()
                })]));
            }
        });
    }

    /// The last frame, the terminal restored, then the session ended.
    async fn shutdown(mut self) -> anyhow::Result<ExitCode> {
        tack_tui::draw(&mut self.app, &mut self.term)?;
        self.term.erase_live()?;
        self.keys = None;
        self.guard = None;
        let background = self.backgrounding.take();
        if background.is_none() {
            self.say_how_to_resume().await;
        }
        if let Slot::Ready { handle, .. } = std::mem::replace(&mut self.slot, Slot::Starting) {
            let _ = handle.send(Op::Interrupt { receipt: None });
            drop(handle);
            self.replies.clear();
            let generation = self.generation;
            let ended = async {
                while let Some(msg) = self.rx.recv().await {
                    if let Internal::Runtime(g, RuntimeEvent::Ended) = msg
                        && g == generation
                    {
                        break;
                    }
                }
            };
            let _ = tokio::time::timeout(END_WAIT, ended).await;
        }
        if let Some(session_id) = background {
            return Ok(self.hand_off(&session_id));
        }
        Ok(self.exit.unwrap_or(ExitCode::SUCCESS))
    }
}

/// What a snapshot command shows.
type SnapshotView = Box<dyn FnOnce(&SessionSnapshot) -> Vec<UiEvent> + Send>;

/// A view that is one notice of `text`.
fn shown(text: impl FnOnce(&SessionSnapshot) -> String + Send + 'static) -> SnapshotView {
    Box::new(move |s| {
        vec![UiEvent::Notice {
            level: NoticeLevel::Info,
            text: text(s),
        }]
    })
}

/// The session's custom commands as the menu shows them (the runtime's
/// built-ins are the UI's too).
fn menu_entries(commands: &[SlashCommand]) -> Vec<MenuEntry> {
    commands
        .iter()
        .filter_map(|c| {
            let scope = match c.source {
                CommandSource::Builtin => return None,
                CommandSource::Project => "project",
                CommandSource::User => "user",
                CommandSource::Plugin => "plugin",
            };
            Some(MenuEntry {
                name: c.name.clone(),
                description: format!("{} ({scope})", c.description),
                argument_hint: (!c.argument_hint.is_empty()).then(|| c.argument_hint.clone()),
            })
        })
        .collect()
}

fn turn_failed(reason: String) -> UiEvent {
    UiEvent::TurnResult(TurnSummary {
        interrupted: false,
        error: Some(reason),
        cost_usd: 0.0,
        session_cost_usd: 0.0,
        input_tokens: 0,
        output_tokens: 0,
        duration: Duration::ZERO,
    })
}

async fn next_key(keys: &mut Option<EventStream>) -> Option<io::Result<crossterm::event::Event>> {
    match keys {
        Some(keys) => keys.next().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}
