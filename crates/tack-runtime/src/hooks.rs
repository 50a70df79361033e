//! Settings hooks: one [`SessionHooks`] per session around
//! [`tack_hooks::HookRunner`], and what each event means. Every event is wired
//! on its own: a hook configured for one event runs whether or not any other
//! event has hooks.
//!
//! - PreToolUse / PostToolUse: in [`crate::gate::Gate`], around each call.
//! - UserPromptSubmit: [`SessionHooks::user_prompt_submit`], before the prompt
//!   is persisted or sent: a block ends the turn with an error result; context
//!   is appended to the prompt as a `<system-reminder>`.
//! - SessionStart (`startup` / `resume`, `clear` after a `/clear`): its context
//!   is appended to the next prompt. SessionEnd (`other`; `clear` before a
//!   `/clear`): when the session ends, at most 1.5 s.
//! - Stop and PreCompact `auto`: core's [`LoopHooks`] seam (the loop obeys a
//!   Stop block once per exit point; a PreCompact block skips that
//!   autocompaction). PreCompact `manual`: before a `/compact` (a block
//!   cancels it).
//! - Notification (`permission_prompt`): when a tool call waits for the user;
//!   (`idle_prompt`): when a turn has ended and no command came for the
//!   front end's idle delay (`Runtime::with_idle_notification`).
//! - SubagentStop: when a sub-agent finishes; SubagentStart before it starts
//!   (its context joins the sub-agent's prompt).
//! - PostToolUseFailure, PermissionRequest, PermissionDenied: in the gate
//!   (`gate/tool_hooks.rs`).
//! - PostCompact after each compaction, then InstructionsLoaded `compact`;
//!   InstructionsLoaded `session_start` before SessionStart; InstructionsLoaded
//!   `path_glob_match` / `nested_traversal` / `include` when a tool call's
//!   file loads rules mid-session (the gate, after the call).
//! - CwdChanged after a main-agent tool call moved the cwd; FileChanged and
//!   ConfigChange after each main-agent tool call and before each prompt
//!   ([`crate::hook_watch`]).
//! - `asyncRewake` hooks that exit with 2: a new user turn ([`rewake_to`]).
//!
//! Hooks marked `"async": true` run in the background and never delay the
//! turn (tack-hooks). Errors, `systemMessage`s and (verbose) plain output
//! become [`Notice`]s. Nothing is spawned for an event without hooks. Each
//! command hook's start and end is a [`RuntimeEvent::Hook`] (SessionStart's
//! always, every event's with `FrontEndOptions::hook_events`).
//!
//! A front end's client may register callback hooks
//! (`ExtensionOptions::hook_callbacks`): they run beside the settings hooks of
//! the same event, each call a [`RuntimeEvent::HookCallback`] the front end
//! answers ([`FrontEndCallbacks`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use std::sync::{Arc, PoisonError};

use futures::future::BoxFuture;
use serde_json::Value;
use tack_core::context::{LoadReason, LoadedFile};
use tack_core::query::{LoopHooks, StopHookInput, StopHookOutcome};
use tack_hooks::{
    AsyncReports, CallbackCall, CallbackMatcher, Condition, HookCallbacks, HookEnd, HookEvent,
    HookLabel, HookObserver, HookOutcome, HookRun, HookRunner, HookServices, HooksConfig, Rewake,
    RunStatus,
};
use tack_protocol::{ContentBlock, Message, Role};
use tack_tool::AgentIdentity;
use tokio_util::sync::CancellationToken;

use crate::emit::Emitter;
use crate::event::{HookActivity, HookCallback, HookResponse, Notice, RuntimeEvent};
use crate::handle::{Envelope, Responder, RuntimeHandle};
use crate::hook_watch::Watch;
use crate::protocol::ask::{AskAnswer, HookAnswer};
use crate::protocol::op::{Op, OpId, UserInput};
use crate::snapshot::HookView;

/// SessionEnd hooks get this long before they are killed (Claude Code's budget).
const SESSION_END_BUDGET: Duration = Duration::from_millis(1500);

/// The hooks of one session.
pub struct SessionHooks {
    runner: std::sync::RwLock<HookRunner>,
    /// What CwdChanged, FileChanged and ConfigChange compare with.
    watch: std::sync::Mutex<Watch>,
    /// The user's home, for the memory files InstructionsLoaded reports.
    home: Option<PathBuf>,
    /// What async hooks said, for the next prompt.
    reports: AsyncReports,
    verbose: bool,
    emit: Emitter,
    /// The Stop input's `session_crons`, once the session's schedule is made.
    session_crons: std::sync::OnceLock<SessionCrons>,
}

/// What the session has scheduled, as the Stop hook's `session_crons`.
pub(crate) type SessionCrons = Arc<dyn Fn() -> Vec<serde_json::Value> + Send + Sync>;

/// What UserPromptSubmit hooks decided.
pub enum PromptVerdict {
    /// Send the prompt (possibly with context appended).
    Send(Message),
    /// Do not send it; the reason is for the user.
    Blocked(String),
}

/// A `hooks` value that cannot be used (names the settings file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(transparent)]
pub struct HooksError(#[from] tack_hooks::HookConfigError);

pub(crate) struct HookPlace<'a> {
    pub project_dir: &'a Path,
    pub cwd: &'a Path,
    pub session_id: &'a str,
    pub transcript_path: &'a Path,
    pub permission_mode: &'a str,
    /// The settings files ConfigChange watches, with their `source`.
    pub settings_files: Vec<(&'static str, PathBuf)>,
}

/// Every settings file the session reads (`.claude` and `.tack`, user,
/// project and local; not `--settings`), with its ConfigChange `source`.
pub(crate) fn watched_settings(files: &[tack_config::Source]) -> Vec<(&'static str, PathBuf)> {
    files
        .iter()
        .filter_map(|f| {
            let source = match f.scope() {
                tack_config::Scope::User => "user_settings",
                tack_config::Scope::Project => "project_settings",
                tack_config::Scope::Local => "local_settings",
                tack_config::Scope::Flag => return None,
            };
            Some((source, f.file_path()?.to_path_buf()))
        })
        .collect()
}

/// How the client's callback hooks are reached: each call is a
/// [`RuntimeEvent::HookCallback`] ask for the front end; a dropped call
/// (timeout, interrupt) withdraws the ask, which the front end sees.
struct FrontEndCallbacks(Emitter);

impl HookCallbacks for FrontEndCallbacks {
    fn call(&self, call: CallbackCall) -> BoxFuture<'static, Result<Value, String>> {
        let pending = self.0.ask(|id| {
            RuntimeEvent::HookCallback(Box::new(HookCallback {
                id,
                callback_id: call.callback_id,
                input: call.input,
                tool_use_id: call.tool_use_id,
            }))
        });
        Box::pin(async move {
            let Some(mut pending) = pending else {
                return Err("the session's front end is gone".to_owned());
            };
            match pending.answer().await {
                Some(AskAnswer::Hook(HookAnswer::Output(value))) => Ok(value),
                Some(AskAnswer::Hook(HookAnswer::Failed(why))) => Err(why),
                Some(AskAnswer::Permission(_)) => {
                    Err("the front end answered the call with a permission answer".to_owned())
                }
                None => Err("the front end dropped the call".to_owned()),
            }
        })
    }
}

/// Each command hook's start and end as a [`RuntimeEvent::Hook`]: every
/// event's when `all`, else SessionStart's only (Claude Code reports those
/// whatever `--include-hook-events` says).
struct HookEvents {
    emit: Emitter,
    all: bool,
}

impl HookEvents {
    fn wanted(&self, hook: &HookLabel) -> bool {
        self.all || hook.event == "SessionStart"
    }
}

impl HookObserver for HookEvents {
    fn started(&self, hook: &HookLabel) -> String {
        let hook_id = uuid::Uuid::new_v4().to_string();
        if self.wanted(hook) {
            self.emit.emit(RuntimeEvent::Hook(Box::new(HookActivity {
                hook_id: hook_id.clone(),
                hook_name: hook.name.clone(),
                hook_event: hook.event.to_owned(),
                response: None,
            })));
        }
        hook_id
    }

    fn finished(&self, hook_id: &str, hook: &HookLabel, run: &HookRun) {
        if !self.wanted(hook) {
            return;
        }
        let exit_code = match run.status {
            RunStatus::Exited(code) => Some(code),
            _ => None,
        };
        self.emit.emit(RuntimeEvent::Hook(Box::new(HookActivity {
            hook_id: hook_id.to_owned(),
            hook_name: hook.name.clone(),
            hook_event: hook.event.to_owned(),
            response: Some(HookResponse {
                stdout: run.stdout.clone(),
                stderr: run.stderr.clone(),
                exit_code,
                outcome: HookEnd::of(run).as_str().to_owned(),
            }),
        })));
    }
}

/// One `hooks` value: a settings file's, or a plugin's (whose hooks run
/// with `env`: `CLAUDE_PLUGIN_ROOT`, `CLAUDE_PLUGIN_DATA`).
pub(crate) struct HookSource {
    /// Names it in messages (the file).
    pub name: String,
    pub hooks: Value,
    pub env: Vec<(String, String)>,
}

/// What [`SessionHooks::new`] reports besides the hooks' effects.
pub(crate) struct HookReporting {
    /// Hooks' plain output as notices (`--verbose`).
    pub verbose: bool,
    /// Every command hook's start and end as events, not only SessionStart's.
    pub all_events: bool,
}

impl SessionHooks {
    /// `None` when no hook is configured (nothing to run, ever). `sources`
    /// are lowest precedence first; `callbacks` are the client's callback
    /// hooks.
    pub(crate) fn new(
        sources: &[HookSource],
        callbacks: &[CallbackMatcher],
        place: HookPlace<'_>,
        reporting: HookReporting,
        emit: Emitter,
    ) -> Result<Option<SessionHooks>, HooksError> {
        if sources.is_empty() && callbacks.is_empty() {
            return Ok(None);
        }
        let mut config = HooksConfig::new();
        for source in sources {
            config.merge_value_with_env(&source.name, &source.hooks, &source.env)?;
        }
        for matcher in callbacks {
            config.add_callbacks("the SDK's hooks", matcher)?;
        }
        for w in config.warnings() {
            emit.notice(Notice::warning(format!("warning: {w}")));
        }
        let mut runner = HookRunner::new(
            config,
            place.project_dir,
            place.session_id,
            place.transcript_path,
        )
        .with_cwd(place.cwd)
        .with_observer(Arc::new(HookEvents {
            emit: emit.clone(),
            all: reporting.all_events,
        }));
        let reports = AsyncReports::new();
        runner = runner.with_async_reports(reports.clone());
        if !callbacks.is_empty() {
            runner = runner.with_callbacks(Arc::new(FrontEndCallbacks(emit.clone())));
        }
        runner.set_permission_mode(place.permission_mode);
        let files = file_names(runner.config(), place.cwd);
        Ok(Some(SessionHooks {
            runner: std::sync::RwLock::new(runner),
            watch: std::sync::Mutex::new(Watch::new(place.cwd, files, place.settings_files)),
            home: None,
            reports,
            verbose: reporting.verbose,
            emit,
            session_crons: std::sync::OnceLock::new(),
        }))
    }

    fn runner(&self) -> HookRunner {
        self.runner
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The command hooks configured, as `/hooks` lists them.
    pub(crate) fn views(&self) -> Vec<HookView> {
        let runner = self.runner();
        runner
            .config()
            .groups()
            .flat_map(|(event, group)| {
                group.hooks.iter().map(move |hook| HookView {
                    event: event.to_owned(),
                    matcher: group.matcher_text.clone().filter(|m| !m.is_empty()),
                    command: hook.command.clone(),
                    is_async: hook.is_async,
                })
            })
            .collect()
    }

    /// True when some hook is configured for `event`.
    pub fn has(&self, event: &str) -> bool {
        self.runner
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .has_hooks(event)
    }

    /// The session moved to `cwd` (EnterWorktree, ExitWorktree): hooks run
    /// there and are told of it as their `cwd` from now on. (A `cd` in Bash
    /// moves neither: CwdChanged tells of it.)
    pub(crate) fn moved(&self, cwd: &Path) {
        let mut runner = self
            .runner
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *runner = runner.clone().with_cwd(cwd);
    }

    /// The folder the hooks run in.
    pub(crate) fn cwd(&self) -> PathBuf {
        self.runner().cwd().to_path_buf()
    }

    /// The session hooks are told of from now on (`/clear` changed its id).
    pub fn set_session(&self, session_id: &str, transcript_path: &Path) {
        self.runner
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .set_session(session_id, transcript_path);
    }

    /// The `permission_mode` hooks are told from now on.
    pub fn set_permission_mode(&self, mode: &str) {
        self.runner
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .set_permission_mode(mode);
    }

    /// Runs `event`'s hooks and reports what is for the user.
    pub async fn run(&self, event: &HookEvent, cancel: &CancellationToken) -> HookOutcome {
        self.run_for(event, None, None, cancel).await
    }

    /// [`SessionHooks::run`] for a tool call of `agent` (a sub-agent's: its
    /// input carries `agent_id` and `agent_type`) or of the main session;
    /// `condition` decides hooks' `if` rules against the call.
    pub async fn run_for(
        &self,
        event: &HookEvent,
        agent: Option<&AgentIdentity>,
        condition: Option<Condition<'_>>,
        cancel: &CancellationToken,
    ) -> HookOutcome {
        let runner = match agent {
            Some(a) => self.runner().with_agent(&a.id, &a.agent_type),
            None => self.runner(),
        };
        let outcome = runner.run_if(event, condition, cancel).await;
        for e in outcome.errors() {
            self.emit.notice(Notice::error(e.clone()));
        }
        for m in outcome.system_messages() {
            self.emit.notice(Notice::info(m.clone()));
        }
        if self.verbose && !outcome.suppress_output() {
            for o in outcome.plain_output() {
                self.emit
                    .notice(Notice::info(format!("{} hook output: {o}", event.name())));
            }
        }
        outcome
    }

    /// What async hooks reported since the last prompt, as context for the
    /// next one (`None`: nothing).
    pub fn take_async_reports(&self) -> Option<String> {
        let reports = self.reports.take();
        (!reports.is_empty()).then(|| reports.join("\n"))
    }

    /// UserPromptSubmit for `prompt` (after FileChanged and ConfigChange
    /// for what changed while the session waited).
    pub async fn user_prompt_submit(&self, prompt: Message) -> PromptVerdict {
        self.look_for_changes().await;
        if !self.has("UserPromptSubmit") {
            return PromptVerdict::Send(prompt);
        }
        let event = HookEvent::UserPromptSubmit {
            prompt: prompt.text(),
        };
        let outcome = self.run(&event, &CancellationToken::new()).await;
        if !outcome.should_continue() {
            let why = outcome.stop_reason().unwrap_or("stopped by a hook");
            return PromptVerdict::Blocked(format!(
                "UserPromptSubmit hook stopped the session: {why}"
            ));
        }
        if let Some(reason) = outcome.blocked() {
            return PromptVerdict::Blocked(format!(
                "UserPromptSubmit operation blocked by hook:\n{reason}"
            ));
        }
        PromptVerdict::Send(with_context(prompt, outcome.additional_context()))
    }

    /// SessionStart (`startup`, `resume` or `clear`): the context it adds, if any.
    /// InstructionsLoaded runs first, for each memory file.
    pub async fn session_start(&self, source: &str, model: &str) -> Option<String> {
        self.instructions_loaded("session_start").await;
        if !self.has("SessionStart") {
            return None;
        }
        let event = HookEvent::SessionStart {
            source: source.to_owned(),
            model: Some(model.to_owned()),
        };
        let outcome = self.run(&event, &CancellationToken::new()).await;
        self.watch_paths(&outcome);
        outcome.additional_context()
    }

    /// SessionEnd, best effort: hooks still running after 1.5 s are killed.
    pub async fn session_end(&self, reason: &str) {
        if !self.has("SessionEnd") {
            return;
        }
        let cancel = CancellationToken::new();
        let timer = cancel.clone();
        let _timer = tokio::spawn(async move {
            tokio::time::sleep(SESSION_END_BUDGET).await;
            timer.cancel();
        });
        let event = HookEvent::SessionEnd {
            reason: reason.to_owned(),
        };
        self.run(&event, &cancel).await;
    }

    /// PreCompact before a compaction: `Err(message)` when a hook blocks it.
    pub async fn pre_compact(
        &self,
        trigger: &str,
        instructions: Option<&str>,
    ) -> Result<(), String> {
        if !self.has("PreCompact") {
            return Ok(());
        }
        let event = HookEvent::PreCompact {
            trigger: trigger.to_owned(),
            custom_instructions: instructions.map(str::to_owned),
        };
        let outcome = self.run(&event, &CancellationToken::new()).await;
        match outcome.blocked() {
            Some(reason) => Err(format!("PreCompact hook blocked compaction: {reason}")),
            None if !outcome.should_continue() => Err(format!(
                "PreCompact hook stopped compaction: {}",
                outcome.stop_reason().unwrap_or("no reason given")
            )),
            None => Ok(()),
        }
    }

    /// Notification (e.g. `permission_prompt` while a tool call waits).
    pub async fn notification(&self, notification_type: &str, message: String) {
        if !self.has("Notification") {
            return;
        }
        let event = HookEvent::Notification {
            message,
            title: None,
            notification_type: notification_type.to_owned(),
        };
        self.run(&event, &CancellationToken::new()).await;
    }
}

/// The files FileChanged matchers name (`.envrc|.env`), in `cwd`.
fn file_names(config: &HooksConfig, cwd: &Path) -> Vec<PathBuf> {
    config
        .groups()
        .filter(|(event, _)| *event == "FileChanged")
        .filter_map(|(_, g)| g.matcher_text.as_deref())
        .flat_map(|m| m.split(['|', ',']))
        .map(str::trim)
        .filter(|n| !n.is_empty() && *n != "*")
        .map(|n| cwd.join(n))
        .collect()
}

/// `prompt` with `context` appended as a `<system-reminder>` text block.
pub fn with_context(mut prompt: Message, context: Option<String>) -> Message {
    if let Some(context) = context {
        let text = tack_core::request::system_reminder(&context);
        prompt.content.push(ContentBlock::text(text));
    }
    prompt
}

/// Core's loop seams, each backed by its own event's hooks.
impl LoopHooks for SessionHooks {
    fn pre_compact(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(SessionHooks::pre_compact(self, "auto", None))
    }

    fn stop<'a>(&'a self, input: StopHookInput<'a>) -> BoxFuture<'a, StopHookOutcome> {
        let stop_hook_active = input.stop_hook_active;
        let session_crons = self.session_crons.get().map(|crons| crons());
        Box::pin(
            self.stop_hooks("Stop", input.messages, move |last| HookEvent::Stop {
                stop_hook_active,
                last_assistant_message: last,
                session_crons,
            }),
        )
    }
}

impl SessionHooks {
    /// The loop's stop seam for `name` (Stop, or a sub-agent's SubagentStop),
    /// whose input `event` makes from the last assistant message's text:
    /// `continue: false` prevents the end of the turn being continued, a
    /// block continues it with the reason.
    pub(crate) async fn stop_hooks(
        &self,
        name: &str,
        messages: &[Message],
        event: impl FnOnce(Option<String>) -> HookEvent,
    ) -> StopHookOutcome {
        if !self.has(name) {
            return StopHookOutcome::Pass;
        }
        let last = messages
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .map(Message::text);
        let outcome = self.run(&event(last), &CancellationToken::new()).await;
        if !outcome.should_continue() {
            let reason = outcome.stop_reason().unwrap_or_default().to_owned();
            return StopHookOutcome::Prevent { reason };
        }
        match outcome.blocked() {
            Some(reason) => StopHookOutcome::Block { reason },
            None => StopHookOutcome::Pass,
        }
    }
}

/// The events added after the core set: sub-agents, compaction, memory
/// files, and what [`Watch`] notices.
impl SessionHooks {
    /// The home the user's memory file is under.
    pub(crate) fn with_home(mut self, home: Option<&Path>) -> SessionHooks {
        self.home = home.map(Path::to_path_buf);
        self
    }

    /// Runs `http` and `prompt` hooks with `services`; wakes the model for
    /// `asyncRewake` hooks through `rewake`.
    pub(crate) fn set_services(&self, services: Arc<dyn HookServices>) {
        let mut runner = self.runner.write().unwrap_or_else(PoisonError::into_inner);
        *runner = runner.clone().with_services(services);
    }

    /// What the Stop input's `session_crons` lists (set once).
    pub(crate) fn set_session_crons(&self, crons: SessionCrons) {
        let _ = self.session_crons.set(crons);
    }

    /// Where `asyncRewake` hooks' messages go.
    pub(crate) fn set_rewake(&self, rewake: Rewake) {
        let mut runner = self.runner.write().unwrap_or_else(PoisonError::into_inner);
        *runner = runner.clone().with_rewake(rewake);
    }

    /// SubagentStart: the context it adds to the sub-agent's prompt.
    pub(crate) async fn subagent_start(&self, agent_id: &str, agent_type: &str) -> Option<String> {
        if !self.has("SubagentStart") {
            return None;
        }
        let event = HookEvent::SubagentStart {
            agent_id: agent_id.to_owned(),
            agent_type: agent_type.to_owned(),
        };
        self.run(&event, &CancellationToken::new())
            .await
            .additional_context()
    }

    /// PostCompact after a compaction (`trigger`: `manual`, `auto`), then
    /// InstructionsLoaded (`compact`): the memory files are in the context
    /// the summary starts.
    pub(crate) async fn post_compact(&self, trigger: &str, summary: &str) {
        self.instructions_loaded("compact").await;
        if !self.has("PostCompact") {
            return;
        }
        let event = HookEvent::PostCompact {
            trigger: trigger.to_owned(),
            compact_summary: summary.to_owned(),
        };
        self.run(&event, &CancellationToken::new()).await;
    }

    /// InstructionsLoaded for each memory file of the session (`reason`:
    /// `session_start`, `compact`).
    pub(crate) async fn instructions_loaded(&self, reason: &str) {
        if !self.has("InstructionsLoaded") {
            return;
        }
        let cwd = self.runner().cwd().to_path_buf();
        for file in tack_core::context::discover_memory_files(&cwd, self.home.as_deref()) {
            let event = HookEvent::InstructionsLoaded {
                file_path: file.path.to_string_lossy().into_owned(),
                memory_type: format!("{:?}", file.kind),
                load_reason: reason.to_owned(),
                globs: None,
                trigger_file_path: None,
                parent_file_path: None,
            };
            self.run(&event, &CancellationToken::new()).await;
        }
    }

    /// InstructionsLoaded for each file a tool call's touch of `trigger`
    /// loaded (a `paths` rule, a folder's memory, what they import).
    pub(crate) async fn instructions_loaded_for(&self, loaded: &[LoadedFile], trigger: &Path) {
        if !self.has("InstructionsLoaded") {
            return;
        }
        for LoadedFile { file, reason } in loaded {
            let (globs, parent) = match reason {
                LoadReason::PathGlobMatch { globs } => (Some(globs.clone()), None),
                LoadReason::Include { parent } => {
                    (None, Some(parent.to_string_lossy().into_owned()))
                }
                LoadReason::NestedTraversal => (None, None),
            };
            let event = HookEvent::InstructionsLoaded {
                file_path: file.path.to_string_lossy().into_owned(),
                memory_type: format!("{:?}", file.kind),
                load_reason: reason.as_str().to_owned(),
                globs,
                trigger_file_path: Some(trigger.to_string_lossy().into_owned()),
                parent_file_path: parent,
            };
            self.run(&event, &CancellationToken::new()).await;
        }
    }

    /// After a main-agent tool call: CwdChanged when `cwd` moved, then what
    /// [`SessionHooks::look_for_changes`] finds.
    pub(crate) async fn after_tool(&self, cwd: &Path) {
        let moved = self
            .watch
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .moved(cwd);
        if let Some(old) = moved.filter(|_| self.has("CwdChanged")) {
            let event = HookEvent::CwdChanged {
                old_cwd: old.to_string_lossy().into_owned(),
                new_cwd: cwd.to_string_lossy().into_owned(),
            };
            let outcome = self.run(&event, &CancellationToken::new()).await;
            self.watch_paths(&outcome);
        }
        self.look_for_changes().await;
    }

    /// FileChanged for each watched file that changed, ConfigChange for
    /// each settings file (tack reads settings at start: a change applies
    /// to the next session, so a ConfigChange block has nothing to stop).
    async fn look_for_changes(&self) {
        if !self.has("FileChanged") && !self.has("ConfigChange") {
            return;
        }
        let (files, settings) = {
            let mut watch = self.watch.lock().unwrap_or_else(PoisonError::into_inner);
            (watch.changes(), watch.settings_changes())
        };
        for change in files.into_iter().filter(|_| self.has("FileChanged")) {
            let event = HookEvent::FileChanged {
                file_path: change.path.to_string_lossy().into_owned(),
                event: change.event.to_owned(),
            };
            let outcome = self.run(&event, &CancellationToken::new()).await;
            self.watch_paths(&outcome);
        }
        for (source, file) in settings.into_iter().filter(|_| self.has("ConfigChange")) {
            let event = HookEvent::ConfigChange {
                source: source.to_owned(),
                file_path: file.to_string_lossy().into_owned(),
            };
            self.run(&event, &CancellationToken::new()).await;
        }
    }

    /// A hook's `watchPaths` replace the watched files.
    fn watch_paths(&self, outcome: &HookOutcome) {
        if let Some(paths) = outcome.watch_paths() {
            self.watch
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .set_files(paths);
        }
    }
}

/// PostCompact (and InstructionsLoaded `compact`) after `compacted`, if the
/// session has hooks. Claude Code's triggers are `manual` and `auto`: a
/// reactive compaction (after a prompt-too-long error) is `auto`.
pub(crate) async fn after_compaction(
    hooks: Option<&Arc<SessionHooks>>,
    compacted: &tack_core::query::CompactedEvent,
) {
    if let Some(h) = hooks {
        let trigger = match compacted.trigger {
            tack_core::query::CompactTrigger::Manual => "manual",
            tack_core::query::CompactTrigger::Auto | tack_core::query::CompactTrigger::Reactive => {
                "auto"
            }
        };
        h.post_compact(trigger, &compacted.summary).await;
    }
}

/// An `asyncRewake` hook's message as a new user turn on `commands` (held
/// weakly: the hooks must not keep the session open).
pub(crate) fn rewake_to(handle: &RuntimeHandle) -> Rewake {
    // Weak: a hook's rewake must not keep the session's input open.
    let commands = handle.tx.downgrade();
    let events = handle.events.clone();
    Arc::new(move |text: String| {
        if let Some(tx) = commands.upgrade() {
            let text = tack_core::request::system_reminder(&text);
            let op = Op::Submit(UserInput::text(text));
            let id = OpId("rewake".to_owned());
            let reply = Responder::Event {
                id,
                events: events.clone(),
            };
            let _ = tx.send(Envelope { op, reply });
        }
    })
}
