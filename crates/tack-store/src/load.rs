//! Reading a transcript back, and repairing what a crash leaves behind.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::Read as _;
use std::path::Path;

use tack_protocol::{ContentBlock, Message, Role};

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::error::{StoreError, io_err};
use crate::paths::file_kind;

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
    /// The agent the session ran as (`--agent`): the last `agent-setting`
    /// record's `agentSetting`, as Claude Code writes it and restores it on
    /// resume.
    pub agent_setting: Option<String>,
}

impl LoadedSession {
    /// Takes back the results the loader made up for the calls of the last
    /// message (the transcript ends in them: a turn that deferred a call, or
    /// one that died mid-tool), so the conversation ends in those tool_uses
    /// and a resumed print or SDK session can run them. Their warnings go
    /// too. Returns whether there were any.
    pub fn reopen_last_tool_uses(&mut self) -> bool {
        let made_up = |id: &str| {
            self.warnings.iter().any(|w| {
                matches!(w, LoadWarning::InterruptedToolUse { tool_use_id } if tool_use_id == id)
            })
        };
        let reopen = self.messages.last().is_some_and(|m| {
            m.role == Role::User
                && m.content.iter().all(|b| {
                    matches!(b, ContentBlock::ToolResult { tool_use_id, .. } if made_up(tool_use_id))
                })
        }) && self.messages.len() >= 2;
        if !reopen {
            return false;
        }
        if let Some(results) = self.messages.pop() {
            self.warnings.retain(|w| match w {
                LoadWarning::InterruptedToolUse { tool_use_id } => {
                    !results.content.iter().any(|b| {
                        matches!(b, ContentBlock::ToolResult { tool_use_id: id, .. } if id == tool_use_id)
                    })
                }
                _ => true,
            });
        }
        true
    }
}

/// Damage found (and worked around) while loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadWarning {
    /// The last line is incomplete (the process died while writing it); skipped.
    TornLastLine { line: usize },
    /// A line in the middle is not a valid record; skipped (the rest still loads).
    GarbledLine { line: usize, error: String },
    /// A record points at a parent that is not in the file (its line was lost
    /// or garbled). The conversation is joined to the intact record before it
    /// in the file (`resumed_from`, a line number), or starts there if there is
    /// none; whatever the lost record held is gone.
    MissingParent {
        line: usize,
        parent_uuid: String,
        resumed_from: Option<usize>,
    },
    /// A `tool_use` had no `tool_result`; a synthetic error result was added.
    InterruptedToolUse { tool_use_id: String },
    /// A `tool_result` answered no `tool_use` of the message before it; dropped.
    OrphanToolResult { tool_use_id: String },
    /// A block the API does not accept in a message of that role (a
    /// `tool_result` in an assistant message, a `tool_use` or thinking in a
    /// user message): dropped, or every request of the session would fail.
    MisplacedBlock {
        kind: &'static str,
        role: &'static str,
    },
    /// The file holds no conversation (`bytes` long: 0 for an empty file);
    /// the session resumes with no history.
    NothingToResume { bytes: usize },
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
            LoadWarning::MissingParent {
                line,
                parent_uuid,
                resumed_from: Some(previous),
            } => write!(
                f,
                "line {line} continues from record {parent_uuid}, which is lost; the \
                 conversation is joined to line {previous}, the intact record before it, and \
                 what the lost record held is not resumed"
            ),
            LoadWarning::MissingParent {
                line,
                parent_uuid,
                resumed_from: None,
            } => write!(
                f,
                "line {line} continues from record {parent_uuid}, which is missing; earlier \
                 history is not loaded"
            ),
            LoadWarning::InterruptedToolUse { tool_use_id } => write!(
                f,
                "tool call {tool_use_id} never finished; recorded as interrupted"
            ),
            LoadWarning::OrphanToolResult { tool_use_id } => {
                write!(f, "tool result for unknown call {tool_use_id}; dropped")
            }
            LoadWarning::MisplacedBlock { kind, role } => {
                write!(f, "a {kind} block in a {role} message; dropped")
            }
            LoadWarning::NothingToResume { bytes: 0 } => write!(
                f,
                "the transcript is empty (0 bytes): nothing to resume, starting the \
                 conversation afresh"
            ),
            LoadWarning::NothingToResume { bytes } => write!(
                f,
                "the transcript ({bytes} bytes) holds no conversation: nothing to resume, \
                 starting the conversation afresh"
            ),
        }
    }
}

/// The record type naming the agent a session runs as: `{"type":
/// "agent-setting", "agentSetting": NAME, "sessionId": ID}`.
pub const AGENT_SETTING: &str = "agent-setting";

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
    let mut file = open_transcript(path)?;
    let mut text = Vec::new();
    file.read_to_end(&mut text).map_err(io_err(path))?;
    let file_stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    Ok(load_whole(&text, file_stem.unwrap_or_default(), false))
}

/// Loads a sub-agent's transcript (`isSidechain: true` records, as written by
/// [`crate::Transcript::sidechain`] or by Claude Code in
/// `<session-dir>/subagents/agent-<id>.jsonl`), with the same repairs as
/// [`load`]. `session_id` is the parent session's.
pub fn load_sidechain(path: &Path) -> Result<LoadedSession, StoreError> {
    let text = std::fs::read(path).map_err(io_err(path))?;
    Ok(load_whole(&text, String::new(), true))
}

/// Opens `path` for reading if it is a regular file. Anything else (a
/// directory, a FIFO that would block, a device with no end) is
/// [`StoreError::NotATranscript`]; the check is made on the opened descriptor,
/// opened non-blocking.
pub(crate) fn open_transcript(path: &Path) -> Result<std::fs::File, StoreError> {
    use std::os::unix::fs::OpenOptionsExt;
    let not_a_transcript = |meta: &std::fs::Metadata| {
        let kind = file_kind(meta);
        kind.map(|kind| StoreError::NotATranscript {
            path: path.to_owned(),
            kind,
        })
    };
    let meta = std::fs::metadata(path).map_err(io_err(path))?;
    if let Some(e) = not_a_transcript(&meta) {
        return Err(e);
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
        .map_err(io_err(path))?;
    let meta = file.metadata().map_err(io_err(path))?;
    match not_a_transcript(&meta) {
        Some(e) => Err(e),
        None => Ok(file),
    }
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
    /// On an `agent-setting` record.
    #[serde(default, borrow)]
    agent_setting: Option<Cow<'a, str>>,
}

impl LoadRecord<'_> {
    fn is_chain(&self) -> bool {
        matches!(&*self.kind, "user" | "assistant" | "system" | "attachment") && self.uuid.is_some()
    }

    /// The ids of the `tool_result` blocks of a user record.
    fn tool_result_ids(&self) -> Vec<String> {
        self.block_ids("tool_result", "tool_use_id")
    }

    /// The `key` of each `kind` block of the message (none when the raw text
    /// does not even mention `kind`, so most records are not parsed here).
    fn block_ids(&self, kind: &str, key: &str) -> Vec<String> {
        let Some(raw) = self.message.filter(|m| m.get().contains(kind)) else {
            return Vec::new();
        };
        let Ok(message) = serde_json::from_str::<serde_json::Value>(raw.get()) else {
            return Vec::new();
        };
        let blocks = message.get("content").and_then(|c| c.as_array());
        blocks
            .into_iter()
            .flatten()
            .filter(|b| b.get("type").and_then(|t| t.as_str()) == Some(kind))
            .filter_map(|b| b.get(key).and_then(|v| v.as_str()).map(str::to_owned))
            .collect()
    }

    fn is_compact_boundary(&self) -> bool {
        self.kind == "system" && self.subtype.as_deref() == Some("compact_boundary")
    }
}

/// [`load`] on the file's bytes; `default_session_id` is used when no record names one.
pub fn load_bytes(text: &[u8], default_session_id: String) -> LoadedSession {
    load_whole(text, default_session_id, false)
}

/// The whole main chain, or with `sidechain` the sub-agent chain.
fn load_whole(text: &[u8], default_session_id: String, sidechain: bool) -> LoadedSession {
    // Without a leaf to find there is always a chain (maybe empty).
    load_bytes_at(text, default_session_id, None, sidechain).unwrap_or_else(|| LoadedSession {
        session_id: String::new(),
        messages: Vec::new(),
        leaf_uuid: None,
        warnings: Vec::new(),
        lines: 0,
        agent_setting: None,
    })
}

/// [`load`], but the conversation ends at the record `uuid` (an earlier point of
/// the session: `--resume-session-at`); continuing from there branches off.
pub fn load_until(path: &Path, uuid: &str) -> Result<LoadedSession, StoreError> {
    let text = std::fs::read(path).map_err(io_err(path))?;
    let file_stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    load_bytes_at(&text, file_stem.unwrap_or_default(), Some(uuid), false).ok_or_else(|| {
        StoreError::MessageNotFound {
            uuid: uuid.to_owned(),
            path: path.to_owned(),
        }
    })
}

/// [`load`], but the conversation ends before the first main-chain record
/// whose uuid is in `uuids` (at its parent): what a client attaching to a
/// live session shows as history, the live turn (whose records' uuids its
/// events carry) being replayed from those events instead. None of them in
/// the file: the whole conversation.
pub fn load_before(path: &Path, uuids: &HashSet<String>) -> Result<LoadedSession, StoreError> {
    let mut file = open_transcript(path)?;
    let mut text = Vec::new();
    file.read_to_end(&mut text).map_err(io_err(path))?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let first = text
        .split(|b| *b == b'\n')
        .filter_map(|line| serde_json::from_slice::<LoadRecord<'_>>(line).ok())
        .find(|r| {
            r.is_chain() && !r.is_sidechain && r.uuid.as_deref().is_some_and(|u| uuids.contains(u))
        });
    let Some(first) = first else {
        return Ok(load_whole(&text, stem, false));
    };
    let cut = match first.parent_uuid.as_deref() {
        Some(parent) => load_bytes_at(&text, stem.clone(), Some(parent), false),
        None => None,
    };
    Ok(cut.unwrap_or_else(|| LoadedSession {
        session_id: first.session_id.as_deref().map_or(stem, str::to_owned),
        messages: Vec::new(),
        leaf_uuid: None,
        warnings: Vec::new(),
        lines: 0,
        agent_setting: None,
    }))
}

/// The load itself: the main chain (with `sidechain`, the sub-agent chain)
/// ends at `leaf` (`None`: the last record); `None` when `leaf` is not a
/// record of that chain.
fn load_bytes_at(
    text: &[u8],
    default_session_id: String,
    leaf: Option<&str>,
    sidechain: bool,
) -> Option<LoadedSession> {
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
    let agent_setting = records
        .iter()
        .rev()
        .filter(|(_, r)| r.kind == AGENT_SETTING)
        .find_map(|(_, r)| r.agent_setting.as_deref().map(str::to_owned));
    let chain = chain_to_leaf(&records, leaf, sidechain, &mut warnings)?;
    let leaf_uuid = chain
        .last()
        .and_then(|r| r.uuid.as_deref().map(str::to_owned));
    let mut messages = to_messages(&chain, &mut warnings);
    repair_tool_results(&mut messages, &mut warnings);
    if messages.is_empty() {
        warnings.push(LoadWarning::NothingToResume { bytes: text.len() });
    }
    Some(LoadedSession {
        session_id,
        messages,
        leaf_uuid,
        warnings,
        lines: n_lines,
        agent_setting,
    })
}

/// The main-thread chain (with `sidechain`, the sub-agent chain) ending at
/// `leaf` (`None`: the last chain record), oldest first, cut at the last
/// compact boundary; `None` if `leaf` is not on that chain. A record whose
/// parent is not in the file (a line lost mid-file) is joined to the last
/// intact record before it in the file, so the history before the damage
/// still loads.
fn chain_to_leaf<'r, 'a>(
    records: &'r [(usize, LoadRecord<'a>)],
    leaf: Option<&str>,
    sidechain: bool,
    warnings: &mut Vec<LoadWarning>,
) -> Option<Vec<&'r LoadRecord<'a>>> {
    let main: Vec<&(usize, LoadRecord<'a>)> = records
        .iter()
        .filter(|(_, r)| r.is_chain() && r.is_sidechain == sidechain)
        .collect();
    let by_uuid: HashMap<&str, usize> = main
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.1.uuid.as_deref().map(|u| (u, i)))
        .collect();
    let mut chain = Vec::new();
    let mut seen = HashSet::new();
    let mut current = match leaf {
        Some(uuid) => Some(*by_uuid.get(uuid)?),
        None => main.len().checked_sub(1),
    };
    while let Some(i) = current {
        let (line, record) = main[i];
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
            Some(parent) => match by_uuid.get(parent) {
                Some(&p) => Some(p),
                None => {
                    let previous = (0..i)
                        .rev()
                        .find(|&j| !seen.contains(main[j].1.uuid.as_deref().unwrap_or_default()));
                    warnings.push(LoadWarning::MissingParent {
                        line: *line,
                        parent_uuid: parent.to_owned(),
                        resumed_from: previous.map(|j| main[j].0),
                    });
                    previous
                }
            },
        };
    }
    chain.reverse();
    recover_parallel_results(&main, &mut chain);
    Some(chain)
}

/// Claude Code writes each tool call of a message as its own record and
/// parents each result to its own call's record, so with calls in parallel
/// only the last result is on the chain; the others hang off it. Puts each
/// such result back after the assistant records of its call, unless the chain
/// already answers that call.
fn recover_parallel_results<'r, 'a>(
    main: &[&'r (usize, LoadRecord<'a>)],
    chain: &mut Vec<&'r LoadRecord<'a>>,
) {
    let on_chain: HashSet<&str> = chain.iter().filter_map(|r| r.uuid.as_deref()).collect();
    let answered: HashSet<String> = chain.iter().flat_map(|r| r.tool_result_ids()).collect();
    for (_, record) in main {
        let Some(parent) = record.parent_uuid.as_deref() else {
            continue;
        };
        let uuid = record.uuid.as_deref().unwrap_or_default();
        if record.kind != "user" || on_chain.contains(uuid) || !on_chain.contains(parent) {
            continue;
        }
        let ids = record.tool_result_ids();
        let Some(at) = chain.iter().position(|r| r.uuid.as_deref() == Some(parent)) else {
            continue;
        };
        let calls = chain[at].block_ids("tool_use", "id");
        if ids.is_empty()
            || ids
                .iter()
                .any(|id| answered.contains(id) || !calls.contains(id))
        {
            continue;
        }
        let insert = (at + 1..chain.len())
            .find(|&i| chain[i].kind != "assistant")
            .unwrap_or(chain.len());
        chain.insert(insert, record);
    }
}

/// Turns chain records into API messages: assistant records sharing a
/// `message.id` merge, consecutive same-role messages merge, system records and
/// synthetic API-error messages are dropped.
fn to_messages(chain: &[&LoadRecord<'_>], warnings: &mut Vec<LoadWarning>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::new();
    for record in chain {
        let role = match &*record.kind {
            "user" => Role::User,
            "assistant" if !record.is_api_error_message => Role::Assistant,
            _ => continue,
        };
        let Some(raw) = record.message else { continue };
        let Ok(mut message) = serde_json::from_str::<Message>(raw.get()) else {
            continue;
        };
        message
            .content
            .retain(|block| match misplaced(block, role) {
                Some(kind) => {
                    warnings.push(LoadWarning::MisplacedBlock {
                        kind,
                        role: match role {
                            Role::User => "user",
                            Role::Assistant => "assistant",
                        },
                    });
                    false
                }
                None => true,
            });
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

/// The kind of `block` if the API refuses it in a message of `role`.
fn misplaced(block: &ContentBlock, role: Role) -> Option<&'static str> {
    match (role, block) {
        (Role::Assistant, ContentBlock::ToolResult { .. }) => Some("tool_result"),
        (Role::User, ContentBlock::ToolUse { .. }) => Some("tool_use"),
        (Role::User, ContentBlock::Thinking { .. }) => Some("thinking"),
        (Role::User, ContentBlock::RedactedThinking { .. }) => Some("redacted_thinking"),
        (
            Role::Assistant,
            ContentBlock::Text { .. }
            | ContentBlock::Image { .. }
            | ContentBlock::ToolUse { .. }
            | ContentBlock::Thinking { .. }
            | ContentBlock::RedactedThinking { .. }
            | ContentBlock::Unknown(_),
        )
        | (
            Role::User,
            ContentBlock::Text { .. }
            | ContentBlock::Image { .. }
            | ContentBlock::ToolResult { .. }
            | ContentBlock::Unknown(_),
        ) => None,
    }
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
