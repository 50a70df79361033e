//! Persisting the conversation with tack-store, from the events the session
//! yields.
//!
//! The driver calls these *before* it prints the event and before it pulls the
//! next one. `Session` is pull-driven and the loop sends no model request before
//! the consumer has taken every earlier event, so a message that was printed is
//! on disk before the next model call (invariant 7), and the prompt is on disk
//! before the first.

use serde_json::{Value, json};
use tack_core::query::{AssistantMessageEvent, CompactedEvent, ToolResultsEvent};
use tack_protocol::{ContentBlock, Message, MessageResponse, Role};
use tack_store::{StoreError, Transcript, TranscriptRecord};

/// The session's transcript, or nothing with `--no-session-persistence`.
pub struct Persist(pub Option<Transcript>);

impl Persist {
    pub fn path(&self) -> Option<&std::path::Path> {
        self.0.as_ref().map(Transcript::path)
    }

    pub fn prompt(&mut self, message: &Message) -> Result<(), StoreError> {
        match &mut self.0 {
            Some(t) => t.append_user(message).map(drop),
            None => Ok(()),
        }
    }

    pub fn assistant(&mut self, a: &AssistantMessageEvent) -> Result<(), StoreError> {
        let Some(t) = &mut self.0 else { return Ok(()) };
        let mut record = t.chain_record("assistant");
        record.uuid = Some(a.uuid.clone());
        record.message = Some(assistant_message_json(a));
        t.append(record).map(drop)
    }

    /// One record per tool result (as Claude Code writes them), each with its
    /// `toolUseResult`, in one write.
    pub fn tool_results(&mut self, r: &ToolResultsEvent) -> Result<(), StoreError> {
        let Some(t) = &mut self.0 else { return Ok(()) };
        let mut records: Vec<TranscriptRecord> = Vec::new();
        for (i, message) in split_tool_results(&r.message).into_iter().enumerate() {
            let mut record = t.chain_record("user");
            if i == 0 {
                record.uuid = Some(r.uuid.clone());
            } else {
                record.parent_uuid = records.last().and_then(|p| p.uuid.clone());
            }
            record.tool_use_result = tool_use_result(r, &message);
            record.message = serde_json::to_value(&message).ok();
            records.push(record);
        }
        t.append_batch(records)
    }

    /// A user message the loop appended itself (Claude Code's `isMeta`).
    pub fn meta(&mut self, uuid: &str, message: &Message) -> Result<(), StoreError> {
        let Some(t) = &mut self.0 else { return Ok(()) };
        let mut record = t.chain_record("user");
        record.uuid = Some(uuid.to_owned());
        record.message = serde_json::to_value(message).ok();
        record.extra.insert("isMeta".into(), Value::Bool(true));
        t.append(record).map(drop)
    }

    /// The compact boundary and the conversation that replaces the history.
    pub fn compacted(&mut self, c: &CompactedEvent) -> Result<(), StoreError> {
        let Some(t) = &mut self.0 else { return Ok(()) };
        t.append_compacted(c.trigger.as_str(), c.pre_tokens, &c.messages)
            .map(drop)
    }

    pub fn tombstone(&mut self, uuid: &str) {
        if let Some(t) = &mut self.0 {
            t.void(uuid);
        }
    }
}

/// The API Message of an assistant event, as transcripts and stream-json carry it.
pub fn assistant_response(a: &AssistantMessageEvent) -> MessageResponse {
    MessageResponse {
        id: a.id.clone(),
        kind: "message".into(),
        role: Role::Assistant,
        model: a.model.clone(),
        content: a.message.content.clone(),
        stop_reason: a.stop_reason.clone(),
        stop_sequence: None,
        usage: a.usage.clone(),
        stop_details: None,
    }
}

fn assistant_message_json(a: &AssistantMessageEvent) -> Value {
    serde_json::to_value(assistant_response(a)).unwrap_or_else(|_| json!({}))
}

/// A tool-results message split into one message per `tool_result` block; other
/// blocks (attachments) stay together in a last message.
pub fn split_tool_results(message: &Message) -> Vec<Message> {
    let mut out = Vec::new();
    let mut rest = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::ToolResult { .. } => out.push(Message::user(vec![block.clone()])),
            _ => rest.push(block.clone()),
        }
    }
    if !rest.is_empty() {
        out.push(Message::user(rest));
    }
    out
}

/// The structured output of the tool whose result is in `message`.
pub fn tool_use_result(r: &ToolResultsEvent, message: &Message) -> Option<Value> {
    let id = message.content.iter().find_map(|b| match b {
        ContentBlock::ToolResult { tool_use_id, .. } => Some(tool_use_id.as_str()),
        _ => None,
    })?;
    r.results
        .iter()
        .find(|i| i.tool_use_id == id)
        .and_then(|i| i.structured.clone())
}
