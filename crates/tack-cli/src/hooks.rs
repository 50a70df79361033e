//! Settings hooks in print mode: one [`Hooks`] per session around
//! [`tack_hooks::HookRunner`], and what each event does here.
//!
//! - PreToolUse / PostToolUse: in [`crate::permissions::PermissionGate`].
//! - UserPromptSubmit: [`Hooks::user_prompt_submit`], before the prompt is
//!   persisted or sent: a block ends the turn with an error result; context is
//!   appended to the prompt as a `<system-reminder>`.
//! - SessionStart (`startup` / `resume`): its context is appended to the first
//!   prompt. SessionEnd (`other`): at exit, best effort, at most 1.5 s.
//! - Stop and PreCompact `auto`: [`StopHookRunner`], core's `LoopHooks` seam (a
//!   PreCompact block skips that autocompaction).
//! - PreCompact `manual`: [`Hooks::pre_compact`] before a `/compact` (a block
//!   cancels it).
//! - Notification, SubagentStop: nothing in tack emits them yet.
//!
//! Hook errors, `systemMessage`s and (verbose) plain output go to stderr. Start-up
//! spawns nothing: no hook process runs unless one is configured for the event.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;
use tack_core::query::{LoopHooks, StopHookInput, StopHookOutcome};
use tack_hooks::{HookEvent, HookOutcome, HookRunner, HooksConfig};
use tack_protocol::{ContentBlock, Message, Role};
use tokio_util::sync::CancellationToken;

/// SessionEnd hooks get this long before they are killed (Claude Code's budget).
const SESSION_END_BUDGET: Duration = Duration::from_millis(1500);

/// The hooks of one session.
pub struct Hooks {
    runner: HookRunner,
    verbose: bool,
}

/// What UserPromptSubmit hooks decided.
pub enum PromptVerdict {
    /// Send the prompt (possibly with context appended).
    Send(Message),
    /// Do not send it; the reason is for the user.
    Blocked(String),
}

impl Hooks {
    /// `None` when no hook is configured (nothing to run, ever). `sources` are
    /// (file, `hooks` value) pairs, lowest precedence first; an invalid hook
    /// configuration is an error naming the file.
    pub fn new(
        sources: &[(String, Value)],
        project_dir: &Path,
        cwd: &Path,
        session_id: &str,
        transcript_path: &Path,
        permission_mode: &str,
        verbose: bool,
    ) -> anyhow::Result<Option<Hooks>> {
        if sources.is_empty() {
            return Ok(None);
        }
        let mut config = HooksConfig::new();
        for (source, value) in sources {
            config
                .merge_value(source, value)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        for w in config.warnings() {
            eprintln!("warning: {w}");
        }
        let mut runner =
            HookRunner::new(config, project_dir, session_id, transcript_path).with_cwd(cwd);
        runner.set_permission_mode(permission_mode);
        Ok(Some(Hooks { runner, verbose }))
    }

    /// True when some hook is configured for `event`.
    pub fn has(&self, event: &str) -> bool {
        self.runner.has_hooks(event)
    }

    /// Runs `event`'s hooks and reports what is for the user on stderr.
    pub async fn run(&self, event: &HookEvent, cancel: &CancellationToken) -> HookOutcome {
        let outcome = self.runner.run(event, cancel).await;
        for e in outcome.errors() {
            eprintln!("{e}");
        }
        for m in outcome.system_messages() {
            eprintln!("{m}");
        }
        if self.verbose && !outcome.suppress_output() {
            for o in outcome.plain_output() {
                eprintln!("{} hook output: {o}", event.name());
            }
        }
        outcome
    }

    /// UserPromptSubmit for `prompt`.
    pub async fn user_prompt_submit(&self, prompt: Message) -> PromptVerdict {
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

    /// SessionStart (`startup` or `resume`): the context it adds, if any.
    pub async fn session_start(&self, source: &str, model: &str) -> Option<String> {
        if !self.has("SessionStart") {
            return None;
        }
        let event = HookEvent::SessionStart {
            source: source.to_owned(),
            model: Some(model.to_owned()),
        };
        self.run(&event, &CancellationToken::new())
            .await
            .additional_context()
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
    /// Hook context is not used (Claude Code passes hook stdout to the summary
    /// instructions only for `newCustomInstructions`, not implemented).
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
}

/// `prompt` with `context` appended as a `<system-reminder>` text block.
pub fn with_context(mut prompt: Message, context: Option<String>) -> Message {
    if let Some(context) = context {
        let text = tack_core::request::system_reminder(&context);
        prompt.content.push(ContentBlock::text(text));
    }
    prompt
}

/// Core's loop hook seams backed by the `Stop` and `PreCompact` hooks. A Stop
/// block continues the loop once per exit point: when the hooks block again while
/// `stop_hook_active` is set, the turn ends anyway (as
/// `tack_hooks::StopHookGuard` does).
pub struct StopHookRunner(pub Arc<Hooks>);

impl LoopHooks for StopHookRunner {
    fn pre_compact(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(self.0.pre_compact("auto", None))
    }

    fn stop<'a>(&'a self, input: StopHookInput<'a>) -> BoxFuture<'a, StopHookOutcome> {
        Box::pin(async move {
            if !self.0.has("Stop") {
                return StopHookOutcome::Pass;
            }
            let last = input
                .messages
                .iter()
                .rev()
                .find(|m| m.role == Role::Assistant)
                .map(Message::text);
            let event = HookEvent::Stop {
                stop_hook_active: input.stop_hook_active,
                last_assistant_message: last,
            };
            let outcome = self.0.run(&event, &CancellationToken::new()).await;
            if !outcome.should_continue() {
                let reason = outcome.stop_reason().unwrap_or_default().to_owned();
                return StopHookOutcome::Prevent { reason };
            }
            match outcome.blocked() {
                Some(reason) => StopHookOutcome::Block { reason },
                None => StopHookOutcome::Pass,
            }
        })
    }
}
