//! [`HookRunner`]: runs the hooks matching an event, concurrently, and folds their
//! results into a [`HookOutcome`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::callback::{CallbackCall, HookCallbacks, run_callback};
use crate::config::{CommandHook, HookKind, HooksConfig};
use crate::event::HookEvent;
use crate::lifecycle::{HookLabel, HookObserver};
use crate::outcome::HookOutcome;
use crate::process::{HookRun, RunStatus, run_hook};
use crate::remote::{HookServices, run_remote};

/// Default per-hook timeout. (Claude Code's current default is 600 s for command
/// hooks, older versions used 60 s; tack uses 60 s, overridable per hook with
/// `timeout` and per runner with [`HookRunner::with_default_timeout`].)
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Default timeout of a `type: "prompt"` hook (Claude Code's).
pub const PROMPT_TIMEOUT: Duration = Duration::from_secs(30);

/// Default timeout of a `type: "agent"` hook (Claude Code's).
pub const AGENT_TIMEOUT: Duration = Duration::from_secs(60);

/// Decides a hook's `if` condition (a permission rule such as `Bash(git *)`)
/// for the tool call of the event being run: true when the call matches.
pub type Condition<'a> = &'a (dyn Fn(&str) -> bool + Sync);

/// Where an `asyncRewake` hook's exit-2 message goes: the session's owner
/// wakes the model with it as a new user turn.
pub type Rewake = Arc<dyn Fn(String) + Send + Sync>;

/// Runs configured hooks for one session. Cheap to share behind an `Arc`.
#[derive(Clone)]
pub struct HookRunner {
    config: HooksConfig,
    project_dir: PathBuf,
    cwd: PathBuf,
    session_id: String,
    transcript_path: PathBuf,
    permission_mode: Option<String>,
    /// (`agent_id`, `agent_type`) when the hooks fire for a sub-agent's tool call.
    agent: Option<(String, String)>,
    /// Where `"async": true` hooks leave what they say for the model.
    reports: Option<AsyncReports>,
    env: Vec<(String, String)>,
    default_timeout: Duration,
    callbacks: Option<Arc<dyn HookCallbacks>>,
    observer: Option<Arc<dyn HookObserver>>,
    services: Option<Arc<dyn HookServices>>,
    rewake: Option<Rewake>,
    /// `once` hooks that ran in this session (shared by clones).
    fired: Arc<Mutex<HashSet<CommandHook>>>,
}

impl std::fmt::Debug for HookRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookRunner")
            .field("config", &self.config)
            .field("project_dir", &self.project_dir)
            .field("cwd", &self.cwd)
            .field("session_id", &self.session_id)
            .field("permission_mode", &self.permission_mode)
            .field("default_timeout", &self.default_timeout)
            .field("callbacks", &self.callbacks.is_some())
            .field("observer", &self.observer.is_some())
            .finish_non_exhaustive()
    }
}

impl HookRunner {
    /// Hooks run in `project_dir` (also exported as `CLAUDE_PROJECT_DIR` and
    /// `TACK_PROJECT_DIR`) and receive `session_id` and `transcript_path`.
    pub fn new(
        config: HooksConfig,
        project_dir: &Path,
        session_id: &str,
        transcript_path: &Path,
    ) -> HookRunner {
        HookRunner {
            config,
            project_dir: project_dir.to_path_buf(),
            cwd: project_dir.to_path_buf(),
            session_id: session_id.to_string(),
            transcript_path: transcript_path.to_path_buf(),
            permission_mode: None,
            agent: None,
            reports: None,
            env: Vec::new(),
            default_timeout: DEFAULT_TIMEOUT,
            callbacks: None,
            observer: None,
            services: None,
            rewake: None,
            fired: Arc::default(),
        }
    }

    /// What runs `http`, `prompt`, `mcp_tool` and `agent` hooks (without it
    /// they fail with a non-blocking error).
    pub fn with_services(mut self, services: Arc<dyn HookServices>) -> HookRunner {
        self.services = Some(services);
        self
    }

    /// Where `asyncRewake` hooks that exit with 2 send their message.
    pub fn with_rewake(mut self, rewake: Rewake) -> HookRunner {
        self.rewake = Some(rewake);
        self
    }

    /// Tells `observer` when each command hook starts and ends.
    pub fn with_observer(mut self, observer: Arc<dyn HookObserver>) -> HookRunner {
        self.observer = Some(observer);
        self
    }

    /// Hooks see this session from now on (the session changed id: `/clear`).
    pub fn set_session(&mut self, session_id: &str, transcript_path: &Path) {
        self.session_id = session_id.to_owned();
        self.transcript_path = transcript_path.to_path_buf();
    }

    /// The executor that calls callback hooks (without one, a matching
    /// callback hook is an error in the outcome).
    pub fn with_callbacks(mut self, callbacks: Arc<dyn HookCallbacks>) -> HookRunner {
        self.callbacks = Some(callbacks);
        self
    }

    /// The session's cwd when it differs from the project dir (hooks run there and
    /// receive it as `cwd`).
    pub fn with_cwd(mut self, cwd: &Path) -> HookRunner {
        self.cwd = cwd.to_path_buf();
        self
    }

    /// Extra environment for hooks (the settings' `env`).
    pub fn with_env(mut self, env: Vec<(String, String)>) -> HookRunner {
        self.env = env;
        self
    }

    /// The timeout for hooks that do not set one.
    pub fn with_default_timeout(mut self, t: Duration) -> HookRunner {
        self.default_timeout = t;
        self
    }

    /// Keeps what `"async": true` hooks report (their `systemMessage` and
    /// `additionalContext`) in `reports` once they finish; without this it is
    /// dropped.
    pub fn with_async_reports(mut self, reports: AsyncReports) -> HookRunner {
        self.reports = Some(reports);
        self
    }

    /// The same hooks, for a sub-agent's tool calls: their input carries
    /// `agent_id` and `agent_type`, as Claude Code's do.
    pub fn with_agent(mut self, agent_id: &str, agent_type: &str) -> HookRunner {
        self.agent = Some((agent_id.to_owned(), agent_type.to_owned()));
        self
    }

    /// The `permission_mode` sent to hooks (update when the mode changes).
    pub fn set_permission_mode(&mut self, mode: &str) {
        self.permission_mode = Some(mode.to_string());
    }

    /// The directory hooks run in.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The configuration.
    pub fn config(&self) -> &HooksConfig {
        &self.config
    }

    /// True when some hook is configured for `event` (lets callers skip building
    /// the event).
    pub fn has_hooks(&self, event: &str) -> bool {
        self.config.has_hooks(event)
    }

    /// The stdin JSON for `event`.
    pub fn input_json(&self, event: &HookEvent) -> Value {
        let mut v = json!({
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": self.cwd,
            "hook_event_name": event.name(),
        });
        if let Some(m) = &self.permission_mode {
            v["permission_mode"] = json!(m);
        }
        if let Some((id, kind)) = &self.agent {
            v["agent_id"] = json!(id);
            v["agent_type"] = json!(kind);
        }
        if let Value::Object(o) = &mut v {
            o.extend(event.fields());
        }
        v
    }

    /// Runs every hook matching `event` concurrently (command hooks and callback
    /// hooks alike) and returns their combined outcome. Never fails: hooks that
    /// cannot start, crash, hang (killed at their timeout, with their whole
    /// process group), print garbage, or callbacks that fail or never answer
    /// become entries in [`HookOutcome::errors`] or plain output. `cancel` kills
    /// running hooks and abandons running callbacks.
    pub async fn run(&self, event: &HookEvent, cancel: &CancellationToken) -> HookOutcome {
        self.run_if(event, None, cancel).await
    }

    /// [`HookRunner::run`], with `condition` deciding the `if` of hooks that
    /// have one (without it, or for an event that is not about a tool call,
    /// such hooks do not run).
    pub async fn run_if(
        &self,
        event: &HookEvent,
        condition: Option<Condition<'_>>,
        cancel: &CancellationToken,
    ) -> HookOutcome {
        let (background, hooks): (Vec<_>, Vec<_>) = self
            .selected(event, condition)
            .into_iter()
            .partition(|h| h.is_async);
        let callbacks = self
            .config
            .matching_callbacks(event.name(), event.match_target());
        let mut outcome = HookOutcome::empty(event);
        if hooks.is_empty() && background.is_empty() && callbacks.is_empty() {
            return outcome;
        }
        let input_json = self.input_json(event);
        let calls = futures::future::join_all(callbacks.iter().map(|hook| {
            let call = CallbackCall {
                callback_id: hook.id.clone(),
                input: input_json.clone(),
                tool_use_id: event.tool_use_id().map(str::to_owned),
            };
            run_callback(
                self.callbacks.as_deref(),
                hook,
                call,
                hook.timeout.unwrap_or(self.default_timeout),
                cancel,
            )
        }));
        let input = Input {
            bytes: Arc::new(serde_json::to_vec(&input_json).unwrap_or_default()),
            json: Arc::new(input_json),
        };
        let project = self.project_dir.to_string_lossy().into_owned();
        let mut env = self.env.clone();
        env.push(("CLAUDE_PROJECT_DIR".into(), project.clone()));
        env.push(("TACK_PROJECT_DIR".into(), project));
        for hook in background {
            self.spawn_background(hook, event, &input, &env);
        }
        let commands = futures::future::join_all(hooks.iter().map(|h| {
            let run = self.run_handler(h, &input, &env, cancel);
            observed(self.observer.as_deref(), event, run)
        }));
        let (runs, called) = futures::future::join(commands, calls).await;
        for run in runs.into_iter().chain(called) {
            outcome.absorb(event, run);
        }
        outcome
    }

    /// The hooks for `event` whose matcher, `if` and `once` let them run now
    /// (a `once` hook is marked as run here).
    fn selected(&self, event: &HookEvent, condition: Option<Condition<'_>>) -> Vec<CommandHook> {
        self.config
            .matching(event.name(), event.match_target())
            .into_iter()
            .filter(|h| match &h.condition {
                None => true,
                Some(rule) => event.tool_call().is_some() && condition.is_some_and(|c| c(rule)),
            })
            .filter(|h| {
                !h.once
                    || self
                        .fired
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(h.clone())
            })
            .collect()
    }

    /// One handler's run, whatever its kind.
    fn run_handler(
        &self,
        hook: &CommandHook,
        input: &Input,
        env: &[(String, String)],
        cancel: &CancellationToken,
    ) -> impl std::future::Future<Output = HookRun> + Send + 'static {
        let (hook, input, env) = (hook.clone(), input.clone(), env.to_vec());
        let (cwd, services, cancel) = (self.cwd.clone(), self.services.clone(), cancel.clone());
        let default = match hook.kind {
            HookKind::Prompt { .. } => PROMPT_TIMEOUT,
            HookKind::Agent { .. } => AGENT_TIMEOUT,
            HookKind::Command | HookKind::Http { .. } | HookKind::McpTool { .. } => {
                self.default_timeout
            }
        };
        let timeout = hook.timeout.unwrap_or(default);
        async move {
            match hook.kind {
                HookKind::Command => {
                    run_hook(&hook, input.bytes, &cwd, &env, timeout, &cancel).await
                }
                HookKind::Http { .. }
                | HookKind::Prompt { .. }
                | HookKind::Agent { .. }
                | HookKind::McpTool { .. } => {
                    run_remote(
                        services.as_deref(),
                        &hook,
                        &input.json,
                        &env,
                        timeout,
                        &cancel,
                    )
                    .await
                }
            }
        }
    }

    /// Starts an `"async": true` hook: bounded by its own timeout, not by the
    /// caller (it outlives the event it was started for; its process group
    /// dies with tack). What it says goes to the async reports, or for an
    /// `asyncRewake` hook that exits with 2, to the rewake.
    fn spawn_background(
        &self,
        hook: CommandHook,
        event: &HookEvent,
        input: &Input,
        env: &[(String, String)],
    ) {
        let never = CancellationToken::new();
        let run = self.run_handler(&hook, input, env, &never);
        let (event, reports) = (event.clone(), self.reports.clone());
        let (observer, rewake) = (self.observer.clone(), self.rewake.clone());
        tokio::spawn(async move {
            let run = observed(observer.as_deref(), &event, run).await;
            match rewake {
                Some(rewake) if hook.async_rewake && run.status == RunStatus::Exited(2) => {
                    rewake(rewake_text(&hook, &run));
                }
                Some(_) | None => {
                    if let Some(reports) = reports {
                        reports.absorb(&event, run);
                    }
                }
            }
        });
    }
}

/// A hook input, as bytes for processes and as JSON for the rest.
#[derive(Clone)]
struct Input {
    bytes: Arc<Vec<u8>>,
    json: Arc<Value>,
}

/// What an `asyncRewake` hook that exited with 2 tells the model: its
/// `rewakeMessage`, then its stderr (or stdout when stderr is empty).
fn rewake_text(hook: &CommandHook, run: &HookRun) -> String {
    let said = match run.stderr.trim() {
        "" => run.stdout.trim(),
        s => s,
    };
    match (&hook.rewake_message, said) {
        (Some(m), "") => m.clone(),
        (Some(m), s) => format!("{m}\n\n{s}"),
        (None, "") => format!("Background hook `{}` exited with status 2", hook.command),
        (None, s) => s.to_owned(),
    }
}

/// `run`, with `observer` told when it starts and ends.
async fn observed(
    observer: Option<&dyn HookObserver>,
    event: &HookEvent,
    run: impl std::future::Future<Output = HookRun>,
) -> HookRun {
    let Some(observer) = observer else {
        return run.await;
    };
    let label = HookLabel::of(event);
    let id = observer.started(&label);
    let run = run.await;
    observer.finished(&id, &label, &run);
    run
}

/// What `"async": true` hooks said after they finished, for the model's next
/// turn (as Claude Code delivers it): their `systemMessage` and
/// `additionalContext`, in the order they finished. Clones share the list.
#[derive(Debug, Clone, Default)]
pub struct AsyncReports(Arc<Mutex<Vec<String>>>);

impl AsyncReports {
    pub fn new() -> AsyncReports {
        AsyncReports::default()
    }

    /// Everything reported since the last call.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn absorb(&self, event: &HookEvent, run: crate::process::HookRun) {
        let mut outcome = HookOutcome::empty(event);
        outcome.absorb(event, run);
        let said = outcome
            .system_messages()
            .iter()
            .cloned()
            .chain(outcome.additional_context());
        let mut list = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        for text in said {
            list.push(format!("{} hook (async) says: {text}", event.name()));
        }
    }
}
