//! One turn's run: the prompt made ready (mentions, context, the
//! UserPromptSubmit hook), then the session's events passed on while commands
//! are still handled; or, on resume, the calls a deferred turn left pending.

use tack_core::LoopEvent;
use tack_core::session::{Session, SessionEvent};
use tack_protocol::Message;
use tokio_util::sync::CancellationToken;

use super::Driver;
use crate::event::RuntimeEvent;
use crate::hooks::{PromptVerdict, with_context};
use crate::mentions;
use crate::prompt_size;
use crate::protocol::op::{TurnEcho, UserInput};
use crate::protocol::reply::InterruptOutcome;
use crate::snapshot::context_tokens;

impl Driver {
    pub(super) async fn run_turn(&mut self, session: &mut Session, input: UserInput) -> bool {
        self.refresh_tools(session).await;
        let echo = input.echo();
        if let Some(t) = self.emit.telemetry() {
            t.user_prompt(&input.message);
        }
        if let Some(auto) = self.policy.gate.auto() {
            auto.note_user(&input.message);
        }
        let mut message = input.message;
        let resources = session.tool_env().session_dir().join("mcp-resources");
        let mut files = Vec::new();
        if !input.verbatim {
            let attached = mentions::resolve(
                &message,
                &self.info.cwd,
                &self.policy.gate,
                self.services.mcp.as_ref(),
                &resources,
            )
            .await;
            for notice in attached.notices {
                self.emit.notice(notice);
            }
            message.content.extend(attached.blocks);
            files = attached.files;
        }
        let prompt = self.settings.with_reminders(message);
        let prompt = with_context(prompt, self.policy.gate.plan_reminder());
        // Async hooks that finished since the last prompt speak now.
        let reported = self
            .policy
            .hooks
            .as_ref()
            .and_then(|h| h.take_async_reports());
        let prompt = with_context(prompt, reported);
        let prompt = match self.policy.hooks.clone() {
            Some(h) => match h.user_prompt_submit(prompt).await {
                PromptVerdict::Send(p) => p,
                PromptVerdict::Blocked(reason) => return self.blocked(session, reason, echo),
            },
            None => prompt,
        };
        if let Some(result) = prompt_size::too_long(session, &session.config().model, &prompt) {
            self.ensure_started();
            return self.turn_ended(&result, None, echo, "");
        }
        if let Some(tool) = &self.settings.structured_output {
            tool.new_turn();
        }
        // Written after the prompt, so only now that it is sure to be sent.
        self.book.transcripts.attachments.set(files);
        self.drive(session, Some(prompt), echo).await
    }

    /// A resumed session whose last turn deferred a call: the pending calls
    /// run (PreToolUse hooks and permissions first) and the turn goes on
    /// from their results, with no new user message. `false` when the front
    /// end has gone away.
    pub(super) async fn resume_pending(&mut self, session: &mut Session) -> bool {
        self.refresh_tools(session).await;
        self.turn_running = true;
        let echo = TurnEcho {
            uuid: None,
            origin: None,
        };
        let alive = self.drive(session, None, echo).await;
        self.turn_running = false;
        alive
    }

    /// Runs the turn of `prompt` (`None`: the pending calls) to its result.
    async fn drive(
        &mut self,
        session: &mut Session,
        prompt: Option<Message>,
        echo: TurnEcho,
    ) -> bool {
        let cancel = CancellationToken::new();
        self.policy.turn_cancel.set(Some(cancel.clone()));
        let mut interrupts = Vec::new();
        let mut stop_reason: Option<String> = None;
        // Tool calls of the last assistant message still wait for results:
        // an interrupt now stops tools, not the model's stream.
        let mut tools_running = false;
        let mut alive = true;
        let mut turn = match prompt {
            Some(prompt) => session.submit(prompt, cancel.clone()),
            None => session.resume_pending(cancel.clone()),
        };
        loop {
            let event = self
                .with_commands(turn.next(), &cancel, &mut interrupts)
                .await;
            // The first event comes after the prompt is on disk.
            self.ensure_started();
            match event {
                Some(SessionEvent::Loop(event)) => {
                    match &event {
                        LoopEvent::AssistantMessage(a) => {
                            stop_reason = a.stop_reason.as_ref().map(|s| s.as_str().to_owned());
                            tools_running = a.message.tool_uses().next().is_some();
                            self.book.figures.last_context = Some(context_tokens(&a.usage));
                        }
                        LoopEvent::ToolResults(_) => tools_running = false,
                        LoopEvent::Compacted(c) => {
                            self.context_gone();
                            crate::hooks::after_compaction(self.policy.hooks.as_ref(), c).await;
                        }
                        _ => {}
                    }
                    if !self.emit.emit(RuntimeEvent::Loop(event)) {
                        alive = false;
                        break;
                    }
                }
                Some(SessionEvent::Result(result)) => {
                    // Receipts before the result (Claude Code's order).
                    for interrupter in interrupts.drain(..) {
                        interrupter.answer(InterruptOutcome::Interrupted, &self.queue);
                    }
                    let aborted = if tools_running {
                        "aborted_tools"
                    } else {
                        "aborted_streaming"
                    };
                    alive = self.turn_ended(&result, stop_reason, echo, aborted);
                    break;
                }
                None => break,
            }
        }
        drop(turn);
        self.policy.turn_cancel.set(None);
        for interrupter in interrupts {
            interrupter.answer(InterruptOutcome::Interrupted, &self.queue);
        }
        alive
    }
}
