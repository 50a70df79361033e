//! The running session: a task that takes [`Op`]s and emits
//! [`RuntimeEvent`]s (see the crate docs for the model).

mod conversation;
mod forked_skill;
mod input_end;
mod ops;
mod parts;
mod tool_search;
mod turn;
mod turn_files;

use std::collections::VecDeque;
use std::time::Duration;

use tack_core::LoopEvent;
use tack_core::QueryConfig;
use tack_core::session::{ResultSubtype, Session, SessionResult};
use tack_permissions::PermissionMode;
use tack_protocol::Message;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::emit::Emitter;
use crate::event::{Notice, RuntimeEvent, SessionInfo, TurnEnd};
use crate::handle::{Answers, Envelope, Responder, RuntimeHandle};
use crate::inline_shell::expand_message;
use crate::protocol::ask::{AskAnswer, AskId};
use crate::protocol::op::{TurnEcho, TurnOptions, UserInput};
use crate::protocol::reply::{AnswerError, InterruptOutcome, Reply, SessionState};
use crate::records::{error_line, result_record};
use crate::snapshot::{ContextUsage, SessionPlace, SessionSnapshot};
use crate::user_shell::{SHELL_TIMEOUT, run_shell};
use input_end::InputEnd;
use ops::{Control, Interrupter};
pub(crate) use parts::{Book, Extensions, ModelNames, Policy, Services, TurnSettings, Wakes};

/// What the Notification hook says when the session waits for the user.
const IDLE_MESSAGE: &str = "tack is waiting for your input";

/// What [`crate::start`] assembled.
pub(crate) struct Parts {
    pub session: Session,
    pub info: SessionInfo,
    pub emit: Emitter,
    pub events: mpsc::UnboundedReceiver<RuntimeEvent>,
    pub policy: Policy,
    pub settings: TurnSettings,
    pub extensions: Extensions,
    pub services: Services,
    pub book: Book,
    /// Emit [`RuntimeEvent::SessionState`]s.
    pub session_state: bool,
}

/// A ready session. [`Runtime::spawn`] starts it.
pub struct Runtime {
    parts: Parts,
    idle_after: Option<Duration>,
}

/// The session's events, in order; ends after [`RuntimeEvent::Ended`].
/// Whoever reads them answers the asks among them ([`RuntimeEvents::answer`]),
/// with or without a [`RuntimeHandle`] (a front end that has closed the
/// session's input still answers its questions).
pub struct RuntimeEvents {
    rx: mpsc::UnboundedReceiver<RuntimeEvent>,
    answers: Answers,
}

impl RuntimeEvents {
    pub async fn next(&mut self) -> Option<RuntimeEvent> {
        self.rx.recv().await
    }

    /// Answers the ask `ask` (`Op::Answer` without a handle).
    pub fn answer(&self, ask: AskId, answer: AskAnswer) -> Result<(), AnswerError> {
        self.answers.answer(ask, answer)
    }

    /// Answers asks from elsewhere (a task that waits for a person).
    pub fn answers(&self) -> Answers {
        self.answers.clone()
    }
}

impl RuntimeEvents {
    /// The events of a session served elsewhere (`crate::serve::attach`).
    pub(crate) fn new(rx: mpsc::UnboundedReceiver<RuntimeEvent>, answers: Answers) -> Self {
        RuntimeEvents { rx, answers }
    }
}

impl Runtime {
    pub(crate) fn new(parts: Parts) -> Runtime {
        Runtime {
            parts,
            idle_after: None,
        }
    }

    /// What the session is (stream-json's `system/init`).
    pub fn info(&self) -> &SessionInfo {
        &self.parts.info
    }

    /// The session's queue of messages from outside the conversation: what
    /// is pushed reaches the model with the next request of a running turn
    /// ([`tack_tool::Delivery::Soon`]) or wakes the idle session.
    pub fn arrivals(&self) -> tack_tool::Arrivals {
        self.parts.services.arrivals.clone()
    }

    /// The conversation the session starts with (a resumed or continued
    /// session's history; empty for a new one), for a front end to show.
    pub fn messages(&self) -> &[Message] {
        self.parts.session.messages()
    }

    /// The session's Notification hooks, for a front end's own notices.
    pub fn notifier(&self) -> crate::notifier::Notifier {
        crate::notifier::Notifier(self.parts.policy.hooks.clone())
    }

    /// Fires the Notification hook (`idle_prompt`) when a turn has ended and
    /// no command has come for `after` (Claude Code waits 60 s): a front end
    /// where a person types says so; print mode and SDKs do not.
    pub fn with_idle_notification(mut self, after: Duration) -> Runtime {
        self.idle_after = Some(after);
        self
    }

    /// Starts the session's task; must be called within a tokio runtime. The
    /// session ends (SessionEnd hooks, then [`RuntimeEvent::Ended`]) once every
    /// handle is dropped and the queued work has run, or when the events are
    /// dropped.
    pub fn spawn(self) -> (RuntimeHandle, RuntimeEvents) {
        let Parts {
            session,
            info,
            emit,
            events,
            policy,
            settings,
            extensions,
            services,
            book,
            session_state,
        } = self.parts;
        let (tx, commands) = mpsc::unbounded_channel();
        let handle = RuntimeHandle {
            tx,
            asks: Answers::local(emit.asks().clone()),
            events: emit.weak_sender(),
            next_id: Default::default(),
        };
        policy
            .hooks
            .iter()
            .for_each(|h| h.set_rewake(crate::hooks::rewake_to(&handle)));
        let mut driver = Driver {
            info,
            emit,
            policy,
            settings,
            extensions,
            services,
            book,
            queue: VecDeque::new(),
            inbox: Inbox {
                rx: commands,
                open: true,
            },
            pending_model: None,
            idle: Idle {
                after: self.idle_after,
                armed: false,
            },
            told: Told {
                started: false,
                state: None,
                session_state,
            },
            turn_running: false,
            input_end: InputEnd::default(),
        };
        driver.refresh(&session);
        tokio::spawn(driver.run(session));
        let answers = handle.asks.clone();
        (
            handle,
            RuntimeEvents {
                rx: events,
                answers,
            },
        )
    }
}

/// Queued work: runs one at a time, in order.
enum Work {
    Turn(UserInput, TurnOptions),
    /// `/compact [instructions]`; with the echo of the user message that
    /// asked for it, which then gets a result like a turn.
    Compact(Option<String>, Option<TurnEcho>),
    /// `/clear`, with its message's uuid.
    Clear(Option<String>),
    /// A user message added without a turn.
    Append(UserInput),
    /// The user's `!command`.
    Shell(String, Responder),
    /// `/name` naming no command: an error result, no request.
    Unknown {
        name: String,
        uuid: Option<String>,
    },
    /// `/skills`: the list as the result, no request.
    Skills(Option<String>),
    /// `/name` of a `context: fork` skill: run in a sub-agent.
    ForkedSkill {
        input: UserInput,
        name: String,
        args: String,
    },
    /// [`Op::RewindConversation`].
    Rewind(String, Responder),
    /// On resume: the calls a deferred turn left pending run, and the turn
    /// goes on (queued before any input).
    ResumePending,
}

impl Work {
    /// The front end's id of the user message this work carries.
    fn uuid(&self) -> Option<&str> {
        match self {
            Work::Turn(input, _) | Work::Append(input) | Work::ForkedSkill { input, .. } => {
                input.uuid.as_deref()
            }
            Work::Unknown { uuid, .. } | Work::Clear(uuid) | Work::Skills(uuid) => uuid.as_deref(),
            Work::Compact(_, echo) => echo.as_ref().and_then(|e| e.uuid.as_deref()),
            Work::Shell(..) | Work::Rewind(..) | Work::ResumePending => None,
        }
    }
}

/// What [`Driver::set_model`] replaced: the session's request settings, the
/// model id and the name it was chosen by.
struct Replaced {
    config: QueryConfig,
    model: String,
    name: String,
}

/// Everything but the session (which a running turn borrows), so commands can
/// be handled while a turn runs: the session's parts and the loop's state.
struct Driver {
    info: SessionInfo,
    emit: Emitter,
    policy: Policy,
    settings: TurnSettings,
    extensions: Extensions,
    services: Services,
    book: Book,
    queue: VecDeque<Work>,
    inbox: Inbox,
    /// A `set_model` that arrived during a turn, applied after it.
    pending_model: Option<Option<String>>,
    idle: Idle,
    told: Told,
    turn_running: bool,
    /// [`Op::EndInput`] came: the session ends once it has nothing left
    /// to run or wait for (or has waited its ceiling).
    input_end: InputEnd,
}

/// The ops coming in, while anyone can still send one.
struct Inbox {
    rx: mpsc::UnboundedReceiver<Envelope>,
    open: bool,
}

/// The Notification hook's `idle_prompt`.
struct Idle {
    /// Fire it after this long without a command.
    after: Option<Duration>,
    /// A turn ended and no command has come since.
    armed: bool,
}

/// What the front end has been told of the session as a whole.
struct Told {
    /// `Started` was emitted.
    started: bool,
    /// The last `SessionState` emitted (`None`: none yet).
    state: Option<SessionState>,
    /// Emit them at all.
    session_state: bool,
}

impl Driver {
    async fn run(mut self, mut session: Session) {
        // SessionStart runs here rather than in `start`: a client's callback
        // hook can only be answered once the front end reads events.
        if let Some(h) = self.policy.hooks.clone() {
            let source = if self.info.resumed {
                "resume"
            } else {
                "startup"
            };
            self.settings.start_context = h.session_start(source, &self.info.model).await;
        }
        if self.info.resumed && session.has_pending_tools() {
            self.queue.push_front(Work::ResumePending);
        }
        loop {
            if let Some(work) = self.queue.pop_front() {
                self.input_end.worked = true;
                self.set_state(SessionState::Running);
                self.services.arrivals.went_busy();
                let alive = match work {
                    Work::Turn(input, options) => {
                        let alive = self.turn(&mut session, input, options).await;
                        self.idle.armed = self.idle.after.is_some();
                        alive
                    }
                    Work::Compact(instructions, echo) => {
                        self.compact(&mut session, instructions, echo).await
                    }
                    Work::Clear(uuid) => self.clear(&mut session, uuid).await,
                    Work::Append(input) => self.append(&mut session, input).await,
                    Work::Shell(command, reply) => {
                        self.user_shell(&mut session, command, reply).await
                    }
                    Work::Unknown { name, uuid } => {
                        let reason = format!("Unknown slash command: {name}");
                        self.blocked(&session, reason, TurnEcho { uuid, origin: None })
                    }
                    Work::Skills(uuid) => {
                        let report = Ok(self.extensions.skills.report());
                        self.answered(&session, report, TurnEcho { uuid, origin: None })
                    }
                    Work::ForkedSkill { input, name, args } => {
                        self.forked_skill(&mut session, input, name, args).await
                    }
                    Work::Rewind(id, reply) => {
                        let rewound = self.rewind_conversation(&mut session, &id).await;
                        reply.send(Reply::ConversationRewound(rewound));
                        true
                    }
                    Work::ResumePending => self.resume_pending(&mut session).await,
                };
                if let Some(model) = self.pending_model.take() {
                    self.set_model(&mut session, model);
                }
                self.refresh(&session);
                if !alive {
                    break;
                }
                continue;
            }
            let owed = self
                .services
                .woken
                .1
                .load(std::sync::atomic::Ordering::SeqCst);
            // Arrivals still expected (a running teammate, a Monitor) keep a
            // session whose input has ended, as background agents do.
            let waiting = owed + self.services.arrivals.expecting();
            let arrived = !self.services.arrivals.is_empty();
            // Input over: at stdin's end at once; when no more is coming
            // (`EndInput`), once no background agent's end is owed either.
            let ended = match self.input_end.ended() {
                true => waiting == 0 && !arrived && (self.input_end.worked || !self.inbox.open),
                false => !self.inbox.open,
            };
            if ended {
                break;
            }
            // Idle once work has run and no background agent's end is owed.
            if self.told.state == Some(SessionState::Running) && owed == 0 {
                self.set_state(SessionState::Idle);
                self.services.arrivals.went_idle();
            }
            let idle = match self.idle.after.filter(|_| self.idle.armed) {
                Some(after) => futures::future::Either::Left(tokio::time::sleep(after)),
                None => futures::future::Either::Right(std::future::pending()),
            };
            tokio::select! {
                command = self.inbox.rx.recv(), if self.inbox.open => match command {
                    Some(command) => match self.op(command, Some(&session)) {
                        Control::None => {}
                        Control::Interrupt(interrupter) => {
                            interrupter.answer(InterruptOutcome::Idle, &self.queue);
                        }
                    },
                    None => self.inbox.open = false,
                },
                Some(woken) = self.services.woken.0.recv() => self.woken(woken),
                () = self.services.arrivals.changed() => self.arrived(),
                waited = self.input_end.wait_over(waiting) => {
                    self.emit.notice(Notice::warning(format!(
                        "stopped waiting for {waiting} background agent(s) after {} s (CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS)",
                        waited.as_secs()
                    )));
                    break;
                }
                () = idle => {
                    self.idle.armed = false;
                    if let Some(h) = self.policy.hooks.clone().filter(|h| h.has("Notification")) {
                        // Like the permission prompt's: it must not hold up a command.
                        tokio::spawn(async move {
                            h.notification("idle_prompt", IDLE_MESSAGE.to_owned()).await;
                        });
                    }
                }
            }
            if let Some(model) = self.pending_model.take() {
                self.set_model(&mut session, model);
                self.refresh(&session);
            }
        }
        self.release_held_end();
        if let Some(h) = &self.policy.hooks {
            h.session_end("other").await;
        }
        if let Some(mcp) = &self.services.mcp {
            mcp.shutdown().await;
        }
        crate::extensions::await_auto_update(self.services.auto_update.take()).await;
        if let Some(t) = self.emit.telemetry() {
            t.flush().await;
        }
        self.emit.emit(RuntimeEvent::Ended);
    }

    fn set_state(&mut self, state: SessionState) {
        if self.told.state != Some(state) {
            self.told.state = Some(state);
            if self.told.session_state {
                self.emit.emit(RuntimeEvent::SessionState(state));
            }
        }
    }

    /// Sets the model (`None`: the session's own) as the permission mode in
    /// force resolves it; returns what it replaced.
    fn set_model(&mut self, session: &mut Session, model: Option<String>) -> Replaced {
        let planning = self.policy.gate.mode() == PermissionMode::Plan;
        let name = model
            .clone()
            .unwrap_or_else(|| self.settings.model_names.own.clone());
        let (config, model) = self.settings.config_for(session.config(), model, planning);
        let before = session.config().clone();
        session.set_config(config);
        self.redecide_deferral(session);
        self.settings.agent_model.set(model.clone());
        Replaced {
            config: before,
            model: std::mem::replace(&mut self.info.model, model),
            name: std::mem::replace(&mut self.settings.model_names.current, name),
        }
    }

    /// Puts back what [`Driver::set_model`] replaced.
    fn restore_model(&mut self, session: &mut Session, replaced: Replaced) {
        session.set_config(replaced.config);
        self.settings.agent_model.set(replaced.model.clone());
        self.info.model = replaced.model;
        self.settings.model_names.current = replaced.name;
    }

    /// The model in force when the mode has changed since it was chosen
    /// (`opusplan`: Opus in plan mode, Sonnet outside it).
    fn follow_mode(&mut self, session: &mut Session) {
        let mode = self.policy.gate.mode();
        if self
            .settings
            .model_for_mode(mode, &self.info.model)
            .is_some()
        {
            let name = self.settings.model_names.current.clone();
            self.set_model(session, Some(name));
        }
    }

    /// Takes the conversation's figures while the session is free.
    fn refresh(&mut self, session: &Session) {
        self.book.place = session.tool_env().prompt_place().clone();
        for waiter in self.book.conversation_waiters.drain(..) {
            waiter.send(Reply::Conversation(session.messages().to_vec()));
        }
        self.book.rewind_points = self.points(session);
        let f = &mut self.book.figures;
        f.totals = session.totals().clone();
        f.messages = session.messages().len();
        f.messages_tokens = tack_api::estimate_messages(session.messages());
        f.limits = session.config().context_limits();
        f.auto_compact = session.config().auto_compact;
        f.tools_bytes = session
            .tools()
            .iter()
            .map(|t| t.name().len() + t.description().len() + t.input_schema().to_string().len())
            .sum();
    }

    fn snapshot(&self) -> SessionSnapshot {
        let f = &self.book.figures;
        let window = f.limits.map_or_else(
            || tack_api::model_limits(&self.info.model).context_window,
            |l| l.window,
        );
        let tokens = |bytes: usize| (bytes as u64).div_ceil(4);
        let ctx = &self.settings.context;
        let system_bytes: usize = ctx.system_prompt.iter().map(String::len).sum::<usize>()
            + ctx.system_context.as_ref().map_or(0, String::len);
        SessionSnapshot {
            session_id: self.info.session_id.clone(),
            model: self.info.model.clone(),
            permission_mode: self.policy.gate.mode(),
            totals: f.totals.clone(),
            turns_duration: f.turns_duration,
            context: ContextUsage {
                window,
                used: f.last_context,
                system_prompt: tokens(system_bytes),
                tools: tokens(f.tools_bytes),
                memory: tokens(ctx.user_context.as_ref().map_or(0, String::len)),
                messages: f.messages_tokens,
                autocompact_at: f
                    .limits
                    .filter(|_| f.auto_compact)
                    .map(|l| l.autocompact_threshold()),
            },
            messages: f.messages,
            rules: self.policy.gate.rule_views(),
            turn_running: self.turn_running,
            hooks: self
                .policy
                .hooks
                .as_ref()
                .map(|h| h.views())
                .unwrap_or_default(),
            sandbox: self.policy.gate.sandbox_status(),
            auto_decisions: self.policy.gate.auto_decisions(),
            set_aside: self.policy.gate.set_aside_rules(),
            classifier: self.policy.gate.auto().and_then(|a| a.usage()),
            place: self.place(),
        }
    }

    /// Where the session works now: where it started until EnterWorktree
    /// moves it.
    fn place(&self) -> SessionPlace {
        match self.book.place.current() {
            Some(moved) => SessionPlace {
                cwd: moved.cwd.clone(),
                worktree: moved.worktree.clone(),
            },
            None => SessionPlace {
                cwd: self.info.cwd.clone(),
                worktree: None,
            },
        }
    }

    /// `system/init` before the first thing the session shows.
    fn ensure_started(&mut self) {
        if !self.told.started {
            self.told.started = true;
            self.emit
                .emit(RuntimeEvent::Started(Box::new(self.info.clone())));
        }
    }

    /// Waits for `work` while handling commands; interrupts fire `cancel`.
    async fn with_commands<F: std::future::Future>(
        &mut self,
        work: F,
        cancel: &CancellationToken,
        interrupts: &mut Vec<Interrupter>,
    ) -> F::Output {
        tokio::pin!(work);
        loop {
            tokio::select! {
                biased;
                command = self.inbox.rx.recv(), if self.inbox.open => match command {
                    Some(command) => match self.op(command, None) {
                        Control::None => {}
                        Control::Interrupt(interrupter) => {
                            cancel.cancel();
                            interrupts.push(interrupter);
                        }
                    },
                    None => self.inbox.open = false,
                },
                out = &mut work => return out,
            }
        }
    }

    /// A server's tools changed (`tools/list_changed`, a server came or went):
    /// the next turn gets the new list (one being fetched is waited for).
    async fn refresh_tools(&mut self, session: &mut Session) {
        if let Some(mcp) = &self.services.mcp {
            mcp.await_tool_lists().await;
        }
        let Some(mcp) = self.services.mcp.as_mut().filter(|m| m.changed()) else {
            return;
        };
        let window = tack_api::model_limits(&session.config().model).context_window;
        let gate = self.policy.gate.clone();
        let keep = move |t: &dyn tack_tool::Tool| !gate.removes_tool(t);
        let tools = mcp.tool_set(
            &self.services.builtin,
            window,
            self.services.deferral.tool_search.as_deref(),
            &keep,
        );
        session.set_tools(tools);
    }

    /// One user turn. `false` when the front end has gone away.
    async fn turn(
        &mut self,
        session: &mut Session,
        input: UserInput,
        options: TurnOptions,
    ) -> bool {
        for bad in self.policy.gate.add_turn_rules(&options.allowed_tools) {
            self.emit.notice(Notice::warning(format!("warning: {bad}")));
        }
        // A command's `!`cmd` lines run now, with its allowed-tools in force.
        let (gate, cancel) = (self.policy.gate.clone(), CancellationToken::new());
        let (policy, cwd) = (options.inline_shell, &self.info.cwd);
        let (owner, stop) = (options.shell_owner.clone(), cancel.clone());
        let may_run = move |c: String| {
            let (gate, owner, stop) = (gate.clone(), owner.clone(), stop.clone());
            let decided = async move { gate.inline_shell(&c, owner.as_ref(), &stop).await };
            Box::pin(decided) as futures::future::BoxFuture<'static, _>
        };
        let message = expand_message(input.message, policy, &may_run, cwd, &cancel).await;
        let input = UserInput { message, ..input };
        self.follow_mode(session);
        let restore = options.model.map(|m| self.set_model(session, Some(m)));
        session.set_model_switch(self.settings.model_switch(&self.policy.gate));
        let checkpoint = self.book.checkpoints.as_ref().map(|c| {
            // A message without an id is named by its uuid in the session.
            let id = input.uuid.clone();
            let id = id.unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
            c.begin(&id);
            id
        });
        let before = session.prompts().last().map(|(uuid, _)| uuid.to_owned());
        self.turn_running = true;
        let alive = self.run_turn(session, input).await;
        self.turn_running = false;
        self.note_checkpoint(session, before, checkpoint);
        self.policy.gate.clear_turn_rules();
        if let Some(replaced) = restore {
            self.restore_model(session, replaced);
        }
        // An ExitPlanMode approved in the turn: `opusplan` is on Sonnet now.
        self.follow_mode(session);
        alive
    }

    /// A user message added without a turn; a failed write is a notice (the
    /// message is then not in the conversation). `false` when the front end
    /// has gone away.
    async fn append(&mut self, session: &mut Session, input: UserInput) -> bool {
        match session.append_user(input.message).await {
            Ok(_) => true,
            Err(e) => self.emit.emit(RuntimeEvent::Notice(Notice::error(format!(
                "Error: the message was not added: {e}"
            )))),
        }
    }

    /// The user's `!command`: run (an interrupt stops it), then appended to
    /// the conversation. `false` when the front end has gone away.
    async fn user_shell(
        &mut self,
        session: &mut Session,
        command: String,
        reply: Responder,
    ) -> bool {
        let cancel = CancellationToken::new();
        let mut interrupts = Vec::new();
        let cwd = self.info.cwd.clone();
        let run = run_shell(&command, &cwd, SHELL_TIMEOUT, cancel.clone());
        let run = self.with_commands(run, &cancel, &mut interrupts).await;
        for interrupter in interrupts {
            interrupter.answer(InterruptOutcome::Interrupted, &self.queue);
        }
        let alive = self
            .append(
                session,
                UserInput {
                    message: run.message(),
                    uuid: None,
                    origin: None,
                    verbatim: false,
                },
            )
            .await;
        reply.send(Reply::Shell(run));
        alive
    }

    fn turn_ended(
        &mut self,
        result: &SessionResult,
        stop_reason: Option<String>,
        echo: TurnEcho,
        aborted_reason: &str,
    ) -> bool {
        self.book.figures.turns_duration += result.duration;
        let mut record = result_record(result, stop_reason, self.policy.gate.take_denials());
        echo.apply(&mut record);
        // Claude Code says where the interrupt found the turn.
        if result.terminal == Some(tack_core::Terminal::Aborted) {
            record.terminal_reason = Some(aborted_reason.to_owned());
        }
        let ok = result.subtype == ResultSubtype::Success && !result.is_error;
        let end = Box::new(TurnEnd {
            record,
            ok,
            error_line: (!ok).then(|| error_line(result, self.settings.base_config.max_turns)),
        });
        self.release_held_end();
        let owed = (self.services.woken.1).load(std::sync::atomic::Ordering::SeqCst);
        if self.input_end.ended() && owed + self.services.arrivals.expecting() > 0 {
            self.input_end.held = Some(end);
            return true;
        }
        self.emit.emit(RuntimeEvent::TurnEnded(end))
    }

    /// A turn refused before anything is sent (a UserPromptSubmit hook
    /// blocked its prompt, or an unknown slash command): nothing is sent or
    /// persisted; an error result.
    fn blocked(&mut self, session: &Session, reason: String, echo: TurnEcho) -> bool {
        self.answered(session, Err(reason), echo)
    }

    /// A turn answered by the runtime itself (`Ok`: its text, as `/skills`;
    /// `Err`: why it was refused): nothing sent or persisted.
    fn answered(
        &mut self,
        session: &Session,
        answer: Result<String, String>,
        echo: TurnEcho,
    ) -> bool {
        self.ensure_started();
        let totals = session.totals();
        let ok = answer.is_ok();
        let (text, errors) = match answer {
            Ok(text) => (text, Vec::new()),
            Err(reason) => (String::new(), vec![reason]),
        };
        let error_line = errors.first().map(|reason| format!("Error: {reason}"));
        let result = SessionResult {
            subtype: if ok {
                ResultSubtype::Success
            } else {
                ResultSubtype::ErrorDuringExecution
            },
            is_error: !ok,
            terminal: None,
            result: text,
            errors,
            duration: Duration::ZERO,
            duration_api: Duration::ZERO,
            num_turns: 0,
            total_cost_usd: totals.total_cost_usd,
            usage: Default::default(),
            model_usage: Default::default(),
            session_id: session.session_id().to_owned(),
        };
        let mut record = result_record(&result, None, self.policy.gate.take_denials());
        echo.apply(&mut record);
        if ok {
            record.terminal_reason = Some("completed".to_owned());
        }
        self.emit.emit(RuntimeEvent::TurnEnded(Box::new(TurnEnd {
            record,
            ok,
            error_line,
        })))
    }

    /// The context the model saw is gone (a compaction, `/clear`, a
    /// rewind): its size is unknown and path rules load again.
    fn context_gone(&mut self) {
        self.book.figures.last_context = None;
        self.policy.gate.forget_loaded_rules();
    }

    /// The manual `/compact`: PreCompact hooks, one summary call, the boundary
    /// persisted and shown; then `CompactEnded`, or for a user message
    /// (`echo`) its result. `false` when the front end has gone away.
    async fn compact(
        &mut self,
        session: &mut Session,
        instructions: Option<String>,
        echo: Option<TurnEcho>,
    ) -> bool {
        self.ensure_started();
        let error = self.compacted(session, instructions).await;
        match echo {
            Some(echo) => {
                let reason = error.map(|e| format!("/compact failed: {e}"));
                self.answered(session, reason.map_or(Ok(String::new()), Err), echo)
            }
            None => self.emit.emit(RuntimeEvent::CompactEnded { error }),
        }
    }

    /// [`Driver::compact`]'s work: why it failed, if it did.
    async fn compacted(
        &mut self,
        session: &mut Session,
        instructions: Option<String>,
    ) -> Option<String> {
        if let Some(h) = self.policy.hooks.clone()
            && let Err(message) = h.pre_compact("manual", instructions.as_deref()).await
        {
            return Some(message);
        }
        if let Some(tool) = &self.settings.structured_output {
            tool.new_turn();
        }
        let cancel = CancellationToken::new();
        self.policy.turn_cancel.set(Some(cancel.clone()));
        let mut interrupts = Vec::new();
        let compacted = self
            .with_commands(
                session.compact(instructions, cancel.clone()),
                &cancel,
                &mut interrupts,
            )
            .await;
        self.policy.turn_cancel.set(None);
        for interrupter in interrupts {
            interrupter.answer(InterruptOutcome::Interrupted, &self.queue);
        }
        match compacted {
            Ok(event) => {
                self.context_gone();
                crate::hooks::after_compaction(self.policy.hooks.as_ref(), &event).await;
                self.emit
                    .emit(RuntimeEvent::Loop(LoopEvent::Compacted(event)));
                None
            }
            Err(error) => Some(error.to_string()),
        }
    }
}
