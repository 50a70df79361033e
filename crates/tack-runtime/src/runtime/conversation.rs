//! The conversation as a whole: `/clear` starts a new one, a rewind goes
//! back to one of the user's prompts (Claude Code's "restore conversation").

use std::collections::HashSet;

use tack_core::session::Session;
use tack_protocol::{Message, content};

use super::Driver;
use super::turn_files::files_changed_by_turns;
use crate::checkpoints::RewindError;
use crate::event::RuntimeEvent;
use crate::protocol::op::TurnEcho;
use crate::protocol::reply::{ConversationRewound, RewindPoint};

impl Driver {
    /// `/clear`: SessionEnd hooks (`clear`), then the session goes on under a
    /// new id with no messages, in a new transcript; SessionStart hooks
    /// (`clear`) run for it, and the command's result is a success with no
    /// text. `false` when the front end has gone away.
    pub(super) async fn clear(&mut self, session: &mut Session, uuid: Option<String>) -> bool {
        self.ensure_started();
        let echo = TurnEcho { uuid, origin: None };
        if let Some(h) = &self.policy.hooks {
            h.session_end("clear").await;
        }
        let new_id = uuid::Uuid::new_v4().to_string();
        let (path, sink) = match self.book.transcripts.open(&new_id) {
            Ok(opened) => opened,
            Err(e) => {
                let reason = format!("/clear failed: {e}");
                return self.answered(session, Err(reason), echo);
            }
        };
        let old_id = session.session_id().to_owned();
        session.clear(new_id.clone(), sink.clone().map(|s| s as _));
        self.info.session_id.clone_from(&new_id);
        self.info.transcript_path = sink.map(|s| s.path().to_path_buf());
        self.settings.start_context = None;
        self.book.checkpoint_ids.clear();
        self.context_gone();
        let reset = crate::event::ConversationReset {
            old_session_id: old_id,
            new_session_id: new_id,
            user_message_uuid: echo.uuid.clone(),
        };
        if !self
            .emit
            .emit(RuntimeEvent::ConversationReset(Box::new(reset)))
        {
            return false;
        }
        if let Some(h) = self.policy.hooks.clone() {
            h.set_session(&self.info.session_id, &path);
            self.settings.start_context = h.session_start("clear", &self.info.model).await;
        }
        self.answered(session, Ok(String::new()), echo)
    }

    /// Drops the prompt `id` and everything after it (see
    /// [`crate::Command::RewindConversation`]); answers with its text.
    pub(super) async fn rewind_conversation(
        &mut self,
        session: &mut Session,
        id: &str,
    ) -> Result<ConversationRewound, RewindError> {
        let dropped = session
            .rewind_to(id)
            .await
            .map_err(|e| RewindError::Transcript(e.message))?
            .ok_or(RewindError::NotAPrompt)?;
        let kept: std::collections::HashSet<&str> =
            session.prompts().map(|(uuid, _)| uuid).collect();
        self.book
            .checkpoint_ids
            .retain(|uuid, _| kept.contains(uuid.as_str()));
        self.context_gone();
        Ok(ConversationRewound {
            prompt: prompt_text(&dropped),
            messages: session.messages().to_vec(),
        })
    }

    /// A turn ran: if it added a prompt to the conversation, its checkpoint
    /// is `checkpoint` (the newest prompt before the turn was `before`).
    pub(super) fn note_checkpoint(
        &mut self,
        session: &Session,
        before: Option<String>,
        checkpoint: Option<String>,
    ) {
        let newest = session.prompts().last().map(|(uuid, _)| uuid);
        if let (Some(newest), Some(checkpoint)) = (newest, checkpoint)
            && before.as_deref() != Some(newest)
        {
            self.book
                .checkpoint_ids
                .insert(newest.to_owned(), checkpoint);
        }
    }

    /// The prompts a rewind can go back to, oldest first.
    pub(super) fn points(&self, session: &Session) -> Vec<RewindPoint> {
        let prompts: Vec<(&str, &Message)> = session.prompts().collect();
        // A prompt is one of the conversation's messages, known by address.
        let at: HashSet<*const Message> = prompts.iter().map(|(_, m)| *m as *const _).collect();
        let changed = files_changed_by_turns(session.messages(), |m| at.contains(&(m as *const _)));
        prompts
            .into_iter()
            .zip(changed)
            .map(|((uuid, message), files)| RewindPoint {
                id: uuid.to_owned(),
                text: prompt_text(message),
                checkpoint: self.book.checkpoint_ids.get(uuid).cloned(),
                files,
            })
            .collect()
    }
}

/// What the user typed of a prompt: its text without the context the
/// runtime added (`<system-reminder>` blocks).
fn prompt_text(message: &Message) -> String {
    let texts = content::texts(&message.content).filter(|t| !t.starts_with("<system-reminder>"));
    texts.collect::<Vec<_>>().join("\n")
}
