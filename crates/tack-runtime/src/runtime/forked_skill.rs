//! `/name` of a skill whose frontmatter says `context: fork`: it runs as
//! when the model invokes it, through the session's Skill tool, in a
//! sub-agent; the user's message and the agent's result join the
//! conversation (no model call follows), and the result is the turn's.

use serde_json::json;
use tack_core::session::Session;
use tack_protocol::{ContentBlock, Message};
use tack_tool::ToolContext;
use tokio_util::sync::CancellationToken;

use super::Driver;
use crate::protocol::op::UserInput;
use crate::protocol::reply::InterruptOutcome;
use crate::skill_tool::SKILL_TOOL_NAME;

impl Driver {
    /// Runs the forked skill `name` with `args` for the user's `input`
    /// (an interrupt stops it). `false` when the front end has gone away.
    pub(super) async fn forked_skill(
        &mut self,
        session: &mut Session,
        input: UserInput,
        name: String,
        args: String,
    ) -> bool {
        let echo = input.echo();
        let Some(tool) = session.tools().find(SKILL_TOOL_NAME) else {
            let why = format!(
                "Skill {name} runs in a sub-agent (context: fork), which this session cannot start"
            );
            return self.blocked(session, why, echo);
        };
        let cancel = CancellationToken::new();
        let id = format!("slash-{}", uuid::Uuid::new_v4().simple());
        let mut ctx = ToolContext::standalone(id, session.tool_env().clone());
        ctx.cancel = cancel.clone();
        let mut interrupts = Vec::new();
        let call = tool.call(json!({"skill": name, "args": args}), &ctx);
        let ran = self.with_commands(call, &cancel, &mut interrupts).await;
        for interrupter in interrupts {
            interrupter.answer(InterruptOutcome::Interrupted, &self.queue);
        }
        let answer = match ran {
            Ok(output) if !output.is_error => Ok(output.content.to_text()),
            Ok(output) => Err(output.content.to_text()),
            Err(e) => Err(e.message),
        };
        if let Ok(result) = &answer {
            let mut message: Message = input.message.clone();
            // The sub-agent's words, not the user's: wrapped as a command's
            // output, which auto mode's classifier does not read as the
            // user's instruction.
            message.content.push(ContentBlock::text(format!(
                "<local-command-stdout>{result}</local-command-stdout>"
            )));
            let appended = UserInput { message, ..input };
            if !self.append(session, appended).await {
                return false;
            }
        }
        self.answered(session, answer, echo)
    }
}
