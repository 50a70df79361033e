//! Reading a transcript back, and repairing what a crash leaves behind.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;

use tack_protocol::{ContentBlock, Message, Role};

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::error::{StoreError, io_err};

/// The text of the synthetic result given to a tool call that never got one.
pub const INTERRUPTED_TOOL_RESULT: &str = "Interrupted by user";

/// A transcript as loaded: the conversation to continue, and what was repaired.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSession {
    /// The session id (from the records, else the file name).
    pub session_id: String,
    /// The conversation after the last compact boundary, ready to send: user and
    /// assistant turns alternate, every `tool_use` is answered by a `tool_result`
    /// in the next user message.
    pub messages: Vec<Message>,
    /// The last record of the chain; new records continue from it.
    pub leaf_uuid: Option<String>,
    /// What was skipped or repaired; the caller decides whether to show it.
    pub warnings: Vec<LoadWarning>,
    /// Lines read (including skipped ones).
    pub lines: usize,
}

/// Damage found (and worked around) while loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadWarning {
    /// The last line is incomplete (the process died while writing it); skipped.
    TornLastLine { line: usize },
    /// A line in the middle is not a valid record; skipped (the rest still loads).
    GarbledLine { line: usize, error: String },
    /// A record points at a parent that is not in the file; the chain starts there.
    MissingParent { line: usize, parent_uuid: String },
    /// A `tool_use` had no `tool_result`; a synthetic error result was added.
    InterruptedToolUse { tool_use_id: String },
    /// A `tool_result` answered no `tool_use` of the message before it; dropped.
    OrphanToolResult { tool_use_id: String },
}

impl fmt::Display for LoadWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadWarning::TornLastLine { line } => {
                write!(f, "line {line} is incomplete (interrupted write); skipped")
            }
            LoadWarning::GarbledLine { line, error } => {
                write!(f, "line {line} is not a valid record ({error}); skipped")
            }
            LoadWarning::MissingParent { line, parent_uuid } => write!(
                f,
                "line {line} continues from record {parent_uuid}, which is missing; \
                 earlier history is not loaded"
            ),
            LoadWarning::InterruptedToolUse { tool_use_id } => write!(
                f,
                "tool call {tool_use_id} never finished; recorded as interrupted"
            ),
            LoadWarning::OrphanToolResult { tool_use_id } => {
                write!(f, "tool result for unknown call {tool_use_id}; dropped")
            }
        }
    }
}

/// Loads the transcript at `path`. See [`LoadedSession`] for what is returned.
///
/// - A last line that does not parse is a torn write: skipped, with a warning.
///   A line in the middle that does not parse is skipped too (warning), rather
///   than refusing the whole session.
/// - The conversation is the chain of records ending at the last one, followed
///   backwards through `parentUuid`; it stops at a compact boundary
///   (`parentUuid: null`), so only the summary and what came after load.
/// - Records Claude Code splits per content block (same `message.id`) are merged
///   back into one message; consecutive user records become one user message.
/// - A `tool_use` without a `tool_result` gets a synthetic `is_error` result
///   ([`INTERRUPTED_TOOL_RESULT`]), in memory only.
pub fn load(path: &Path) -> Result<LoadedSession, StoreError> {
    let text = std::fs::read(path).map_err(io_err(path))?;
    let file_stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    Ok(load_chain(&text, file_stem.unwrap_or_default(), false))
}

/// Loads a sub-agent's transcript (`isSidechain: true` records, as written by
/// [`crate::Transcript::sidechain`] or by Claude Code in
/// `<session-dir>/subagents/agent-<id>.jsonl`), with the same repairs as
/// [`load`]. `session_id` is the parent session's.
pub fn load_sidechain(path: &Path) -> Result<LoadedSession, StoreError> {
    let text = std::fs::read(path).map_err(io_err(path))?;
    Ok(load_chain(&text, String::new(), true))
}

/// The fields loading needs from a record; the message stays raw JSON until the
/// record turns out to be on the chain (most of the cost of a load is parsing).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoadRecord<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    subtype: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    uuid: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    parent_uuid: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    session_id: Option<Cow<'a, str>>,
    #[serde(default)]
    is_sidechain: bool,
    #[serde(default)]
    is_api_error_message: bool,
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
}

impl LoadRecord<'_> {
    fn is_chain(&self) -> bool {
        matches!(&*self.kind, "user" | "assistant" | "system") && self.uuid.is_some()
    }

    fn is_compact_boundary(&self) -> bool {
        self.kind == "system" && self.subtype.as_deref() == Some("compact_boundary")
    }
}

/// [`load`] on the file's bytes; `default_session_id` is used when no record names one.
pub fn load_bytes(text: &[u8], default_session_id: String) -> LoadedSession {
    load_chain(text, default_session_id, false)
}

/// Loads the main chain, or with `sidechain` the sub-agent chain.
fn load_chain(text: &[u8], default_session_id: String, sidechain: bool) -> LoadedSession {
    let mut warnings = Vec::new();
    let mut records: Vec<(usize, LoadRecord<'_>)> = Vec::new();
    let raw_lines: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
    // `split` yields a final empty piece after a trailing newline.
    let n_lines = raw_lines.len() - usize::from(text.ends_with(b"\n") || text.is_empty());
    for (i, raw) in raw_lines.iter().take(n_lines).enumerate() {
        let line_no = i + 1;
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<LoadRecord<'_>>(raw) {
            Ok(record) => records.push((line_no, record)),
            Err(_) if line_no == n_lines => {
                warnings.push(LoadWarning::TornLastLine { line: line_no });
            }
            Err(e) => warnings.push(LoadWarning::GarbledLine {
                line: line_no,
                error: e.to_string(),
            }),
        }
    }

    let session_id = records
        .iter()
        .find_map(|(_, r)| r.session_id.as_deref().map(str::to_owned))
        .unwrap_or(default_session_id);
    let chain = chain_to_last_leaf(&records, sidechain, &mut warnings);
    let leaf_uuid = chain
        .last()
        .and_then(|r| r.uuid.as_deref().map(str::to_owned));
    let mut messages = to_messages(&chain);
    repair_tool_results(&mut messages, &mut warnings);
    LoadedSession {
        session_id,
        messages,
        leaf_uuid,
        warnings,
        lines: n_lines,
    }
}

/// The main-thread chain (or, with `sidechain`, the sub-agent chain) ending at
/// its last record, oldest first, cut at the last compact boundary.
fn chain_to_last_leaf<'r, 'a>(
    records: &'r [(usize, LoadRecord<'a>)],
    sidechain: bool,
    warnings: &mut Vec<LoadWarning>,
) -> Vec<&'r LoadRecord<'a>> {
    let main: Vec<&(usize, LoadRecord<'a>)> = records
        .iter()
        .filter(|(_, r)| r.is_chain() && r.is_sidechain == sidechain)
        .collect();
    let by_uuid: HashMap<&str, &(usize, LoadRecord<'a>)> = main
        .iter()
        .filter_map(|e| e.1.uuid.as_deref().map(|u| (u, *e)))
        .collect();
    let mut chain = Vec::new();
    let mut seen = HashSet::new();
    let mut current = main.last().copied();
    while let Some((line, record)) = current {
        // A cycle can only come from a hand-edited file; stop rather than loop.
        if !seen.insert(record.uuid.as_deref().unwrap_or_default()) {
            break;
        }
        chain.push(record);
        if record.is_compact_boundary() {
            break;
        }
        current = match record.parent_uuid.as_deref() {
            None => None,
            Some(parent) => {
                let found = by_uuid.get(parent).copied();
                if found.is_none() {
                    warnings.push(LoadWarning::MissingParent {
                        line: *line,
                        parent_uuid: parent.to_owned(),
                    });
                }
                found
            }
        };
    }
    chain.reverse();
    chain
}

/// Turns chain records into API messages: assistant records sharing a
/// `message.id` merge, consecutive same-role messages merge, system records and
/// synthetic API-error messages are dropped.
fn to_messages(chain: &[&LoadRecord<'_>]) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::new();
    for record in chain {
        let role = match &*record.kind {
            "user" => Role::User,
            "assistant" if !record.is_api_error_message => Role::Assistant,
            _ => continue,
        };
        let Some(raw) = record.message else { continue };
        let Ok(message) = serde_json::from_str::<Message>(raw.get()) else {
            continue;
        };
        if message.content.is_empty() {
            continue;
        }
        push_merged(
            &mut out,
            Message {
                role,
                content: message.content,
            },
        );
    }
    out
}

fn push_merged(out: &mut Vec<Message>, message: Message) {
    match out.last_mut() {
        Some(prev) if prev.role == message.role => prev.content.extend(message.content),
        _ => out.push(message),
    }
}

/// Makes every `tool_use` answered in the following user message, in order,
/// with tool results first; drops results that answer nothing.
fn repair_tool_results(messages: &mut Vec<Message>, warnings: &mut Vec<LoadWarning>) {
    let mut i = 0;
    while i < messages.len() {
        let expected: Vec<String> = match messages[i].role {
            Role::Assistant => messages[i]
                .tool_uses()
                .map(|(id, _, _)| id.to_owned())
                .collect(),
            Role::User => Vec::new(),
        };
        let next_is_user = messages.get(i + 1).is_some_and(|m| m.role == Role::User);
        if !expected.is_empty() && !next_is_user {
            messages.insert(i + 1, Message::user(Vec::new()));
        }
        if let Some(next) = messages.get_mut(i + 1).filter(|m| m.role == Role::User) {
            let mut results: HashMap<String, ContentBlock> = HashMap::new();
            let mut others = Vec::new();
            for block in std::mem::take(&mut next.content) {
                match block {
                    ContentBlock::ToolResult {
                        ref tool_use_id, ..
                    } => {
                        if expected.contains(tool_use_id) && !results.contains_key(tool_use_id) {
                            results.insert(tool_use_id.clone(), block);
                        } else {
                            warnings.push(LoadWarning::OrphanToolResult {
                                tool_use_id: tool_use_id.clone(),
                            });
                        }
                    }
                    other => others.push(other),
                }
            }
            let mut content = Vec::with_capacity(expected.len() + others.len());
            for id in &expected {
                content.push(results.remove(id).unwrap_or_else(|| {
                    warnings.push(LoadWarning::InterruptedToolUse {
                        tool_use_id: id.clone(),
                    });
                    ContentBlock::tool_result(id.clone(), INTERRUPTED_TOOL_RESULT, true)
                }));
            }
            content.extend(others);
            next.content = content;
        }
        // A user message at the very start cannot carry tool results either.
        if i == 0 && messages[0].role == Role::User {
            messages[0].content.retain(|b| match b {
                ContentBlock::ToolResult { tool_use_id, .. } => {
                    warnings.push(LoadWarning::OrphanToolResult {
                        tool_use_id: tool_use_id.clone(),
                    });
                    false
                }
                _ => true,
            });
        }
        i += 1;
    }
    if messages.iter().any(|m| m.content.is_empty()) {
        let all = std::mem::take(messages);
        for m in all.into_iter().filter(|m| !m.content.is_empty()) {
            push_merged(messages, m);
        }
    }
}
