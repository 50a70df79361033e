//! What a server keeps of its session's events for a client that attaches
//! later: the session's information and state, the asks still open, and
//! what the transcript does not hold yet of the work running now.

use std::collections::BTreeMap;

use tack_core::LoopEvent;

use super::Attached;
use crate::event::{RuntimeEvent, SessionInfo};
use crate::protocol::ask::AskId;
use crate::protocol::reply::SessionState;

#[derive(Debug, Default)]
pub(super) struct Kept {
    info: Option<SessionInfo>,
    state: Option<SessionState>,
    pub(super) asks: BTreeMap<AskId, RuntimeEvent>,
    /// The live work's events that no transcript record holds: other
    /// clients' prompts until the loop has them on disk, the response streaming now, tools'
    /// progress until their results, notices, hooks, sub-agents, turn ends.
    /// Emptied when the session goes idle.
    turn: Vec<RuntimeEvent>,
}

impl Kept {
    pub(super) fn observe(&mut self, event: &RuntimeEvent) {
        match event {
            RuntimeEvent::Started(info) => self.info = Some((**info).clone()),
            RuntimeEvent::SessionState(state) => {
                self.state = Some(*state);
                match state {
                    SessionState::Idle => self.turn.clear(),
                    SessionState::Running => self.turn.push(event.clone()),
                }
            }
            RuntimeEvent::PermissionRequest(r) => {
                self.asks.insert(r.id, event.clone());
            }
            RuntimeEvent::HookCallback(c) => {
                self.asks.insert(c.id, event.clone());
            }
            RuntimeEvent::AskWithdrawn { id } => {
                self.asks.remove(id);
            }
            RuntimeEvent::ConversationReset(reset) => {
                if let Some(info) = &mut self.info {
                    info.session_id.clone_from(&reset.new_session_id);
                }
                self.turn.push(event.clone());
            }
            RuntimeEvent::Loop(event) => self.looped(event),
            // Per client, in the session's information, or for the SDKs.
            RuntimeEvent::Reply { .. }
            | RuntimeEvent::Ended
            | RuntimeEvent::TranscriptMirror(_) => {}
            _ => self.turn.push(event.clone()),
        }
    }

    /// A loop event: messages are on disk by the time they are emitted, so
    /// they (and the deltas they were streamed as) leave the live part.
    fn looped(&mut self, event: &LoopEvent) {
        // A turn's prompt is on disk before its first request; inputs run
        // in the order they came.
        if let LoopEvent::RequestStart {
            transition: None, ..
        } = event
            && let Some(at) = self
                .turn
                .iter()
                .position(|e| matches!(e, RuntimeEvent::Input(_)))
        {
            self.turn.remove(at);
        }
        let streamed = |e: &RuntimeEvent| matches!(e, RuntimeEvent::Loop(LoopEvent::Stream(_)));
        match event {
            LoopEvent::AssistantMessage(_) | LoopEvent::Tombstone { .. } => {
                self.turn.retain(|e| !streamed(e));
            }
            LoopEvent::ToolResults(_) => self
                .turn
                .retain(|e| !matches!(e, RuntimeEvent::Loop(LoopEvent::ToolProgress(_)))),
            LoopEvent::MetaMessage { .. } | LoopEvent::Compacted(_) => {}
            _ => self.turn.push(RuntimeEvent::Loop(event.clone())),
        }
    }

    pub(super) fn attached(&self) -> Attached {
        Attached {
            info: self.info.clone(),
            state: self.state,
            asks: self.asks.values().cloned().collect(),
            turn: self.turn.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use tack_protocol::SseEvent;

    use super::*;
    use crate::event::{Notice, NoticeLevel};
    use crate::protocol::op::UserInput;

    fn request(transition: Option<tack_core::query::Transition>) -> RuntimeEvent {
        RuntimeEvent::Loop(LoopEvent::RequestStart {
            model: "m".into(),
            turn_count: 1,
            transition,
        })
    }

    #[test]
    fn the_live_turn_keeps_only_what_no_transcript_record_holds() {
        let input = |text: &str| RuntimeEvent::Input(Box::new(UserInput::text(text)));
        let stream = RuntimeEvent::Loop(LoopEvent::Stream(SseEvent::MessageStop));
        let notice = RuntimeEvent::Notice(Notice {
            level: NoticeLevel::Info,
            text: "hook said hi".into(),
        });
        let running = RuntimeEvent::SessionState(SessionState::Running);
        let mut kept = Kept::default();
        for event in [
            input("first"),
            running.clone(),
            input("second"),
            request(None),
            stream.clone(),
            notice.clone(),
        ] {
            kept.observe(&event);
        }
        // The first prompt went with its request; the second waits.
        let live = vec![
            running.clone(),
            input("second"),
            request(None),
            stream.clone(),
            notice.clone(),
        ];
        assert_eq!(kept.attached().turn, live);
        kept.observe(&RuntimeEvent::Loop(LoopEvent::Tombstone {
            uuid: "a-1".into(),
            message_id: "msg_1".into(),
        }));
        let live = vec![running, input("second"), request(None), notice];
        assert_eq!(kept.attached().turn, live);
        kept.observe(&RuntimeEvent::SessionState(SessionState::Idle));
        assert_eq!(kept.attached().turn, vec![]);
        assert_eq!(kept.attached().state, Some(SessionState::Idle));
    }
}
