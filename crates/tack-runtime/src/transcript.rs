//! The session's transcript: core's [`TranscriptSink`] over a tack-store
//! [`Transcript`], writing records shaped like Claude Code's.
//!
//! The session awaits each append before it yields the event that carries the
//! message, and the loop sends no model request before its consumer has taken
//! every earlier event, so a message any front end shows is on disk before the
//! next model call (invariant 7) and the prompt is on disk before the first.
//! Each append is one `write` + `fsync` (tack-store), done in place: it is
//! short, and doing it off-thread would cost more than it saves.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tack_core::query::{AssistantMessageEvent, ToolResultsEvent};
use tack_core::session::{TranscriptEntry, TranscriptError, TranscriptSink};
use tack_protocol::{ContentBlock, Message, MessageResponse, Role};
use tack_store::{Mirror, StoreError, Transcript, TranscriptMirror, TranscriptRecord};
use tack_tool::ToolEnv;

use crate::emit::Emitter;
use crate::event::{RuntimeEvent, TranscriptMirrorFrame};

/// `--session-mirror`: each record a transcript writes also goes to the
/// front end, as the SDKs' SessionStore wants it.
struct EventMirror(Emitter);

impl TranscriptMirror for EventMirror {
    fn written(&self, path: &Path, records: &[TranscriptRecord]) {
        let entries = records
            .iter()
            .filter_map(|r| serde_json::to_value(r).ok())
            .collect();
        self.0.emit(RuntimeEvent::TranscriptMirror(Box::new(
            TranscriptMirrorFrame {
                file_path: path.to_path_buf(),
                entries,
            },
        )));
    }
}

/// The session's mirror: on with `--session-mirror`.
pub(crate) fn session_mirror(on: bool, emit: &Emitter) -> Mirror {
    Mirror(on.then(|| Arc::new(EventMirror(emit.clone())) as Arc<dyn TranscriptMirror>))
}

/// The `attachment` values (Claude Code's `{"type": "file", ...}`) of the
/// prompt about to be written: the runtime sets them before the turn, the
/// main session's sink writes them as `attachment` records after the prompt.
#[derive(Clone, Default)]
pub(crate) struct PendingAttachments(Arc<Mutex<Vec<Value>>>);

impl PendingAttachments {
    pub(crate) fn set(&self, attachments: Vec<Value>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = attachments;
    }

    fn take(&self) -> Vec<Value> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Where the session's transcripts go, to open a new one when the session
/// changes id (`/clear`). `meta` is `None` when nothing is persisted.
pub(crate) struct TranscriptPlace {
    pub store: tack_store::SessionStore,
    pub cwd: PathBuf,
    pub meta: Option<tack_store::RecordMeta>,
    pub mirror: Mirror,
    /// Shared by every main-session sink this place opens.
    pub attachments: PendingAttachments,
}

impl TranscriptPlace {
    pub(crate) fn new(
        store: tack_store::SessionStore,
        cwd: &Path,
        meta: Option<tack_store::RecordMeta>,
        mirror: Mirror,
    ) -> TranscriptPlace {
        TranscriptPlace {
            store,
            cwd: cwd.to_path_buf(),
            meta,
            mirror,
            attachments: PendingAttachments::default(),
        }
    }

    /// The transcript path for `session_id`, and its sink when persisting.
    pub(crate) fn open(
        &self,
        session_id: &str,
    ) -> Result<(PathBuf, Option<std::sync::Arc<StoreSink>>), StoreError> {
        let path = self.store.transcript_path(&self.cwd, session_id)?;
        let sink = match &self.meta {
            Some(meta) => {
                let transcript = Transcript::open(&path, session_id, meta.clone(), None)?
                    .mirrored(self.mirror.clone());
                let sink = StoreSink::new(transcript).with_attachments(self.attachments.clone());
                Some(std::sync::Arc::new(sink))
            }
            None => None,
        };
        Ok((path, sink))
    }
}

/// A transcript file as core's sink.
pub struct StoreSink {
    transcript: Mutex<Transcript>,
    path: PathBuf,
    turn: Mutex<Turn>,
    /// The main session's gate (its permission mode goes on each prompt);
    /// `None` for a sub-agent's transcript, whose prompt has no mode.
    gate: Option<Arc<crate::gate::Gate>>,
    /// Written after the next prompt.
    attachments: PendingAttachments,
    /// The main session's tool env: records name the folder the session
    /// moved to last (EnterWorktree, ExitWorktree) when they are written.
    cwd_of: Option<Arc<ToolEnv>>,
}

/// What the records of the current turn share.
#[derive(Default)]
struct Turn {
    /// Claude Code's `promptId`: the prompt's, repeated on its tool results.
    prompt_id: String,
    /// Prompts written by this sink (`turnPosition.turnIndex`, from 1).
    turns: u64,
    /// tool_use id → the uuid of the assistant record holding the call
    /// (`sourceToolAssistantUUID` of its result).
    calls: HashMap<String, String>,
}

impl StoreSink {
    pub fn new(transcript: Transcript) -> StoreSink {
        StoreSink {
            path: transcript.path().to_path_buf(),
            transcript: Mutex::new(transcript),
            turn: Mutex::new(Turn::default()),
            gate: None,
            attachments: PendingAttachments::default(),
            cwd_of: None,
        }
    }

    /// The main session's sink: the prompt's file attachments follow it.
    #[must_use]
    pub(crate) fn with_attachments(mut self, attachments: PendingAttachments) -> StoreSink {
        self.attachments = attachments;
        self
    }

    /// The main session's sink: prompts carry the gate's permission mode and
    /// where they came from, as Claude Code's do.
    #[must_use]
    pub(crate) fn with_gate(mut self, gate: Arc<crate::gate::Gate>) -> StoreSink {
        self.gate = Some(gate);
        self
    }

    /// The main session's sink: records carry the folder the session of
    /// `env` is in when each is written.
    #[must_use]
    pub(crate) fn with_cwd_of(mut self, env: Arc<ToolEnv>) -> StoreSink {
        self.cwd_of = Some(env);
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&self, entry: TranscriptEntry<'_>) -> Result<(), StoreError> {
        let mut t = self
            .transcript
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut turn = self.turn.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(moved) = self
            .cwd_of
            .as_ref()
            .and_then(|e| e.prompt_place().current())
            && moved.cwd.as_os_str() != t.cwd()
        {
            let branch = tack_git::head::branch_name(&moved.cwd);
            t.moved(moved.cwd.to_string_lossy().into_owned(), branch);
        }
        match entry {
            TranscriptEntry::Prompt { uuid, message } => {
                let mut record = t.chain_record("user");
                record.uuid = Some(uuid.to_owned());
                record.message = Some(prompt_json(message));
                turn.prompt_id = uuid::Uuid::new_v4().to_string();
                turn.turns += 1;
                let extra = &mut record.extra;
                extra.insert("promptId".into(), json!(turn.prompt_id));
                if let Some(gate) = &self.gate {
                    extra.insert("permissionMode".into(), json!(gate.mode().as_str()));
                    extra.insert("promptSource".into(), json!("sdk"));
                    extra.insert("turnOrigin".into(), json!("sdk"));
                    extra.insert(
                        "turnPosition".into(),
                        json!({"promptIndex": 0, "turnIndex": turn.turns}),
                    );
                }
                let records = with_attachments(&t, record, self.attachments.take());
                t.append_batch(records)
            }
            TranscriptEntry::Assistant(a) => {
                let records = assistant_records(&t, a, &mut turn.calls);
                t.append_grouped(records)
            }
            TranscriptEntry::ToolResults(r) => {
                // One record per tool result (as Claude Code writes them), each
                // with its `toolUseResult`, in one write.
                let mut records: Vec<TranscriptRecord> = Vec::new();
                for (i, message) in split_tool_results(&r.message).into_iter().enumerate() {
                    let mut record = t.chain_record("user");
                    if i == 0 {
                        record.uuid = Some(r.uuid.clone());
                    } else {
                        record.parent_uuid = records.last().and_then(|p| p.uuid.clone());
                    }
                    record.tool_use_result = tool_use_result(r, &message);
                    record
                        .extra
                        .insert("promptId".into(), json!(turn.prompt_id));
                    if let Some(source) = result_id(&message).and_then(|id| turn.calls.get(id)) {
                        record
                            .extra
                            .insert("sourceToolAssistantUUID".into(), json!(source));
                    }
                    record.message = Some(message_json(&message));
                    records.push(record);
                }
                t.append_batch(records)
            }
            TranscriptEntry::Meta { uuid, message } => {
                let mut record = t.chain_record("user");
                record.uuid = Some(uuid.to_owned());
                record.message = Some(message_json(message));
                record.extra.insert("isMeta".into(), Value::Bool(true));
                t.append(record).map(drop)
            }
            TranscriptEntry::Tombstone { uuid } => {
                t.void(uuid);
                Ok(())
            }
            TranscriptEntry::Branch { parent } => {
                t.set_leaf(parent.map(str::to_owned));
                Ok(())
            }
            TranscriptEntry::Compacted(c) => t
                .append_compacted(c.trigger.as_str(), c.pre_tokens, &c.messages)
                .map(drop),
        }
    }
}

impl TranscriptSink for StoreSink {
    fn append<'a>(
        &'a self,
        entry: TranscriptEntry<'a>,
    ) -> BoxFuture<'a, Result<(), TranscriptError>> {
        let written = self.write(entry).map_err(|e| TranscriptError {
            message: e.to_string(),
        });
        Box::pin(std::future::ready(written))
    }
}

/// The prompt's record followed by one `attachment` record per value,
/// chained after it.
fn with_attachments(
    t: &Transcript,
    prompt: TranscriptRecord,
    attachments: Vec<Value>,
) -> Vec<TranscriptRecord> {
    let mut records = vec![prompt];
    for attachment in attachments {
        let mut record = t.chain_record("attachment");
        record.parent_uuid = records.last().and_then(|p| p.uuid.clone());
        record.extra.insert("attachment".into(), attachment);
        records.push(record);
    }
    records
}

/// A prompt as Claude Code records it: plain text stays a string
/// (`{"role":"user","content":"..."}`), anything else is blocks.
pub(crate) fn prompt_json(message: &Message) -> Value {
    match message.content.as_slice() {
        [ContentBlock::Text { text, .. }] => json!({"role": "user", "content": text}),
        _ => message_json(message),
    }
}

fn message_json(message: &Message) -> Value {
    serde_json::to_value(message).unwrap_or(Value::Null)
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

/// An assistant message as Claude Code records it: one record per content
/// block, chained, all with the message's `id`, `requestId` and whole
/// `usage` (usage readers count each (`id`, `requestId`) once); the last has the event's uuid
/// (the one the session knows the message by). Remembers which record holds
/// each tool call in `calls`.
fn assistant_records(
    t: &Transcript,
    a: &AssistantMessageEvent,
    calls: &mut HashMap<String, String>,
) -> Vec<TranscriptRecord> {
    let response = assistant_response(a);
    let blocks = if a.message.content.is_empty() {
        vec![None]
    } else {
        a.message.content.iter().map(Some).collect()
    };
    let last = blocks.len() - 1;
    let mut records: Vec<TranscriptRecord> = Vec::with_capacity(blocks.len());
    for (i, block) in blocks.into_iter().enumerate() {
        let mut record = t.chain_record("assistant");
        record.request_id.clone_from(&a.request_id);
        if let Some(previous) = records.last() {
            record.parent_uuid.clone_from(&previous.uuid);
        }
        if i == last {
            record.uuid = Some(a.uuid.clone());
        }
        let mut message = serde_json::to_value(&response).unwrap_or(Value::Null);
        if let Some(m) = message.as_object_mut() {
            m.entry("stop_details").or_insert(Value::Null);
        }
        if let Some(block) = block {
            message["content"] = json!([block]);
            if let ContentBlock::ToolUse { id, .. } = block {
                calls.insert(id.clone(), record.uuid.clone().unwrap_or_default());
            }
        }
        record.message = Some(message);
        record.extra.insert("apiBlockIndex".into(), json!(i));
        record.extra.insert("requestedModel".into(), json!(a.model));
        record.extra.insert("madeBy".into(), json!("model"));
        records.push(record);
    }
    records
}

/// The id of the first `tool_result` in `message`.
fn result_id(message: &Message) -> Option<&str> {
    message.content.iter().find_map(|b| match b {
        ContentBlock::ToolResult { tool_use_id, .. } => Some(tool_use_id.as_str()),
        _ => None,
    })
}

/// The structured output of the tool whose result is in `message`.
pub fn tool_use_result(r: &ToolResultsEvent, message: &Message) -> Option<Value> {
    let id = result_id(message)?;
    r.results
        .iter()
        .find(|i| i.tool_use_id == id)
        .and_then(|i| i.structured.clone())
}
