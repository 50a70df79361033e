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
//!    [`PermissionRequest`] when it answers prompts; otherwise it is a denial.
//!
//! Every denial is recorded for the turn's `permission_denials`. A deny rule's
//! message names the rule, its settings scope and its file. The mode and the
//! rules can change while the session runs (set mode, "don't ask again").

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use futures::future::BoxFuture;
use serde_json::Value;
use tack_core::context::attachment_text;
use tack_core::executor::ToolCallOutcome;
use tack_core::permission::{CanUseTool, PermissionDecision, PostToolUseOutcome};
use tack_hooks::HookEvent;
use tack_permissions::{
    Decision, PermissionContext, PermissionMode, RuleBehavior, RuleSource, Specifier, ToolPattern,
    canonical_tool_name,
};
use tack_protocol::stream_json::PermissionDenial;
use tack_tool::{Tool, ToolContext};
use tokio_util::sync::CancellationToken;

use crate::checkpoints::Checkpoints;
use crate::emit::Emitter;
use crate::event::{PermissionRequest, RuntimeEvent};
use crate::hooks::SessionHooks;
use crate::protocol::ask::{AskAnswer, PermissionAnswer};
use crate::snapshot::RuleView;

mod apply_update;
mod auto;
mod auto_environment;
mod choices;
mod late;
mod network;
mod original;
mod plan;
pub(crate) mod relay;
mod rule_sources;
pub(crate) use auto::AutoMode;
pub(crate) use network::GateNetworkAsk;
pub(crate) use plan::EXIT_PLAN_MODE;
pub use rule_sources::{RulesError, build_rules, cli_rule_source, settings_rule_sources};
mod skill_shell;
mod telemetry;
mod tool_hooks;

use late::Late;
use tool_hooks::DeniedBy;

/// The source name of rules that hold for one turn only.
const TURN_RULES: &str = "command";

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

    /// Every rule in force, as a front end lists them.
    pub(crate) fn rule_views(&self) -> Vec<RuleView> {
        self.ctx()
            .rules()
            .rules()
            .iter()
            .map(|r| RuleView {
                behavior: r.behavior.as_str().to_owned(),
                rule: r.rule.text.clone(),
                source: r.source.name.clone(),
                file: r.source.file.clone(),
            })
            .collect()
    }

    /// Allows `rules` until [`Gate::clear_turn_rules`] (one turn of a custom
    /// command with `allowed-tools`). Returns the rules that are invalid.
    pub(crate) fn add_turn_rules(&self, rules: &[String]) -> Vec<String> {
        let source = RuleSource::named(TURN_RULES);
        let mut ctx = self.ctx.write().unwrap_or_else(PoisonError::into_inner);
        rules
            .iter()
            .filter_map(|rule| {
                ctx.rules_mut()
                    .add(&source, RuleBehavior::Allow, rule)
                    .err()
                    .map(|e| e.to_string())
            })
            .collect()
    }

    pub(crate) fn clear_turn_rules(&self) {
        self.ctx
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .rules_mut()
            .remove_source(TURN_RULES);
    }

    /// The denials since the last call (one turn's `permission_denials`).
    pub fn take_denials(&self) -> Vec<PermissionDenial> {
        std::mem::take(&mut *self.denials.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// True if a deny rule names the whole tool: it is not offered to the model.
    pub fn removes_tool(&self, tool: &dyn Tool) -> bool {
        let mut names = vec![canonical_tool_name(tool.name())];
        names.extend(tool.aliases().iter().map(|a| canonical_tool_name(a)));
        // MultiEdit (Edit applied several times) and NotebookEdit edit files
        // in place as Edit does: removing Edit (so that an editor's adapter
        // sees every edit) removes them too, or the model would edit behind
        // the editor's back. Write is a tool of its own to remove.
        if names
            .iter()
            .any(|n| matches!(*n, "MultiEdit" | "NotebookEdit"))
        {
            names.push("Edit");
        }
        self.ctx().rules().rules().iter().any(|r| {
            r.behavior == RuleBehavior::Deny
                && matches!(r.rule.specifier, Specifier::None)
                && match &r.rule.tool {
                    ToolPattern::Name(n) => names.contains(&n.as_str()),
                    // `*`, `mcp__*`, `mcp__server__*`, and `mcp__server`: as in
                    // Claude Code, a bare deny takes the tools out of context.
                    ToolPattern::Glob(_) | ToolPattern::McpServer(_) => {
                        names.iter().any(|n| r.rule.tool.matches(n))
                    }
                }
        })
    }

    /// May the user's `@` mention of `path` (absolute) be attached to their
    /// message? As a Read of it would be, with one difference: what would
    /// ask (an ask rule, a path outside the working directories) does not
    /// stop it, since the user typed the path themselves, which is the
    /// approval the question waits for (Claude Code attaches `@/abs/path`
    /// from anywhere too). A deny rule stops it. No PreToolUse hook runs (no
    /// tool is called). `Err`: why not, naming the rule and its settings
    /// file.
    pub(crate) fn mention_read(&self, path: &Path) -> Result<(), String> {
        let input = serde_json::json!({ "file_path": path });
        let decision = self
            .ctx()
            .decide("Read", &[], &input, true, &[path.to_path_buf()]);
        match decision {
            Decision::Allow { .. } | Decision::Ask { .. } | Decision::Classify { .. } => Ok(()),
            Decision::Deny { reason, rule } => Err(self.deny_message(reason, rule.as_deref())),
        }
    }

    /// May a custom command's `` !`command` `` line run? As a Bash call
    /// would be, with the command's `allowed-tools` (the turn's rules) in
    /// force, and read-only git commands (`git status`, `git diff HEAD`)
    /// allowed as Claude Code allows them; there is no one to ask, so what
    /// would need approval does not run. No PreToolUse hook runs (no tool is
    /// called). `Err`: why not.
    pub(crate) fn inline_bash(&self, command: &str) -> Result<(), String> {
        let input = serde_json::json!({ "command": command });
        // The user typed the command whose line this is: its `allowed-tools`
        // are their word, which auto mode does not set aside.
        let mut ctx = self.ctx().clone();
        if ctx.mode() == PermissionMode::Auto {
            ctx.set_mode(PermissionMode::Default);
        }
        let decision = ctx.decide("Bash", &[], &input, true, &[]);
        match decision {
            Decision::Allow { .. } => Ok(()),
            Decision::Deny { reason, rule } => Err(self.deny_message(reason, rule.as_deref())),
            Decision::Ask { reason, .. } | Decision::Classify { reason, .. } => Err(format!(
                "{reason}; a command's `allowed-tools` or a permission rule must allow it"
            )),
        }
    }

    /// Why the permission rules deny this call, if they do; no hook runs
    /// and what would ask is not denied (an agent hook's reads).
    pub(crate) fn rules_deny(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
    ) -> Option<String> {
        match self.decide(tool, input, ctx, true) {
            Decision::Deny { reason, rule } => Some(self.deny_message(reason, rule.as_deref())),
            Decision::Allow { .. } | Decision::Ask { .. } | Decision::Classify { .. } => None,
        }
    }

    /// The engine's decision; `hook_allowed`: a PreToolUse hook said `allow`.
    fn decide(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        hook_allowed: bool,
    ) -> Decision {
        let paths = tool.paths_touched(input, ctx);
        let read_only = tool.is_read_only(input);
        // Claude Code's auto-allow: deny and ask rules still apply, as for a
        // hook's `allow`; only the mode's default "ask" is skipped.
        let hook_allowed = hook_allowed || self.sandbox_auto_allows(tool, input);
        self.with_engine(ctx, |engine| match hook_allowed {
            true => {
                engine.decide_hook_allowed(tool.name(), tool.aliases(), input, read_only, &paths)
            }
            false => engine.decide(tool.name(), tool.aliases(), input, read_only, &paths),
        })
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

    fn sandbox_auto_allows(&self, tool: &dyn Tool, input: &Value) -> bool {
        // Plan mode runs nothing that writes, sandboxed or not.
        let Some(sandbox) = self
            .late
            .sandbox
            .get()
            .filter(|_| self.mode() != PermissionMode::Plan)
        else {
            return false;
        };
        let command = input.get("command").and_then(Value::as_str);
        let disable = input
            .get("dangerouslyDisableSandbox")
            .and_then(Value::as_bool);
        tool.name() == "Bash"
            && command.is_some_and(|c| sandbox.auto_allows(c, disable.unwrap_or(false)))
    }

    /// The model's message for a denial: the engine's reason, plus the file of
    /// the deny rule when there is one.
    fn deny_message(&self, reason: String, rule: Option<&str>) -> String {
        let file = rule.and_then(|text| {
            self.ctx()
                .rules()
                .rules()
                .iter()
                .find(|r| r.behavior == RuleBehavior::Deny && r.rule.text == text)
                .and_then(|r| r.source.file.clone())
        });
        match file {
            Some(f) => format!("{reason} in {}", f.display()),
            None => reason,
        }
    }

    fn deny(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        message: String,
    ) -> PermissionDecision {
        self.record_denial(tool, input, ctx);
        PermissionDecision::Deny { message }
    }

    /// The call goes into `result.permission_denials`.
    fn record_denial(&self, tool: &dyn Tool, input: &Value, ctx: &ToolContext) {
        self.denials
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(PermissionDenial {
                tool_name: tool.name().to_owned(),
                tool_use_id: ctx.tool_use_id.clone(),
                tool_input: input.clone(),
            });
    }

    async fn check(&self, tool: &dyn Tool, input: &Value, ctx: &ToolContext) -> PermissionDecision {
        let tool_hooks::PreHook {
            allowed: hook_allowed,
            asks: hook_asks,
            updated,
        } = match self.pre_tool_use(tool, input, ctx).await {
            Ok(pre) => pre,
            Err(decided) => return decided,
        };
        if let Some(allowed) = self.teammate_plan_exit(tool, ctx, &updated) {
            return allowed;
        }
        let effective = updated.as_ref().unwrap_or(input);
        let auto = self.auto.as_ref().filter(|_| self.classifies());
        if let Some(auto) = auto {
            auto.note_call(tool, effective);
        }
        let hook_asked = hook_asks.is_some();
        let decision = match hook_asks {
            Some(reason) => Decision::Ask {
                reason,
                suggestions: Vec::new(),
            },
            None => self.decide(tool, effective, ctx, hook_allowed),
        };
        let hook_updated = updated.is_some();
        let allow = |v: Option<Value>| match v {
            Some(v) => PermissionDecision::AllowWithInput(v),
            None => PermissionDecision::Allow,
        };
        if let Some(auto) = auto {
            auto.record_engine(&decision, tool, effective, ctx);
        }
        match decision {
            Decision::Allow { .. } => allow(updated),
            Decision::Deny { reason, rule } => {
                let by = if rule.is_some() {
                    DeniedBy::Rule
                } else {
                    DeniedBy::Mode
                };
                let message = self.deny_message(reason, rule.as_deref());
                self.denied(tool, effective, ctx, message, by).await
            }
            Decision::Classify {
                reason,
                suggestions,
            } if let Some(auto) = auto => {
                let asked = Asked {
                    hook_updated,
                    hook_asked,
                };
                match auto
                    .judge(
                        tool,
                        effective,
                        ctx,
                        suggestions.first().map(String::as_str),
                    )
                    .await
                {
                    auto::Judged::Allow => allow(updated),
                    auto::Judged::Block { message } => {
                        self.denied(tool, effective, ctx, message, DeniedBy::Classifier)
                            .await
                    }
                    auto::Judged::Person { why, limit } => {
                        let refusal = if limit {
                            format!("{why}; with nobody to ask, this call was not run: {reason}")
                        } else {
                            format!("{why}; with nobody to ask, this call was not run")
                        };
                        let decided = self
                            .ask_someone(
                                tool,
                                effective,
                                ctx,
                                (why, suggestions),
                                asked,
                                Some(refusal),
                            )
                            .await;
                        if self.someone_answers() {
                            auto.record_person(&decided, tool, effective, ctx);
                        }
                        decided
                    }
                }
            }
            Decision::Ask {
                reason,
                suggestions,
            }
            | Decision::Classify {
                reason,
                suggestions,
            } => {
                let asked = Asked {
                    hook_updated,
                    hook_asked,
                };
                let decided = self
                    .ask_someone(tool, effective, ctx, (reason, suggestions), asked, None)
                    .await;
                if let Some(auto) = auto.filter(|_| self.someone_answers()) {
                    auto.record_person(&decided, tool, effective, ctx);
                }
                decided
            }
        }
    }

    /// Auto mode decides this session's calls now: the mode is auto, or plan
    /// with `useAutoModeDuringPlan` (the engine classifies only then).
    fn classifies(&self) -> bool {
        let ctx = self.ctx();
        match ctx.mode() {
            PermissionMode::Auto => true,
            PermissionMode::Plan => ctx.auto_options().during_plan,
            _ => false,
        }
    }

    /// A front end or the `--permission-prompt-tool` answers prompts.
    fn someone_answers(&self) -> bool {
        self.prompts.is_some() || self.others.prompt_tool.get().is_some() || self.relays()
    }

    /// A person decides: a PermissionRequest hook, the front end, the
    /// `--permission-prompt-tool`; with none of them the call is refused
    /// (`refusal`, else the reason and that no prompt is available).
    async fn ask_someone(
        &self,
        tool: &dyn Tool,
        effective: &Value,
        ctx: &ToolContext,
        (reason, suggestions): (String, Vec<String>),
        asked: Asked,
        refusal: Option<String>,
    ) -> PermissionDecision {
        let Asked {
            hook_updated,
            hook_asked,
        } = asked;
        if let Some(decided) = self
            .permission_request(tool, effective, ctx, &suggestions, hook_updated)
            .await
        {
            return decided;
        }
        if let Some(decided) = (self.ask_relay(
            tool,
            effective,
            ctx,
            (reason.clone(), &suggestions),
            hook_updated,
        ))
        .await
        {
            return decided;
        }
        match &self.prompts {
            None if self.others.prompt_tool.get().is_some() => {
                self.ask_tool(tool, effective, ctx, hook_updated).await
            }
            None if let Some(message) = refusal => {
                self.denied(tool, effective, ctx, message, DeniedBy::Classifier)
                    .await
            }
            None if hook_asked => {
                let message = format!("{reason} (no permission prompt available in print mode)");
                self.denied(tool, effective, ctx, message, DeniedBy::NobodyToAsk)
                    .await
            }
            None => {
                let message = format!("{reason} (no permission prompt available)");
                self.denied(tool, effective, ctx, message, DeniedBy::NobodyToAsk)
                    .await
            }
            Some(prompts) => {
                self.ask(
                    prompts,
                    tool,
                    effective,
                    ctx,
                    reason,
                    suggestions,
                    hook_updated,
                )
                .await
            }
        }
    }

    /// Asks the `--permission-prompt-tool` MCP tool about one call.
    async fn ask_tool(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        hook_updated: bool,
    ) -> PermissionDecision {
        let Some(prompt_tool) = self.others.prompt_tool.get() else {
            return self.deny(tool, input, ctx, "no permission prompt tool".to_owned());
        };
        let asked = prompt_tool
            .ask(tool.name(), input, &ctx.tool_use_id, &ctx.cancel)
            .await;
        let answer = match asked {
            Ok(tack_mcp::PromptDecision::Allow {
                updated_input,
                updated_permissions,
            }) => PermissionAnswer::Allow {
                updated_input: Some(updated_input),
                updates: updated_permissions
                    .into_iter()
                    .filter_map(|u| serde_json::from_value(u).ok())
                    .collect(),
            },
            Ok(tack_mcp::PromptDecision::Deny { message, interrupt }) => {
                PermissionAnswer::Deny { message, interrupt }
            }
            Err(e) => PermissionAnswer::Deny {
                message: format!("The permission prompt tool failed: {e}"),
                interrupt: false,
            },
        };
        self.apply_answer(tool, input, ctx, Some(answer), hook_updated)
    }

    /// Asks the front end about one call (`input` as the rules saw it;
    /// `hook_updated`: a PreToolUse hook rewrote it) and applies the answer.
    #[allow(clippy::too_many_arguments)]
    async fn ask(
        &self,
        prompts: &Emitter,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        reason: String,
        suggestions: Vec<String>,
        hook_updated: bool,
    ) -> PermissionDecision {
        if let Some(hooks) = self.hooks.clone().filter(|h| h.has("Notification")) {
            let message = format!("tack needs your permission to use {}", tool.name());
            // The notification must not hold up the prompt it announces.
            tokio::spawn(async move { hooks.notification("permission_prompt", message).await });
        }
        let blocked_path = tool
            .paths_touched(input, ctx)
            .into_iter()
            .find(|p| !self.ctx().working_dirs().iter().any(|d| p.starts_with(d)));
        let request = |id| PermissionRequest {
            id,
            tool_name: tool.name().to_owned(),
            input: self.shown_input(tool.name(), input),
            tool_use_id: ctx.tool_use_id.clone(),
            reason,
            suggestions,
            blocked_path,
            agent: ctx.env.agent().cloned(),
            original: original::original_file(tool.name(), input, &ctx.env.cwd()),
            choices: self.choices(tool.name()),
        };
        let Some(mut pending) =
            prompts.ask(|id| RuntimeEvent::PermissionRequest(Box::new(request(id))))
        else {
            return self.deny(tool, input, ctx, "the session is ending".to_owned());
        };
        let answer = tokio::select! {
            answer = pending.answer() => match answer {
                Some(AskAnswer::Permission(answer)) => Some(answer),
                Some(AskAnswer::Hook(_)) | None => None,
            },
            () = ctx.cancel.cancelled() => None,
        };
        self.apply_answer(tool, input, ctx, answer, hook_updated)
    }

    /// Carries out an answer to a prompt (`None`: nobody answered).
    fn apply_answer(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        answer: Option<PermissionAnswer>,
        hook_updated: bool,
    ) -> PermissionDecision {
        match answer {
            Some(PermissionAnswer::Allow {
                updated_input,
                updates,
            }) => {
                for update in &updates {
                    self.apply(update);
                }
                match updated_input {
                    Some(v) => PermissionDecision::AllowWithInput(v),
                    None if hook_updated => PermissionDecision::AllowWithInput(input.clone()),
                    None => PermissionDecision::Allow,
                }
            }
            Some(PermissionAnswer::Deny { message, interrupt }) => {
                if interrupt {
                    self.turn.cancel();
                }
                self.deny(tool, input, ctx, message)
            }
            None => self.deny(
                tool,
                input,
                ctx,
                "The user did not answer the permission request".to_owned(),
            ),
        }
    }

    /// A front end's "allow calls like this" (`Op::AddAllowRule`): `rule`
    /// joins the session's allow rules and the local settings file.
    pub(crate) fn add_allow_rule(&self, rule: &str) -> Result<PathBuf, String> {
        if tack_sys::terminal_text::has_control(rule, true) {
            return Err(format!(
                "`{}` contains control characters",
                tack_sys::terminal_text::visible(rule)
            ));
        }
        self.ctx
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .rules_mut()
            .add(&RuleSource::named("session"), RuleBehavior::Allow, rule)
            .map_err(|e| e.to_string())?;
        let file = &self.files.local;
        tack_permissions::add_allow_rule_to_local_settings(file, rule).map_err(|e| {
            format!(
                "added for this session, but not saved to {}: {e}",
                file.display()
            )
        })?;
        Ok(file.clone())
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

    async fn post_tool_use(
        &self,
        tool: &dyn Tool,
        input: &Value,
        result: &ToolCallOutcome,
        ctx: &ToolContext,
    ) -> PostToolUseOutcome {
        let mut outcome = self.post_tool_use_hooks(tool, input, result, ctx).await;
        let loaded = (self.late.path_rules.get()).and_then(|rules| {
            crate::rules::instructions_for_tool_call(rules, tool.name(), input, &ctx.env)
        });
        if let Some((trigger, files, warnings)) = loaded {
            outcome.attachments = files.iter().map(|f| attachment_text(&f.file)).collect();
            for warning in warnings {
                self.notify(format!("warning: {warning}"));
            }
            if let Some(hooks) = &self.hooks {
                hooks.instructions_loaded_for(&files, &trigger).await;
            }
        }
        outcome
    }

    async fn post_tool_use_hooks(
        &self,
        tool: &dyn Tool,
        input: &Value,
        result: &ToolCallOutcome,
        ctx: &ToolContext,
    ) -> PostToolUseOutcome {
        let event = || HookEvent::PostToolUse {
            tool_name: tool.name().to_owned(),
            tool_input: input.clone(),
            tool_response: result
                .structured
                .clone()
                .unwrap_or_else(|| Value::String(result.content.to_text())),
            tool_use_id: ctx.tool_use_id.clone(),
        };
        self.after_call("PostToolUse", event, tool, input, ctx)
            .await
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
