//! The permission gate: tack-permissions' engine behind core's `can_use_tool`,
//! PreToolUse hooks in front of it, PostToolUse hooks after each successful
//! call, and the user (or the SDK's callback) for what neither decides.
//!
//! Per call ([`Gate::check`]):
//! 1. PreToolUse hooks (if configured): `deny` (or exit 2) denies even when a
//!    rule allows; `ask` and `defer` ask the user (and deny without one);
//!    `allow` skips the mode default but deny and ask rules still apply;
//!    `updatedInput` replaces the input that the rules (and the tool) see;
//!    `additionalContext` joins the result of a call that runs (a system
//!    reminder, as PostToolUse's).
//! 2. The engine's decision. `Ask` goes to the front end as a
//!    [`PermissionRequest`](crate::event::PermissionRequest) when it answers
//!    prompts; otherwise it is a denial.
//!
//! Every denial is recorded for the turn's `permission_denials`. A deny rule's
//! message names the rule, its settings scope and its file. The mode and the
//! rules can change while the session runs (set mode, "don't ask again").
//!
//! This file holds the gate's state and its place as core's `can_use_tool`;
//! the rest, one job a file: `check` (one call's decision), `rules` (what
//! the rules alone say), `ask` (a person decides), `after` (PostToolUse and
//! the path rules a call loads), `tool_hooks` (the other hook events),
//! `auto` (auto mode's classifier), `plan` (plan mode), `relay` (asks
//! relayed to a teammate's lead), `apply_update` (an answer's permission
//! updates), `network` (the sandbox's network asks), `rule_sources` (rules
//! from settings and flags).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use futures::future::BoxFuture;
use serde_json::Value;
use tack_core::executor::ToolCallOutcome;
use tack_core::permission::{CanUseTool, PermissionDecision, PostToolUseOutcome};
use tack_permissions::{PermissionContext, PermissionMode};
use tack_protocol::stream_json::PermissionDenial;
use tack_tool::{Tool, ToolContext};
use tokio_util::sync::CancellationToken;

use crate::checkpoints::Checkpoints;
use crate::emit::Emitter;
use crate::hooks::SessionHooks;

mod after;
mod apply_update;
mod ask;
mod auto;
mod auto_environment;
mod check;
mod choices;
mod late;
mod network;
mod original;
mod plan;
pub(crate) mod relay;
mod rule_sources;
mod rules;
pub(crate) use auto::AutoMode;
pub(crate) use network::GateNetworkAsk;
pub(crate) use plan::EXIT_PLAN_MODE;
pub use rule_sources::{RulesError, build_rules, cli_rule_source, settings_rule_sources};
mod skill_shell;
mod telemetry;
mod tool_hooks;

use late::Late;

/// The turn a `Deny { interrupt: true }` answer stops.
#[derive(Debug, Clone, Default)]
pub(crate) struct TurnCancel(Arc<Mutex<Option<CancellationToken>>>);

impl TurnCancel {
    pub(crate) fn set(&self, token: Option<CancellationToken>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = token;
    }

    fn cancel(&self) {
        if let Some(t) = &*self.0.lock().unwrap_or_else(PoisonError::into_inner) {
            t.cancel();
        }
    }
}

/// The permission state of a session.
pub struct Gate {
    ctx: RwLock<PermissionContext>,
    hooks: Option<Arc<SessionHooks>>,
    denials: Mutex<Vec<PermissionDenial>>,
    /// Where `Ask` goes; `None`: nobody answers (print mode), `Ask` denies.
    prompts: Option<Emitter>,
    turn: TurnCancel,
    files: SettingsFiles,
    /// Who is asked besides the front end: the `--permission-prompt-tool`,
    /// a teammate's lead.
    others: relay::OtherAskers,
    /// File checkpointing: a file tool's file is kept before it runs.
    checkpoints: Option<Arc<Checkpoints>>,
    /// What the session gives the gate once it is up.
    late: Late,
    /// A PreToolUse hook's `defer` ends the turn with the call pending (`-p`
    /// and the SDKs); in the terminal UI it is a warning and otherwise ignored.
    defers: bool,
    /// PreToolUse hooks' `additionalContext` of calls allowed to run, by
    /// tool_use id: it joins the call's result (before PostToolUse's).
    pre_context: Mutex<HashMap<String, String>>,
    /// Where refusals are reported (`system/permission_denied`).
    events: Option<Emitter>,
    /// Auto mode's classifier and counters (`None`: a session that cannot
    /// use it, such as a hook agent's).
    auto: Option<Arc<AutoMode>>,
    /// The plan file, the mode before plan mode, the reminders told.
    plan: plan::PlanState,
}

/// How a call reached a prompt.
#[derive(Debug, Clone, Copy)]
struct Asked {
    /// A PreToolUse hook rewrote its input.
    hook_updated: bool,
    /// A PreToolUse hook asked for the prompt.
    hook_asked: bool,
}

/// The settings files a "don't ask again" answer writes to.
#[derive(Debug, Clone)]
pub(crate) struct SettingsFiles {
    /// `<project>/.claude/settings.local.json`.
    pub local: PathBuf,
    /// `<project>/.claude/settings.json`.
    pub project: PathBuf,
    /// `~/.claude/settings.json`, if there is a home.
    pub user: Option<PathBuf>,
}

impl Gate {
    pub(crate) fn new(
        ctx: PermissionContext,
        hooks: Option<Arc<SessionHooks>>,
        prompts: Option<Emitter>,
        turn: TurnCancel,
        files: SettingsFiles,
        checkpoints: Option<Arc<Checkpoints>>,
    ) -> Self {
        Gate {
            ctx: RwLock::new(ctx),
            hooks,
            denials: Mutex::new(Vec::new()),
            prompts,
            turn,
            files,
            others: relay::OtherAskers::default(),
            checkpoints,
            late: Late::default(),
            defers: false,
            pre_context: Mutex::new(HashMap::new()),
            events: None,
            auto: None,
            plan: plan::PlanState::default(),
        }
    }

    /// Reports refusals as `RuntimeEvent::PermissionDenied` on `events`.
    pub(crate) fn reporting(mut self, events: Emitter) -> Self {
        self.events = Some(events);
        self
    }

    /// Gives the session auto mode (available or, with a reason, not).
    pub(crate) fn with_auto(mut self, auto: Arc<AutoMode>) -> Self {
        self.auto = Some(auto);
        self
    }

    pub(crate) fn auto(&self) -> Option<&Arc<AutoMode>> {
        self.auto.as_ref()
    }

    /// Auto mode's recent decisions, for `/permissions`.
    pub(crate) fn auto_decisions(&self) -> Vec<crate::snapshot::AutoDecisionView> {
        self.auto
            .as_ref()
            .map(|a| a.decisions())
            .unwrap_or_default()
    }

    /// The resolved working directories (cwd first).
    pub(crate) fn working_dirs(&self) -> Vec<PathBuf> {
        self.ctx().working_dirs().to_vec()
    }

    /// The allow rules auto mode sets aside while it is on.
    pub(crate) fn set_aside_rules(&self) -> Vec<String> {
        self.ctx().set_aside_rules()
    }

    pub(crate) fn set_telemetry(&self, telemetry: Arc<crate::telemetry::SessionTelemetry>) {
        let _ = self.late.telemetry.set(telemetry);
    }

    /// After a compaction or `/clear`: the rules sent are no longer in the
    /// conversation, so a touched file loads them again.
    pub(crate) fn forget_loaded_rules(&self) {
        if let Some(rules) = self.late.path_rules.get() {
            rules.forget_loaded();
        }
    }

    /// The session's path rules, loaded after each successful file call.
    pub(crate) fn set_path_rules(&self, rules: Arc<tack_core::context::PathRules>) {
        let _ = self.late.path_rules.set(rules);
    }

    /// Honours a PreToolUse hook's `defer` (print mode and the SDKs).
    pub(crate) fn deferring(mut self, defers: bool) -> Self {
        self.defers = defers;
        self
    }

    fn ctx(&self) -> std::sync::RwLockReadGuard<'_, PermissionContext> {
        self.ctx.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Switches the mode; plan mode entered from auto mode goes on
    /// classifying what it would ask about (`useAutoModeDuringPlan`).
    pub(crate) fn set_mode(&self, mode: PermissionMode) {
        let mut ctx = self.ctx.write().unwrap_or_else(PoisonError::into_inner);
        if mode == PermissionMode::Plan {
            self.note_entering_plan(ctx.mode());
        } else if ctx.mode() == PermissionMode::Plan {
            self.note_leaving_plan();
        }
        let from_auto = ctx.mode() == PermissionMode::Auto;
        ctx.set_mode(mode);
        let during_plan = mode == PermissionMode::Plan
            && from_auto
            && self.auto.as_ref().is_some_and(|a| a.during_plan());
        let options = ctx.auto_options();
        ctx.set_auto_options(tack_permissions::AutoOptions {
            during_plan,
            ..options
        });
    }

    /// Lets `tool` answer the prompts nobody else answers.
    pub(crate) fn set_prompt_tool(&self, tool: tack_mcp::PermissionPromptTool) {
        let _ = self.others.prompt_tool.set(tool);
    }

    pub(crate) fn mode(&self) -> PermissionMode {
        self.ctx().mode()
    }

    /// The denials since the last call (one turn's `permission_denials`).
    pub fn take_denials(&self) -> Vec<PermissionDenial> {
        std::mem::take(&mut *self.denials.lock().unwrap_or_else(PoisonError::into_inner))
    }

    pub(crate) fn set_sandbox(&self, sandbox: Arc<tack_sandbox::Sandbox>) {
        let _ = self.late.sandbox.set(sandbox);
    }

    /// The sandbox's state in one line (`/sandbox`).
    pub(crate) fn sandbox_status(&self) -> String {
        self.late.sandbox.get().map_or_else(
            || "sandbox: off (Bash commands run unconfined)".to_owned(),
            |s| s.status(),
        )
    }

    /// The PreToolUse hooks' context of the call `tool_use_id`, once.
    pub(crate) fn take_pre_context(&self, tool_use_id: &str) -> Option<String> {
        self.pre_context
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(tool_use_id)
    }

    fn notify(&self, text: String) {
        if let Some(emit) = &self.prompts {
            emit.notice(crate::event::Notice::warning(text));
        }
    }
}

/// The gate as the loop's `can_use_tool`.
impl CanUseTool for Gate {
    fn check<'a>(
        &'a self,
        tool: &'a dyn Tool,
        input: &'a Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, PermissionDecision> {
        Box::pin(async move {
            let decision = Gate::check(self, tool, input, ctx).await;
            let runs_with = match &decision {
                PermissionDecision::Allow => Some(input),
                PermissionDecision::AllowWithInput(updated) => Some(updated),
                PermissionDecision::Deny { .. }
                | PermissionDecision::Stop { .. }
                | PermissionDecision::Defer => None,
            };
            if runs_with.is_none() {
                self.take_pre_context(&ctx.tool_use_id);
            }
            if let Some(t) = self.late.telemetry.get() {
                let source = self.decision_source(tool, input, ctx, &decision);
                let call = (tool.name(), input);
                t.tool_decision(&ctx.tool_use_id, call, runs_with.is_some(), source);
            }
            if let (Some(c), Some(input)) = (&self.checkpoints, runs_with) {
                // One file copied, at most `Limits::per_file` bytes.
                if let Some(why) = c.before_tool(tool.name(), input, &ctx.env) {
                    self.notify(why);
                }
            }
            decision
        })
    }

    fn post_tool_use<'a>(
        &'a self,
        tool: &'a dyn Tool,
        input: &'a Value,
        result: &'a ToolCallOutcome,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, PostToolUseOutcome> {
        Box::pin(async move {
            self.after_tool(ctx).await;
            if result.is_error {
                return self.post_tool_use_failure(tool, input, result, ctx).await;
            }
            Gate::post_tool_use(self, tool, input, result, ctx).await
        })
    }
}
