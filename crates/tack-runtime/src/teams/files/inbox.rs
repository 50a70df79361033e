//! An agent's inbox, `inboxes/<agent>.json`: a JSON array of the messages
//! sent to it, `{from, text, summary?, timestamp, color?, read}`, oldest
//! first. A protocol message (idle, shutdown, plan approval, permission) is
//! JSON inside `text` ([`super::structured`]). Messages are only appended;
//! the reader marks them `read`.
//!
//! Locks: tack's `flock` on the inboxes folder, then Claude Code's own,
//! proper-lockfile's `<agent>.json.lock` folder (Claude Code's
//! `writeToMailbox` and `markMessagesAsRead` take it: `src/utils/teammateMailbox.ts`
//! in the published source), around every read-modify-write, so a Claude Code
//! teammate appending to the same inbox loses nothing either.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::TeamFileError;
use super::io;

/// One message in an inbox, in Claude Code's key order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InboxMessage {
    /// The sender's agent name (`team-lead`, `doc-writer-1`).
    pub from: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// ISO 8601, UTC, milliseconds (`2026-02-07T15:35:15.573Z`).
    pub timestamp: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(default)]
    pub read: bool,
    /// Keys tack does not know, kept as they were.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl InboxMessage {
    /// An unread message from `from`, stamped now.
    pub fn new(from: &str, text: String, summary: Option<String>) -> InboxMessage {
        InboxMessage {
            from: from.to_string(),
            text,
            summary,
            timestamp: now_iso(),
            color: None,
            read: false,
            extra: Map::new(),
        }
    }
}

/// Now as Claude Code stamps messages.
pub fn now_iso() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

/// Every message in the inbox at `path` (none when it does not exist).
pub fn read_all(path: &Path) -> Result<Vec<InboxMessage>, TeamFileError> {
    Ok(io::read(path)?.unwrap_or_default())
}

/// Appends `message` to the inbox at `path`, under the inboxes folder's lock
/// and Claude Code's.
pub fn append(path: &Path, message: InboxMessage) -> Result<(), TeamFileError> {
    let _lock = io::lock_dir(parent(path)?)?;
    let _cc = io::lock_cc(path)?;
    let mut messages = read_all(path)?;
    messages.push(message);
    io::write(path, &messages)
}

/// Creates the inbox at `path` as an empty array unless it exists.
pub fn ensure(path: &Path) -> Result<(), TeamFileError> {
    let _lock = io::lock_dir(parent(path)?)?;
    if path.exists() {
        return Ok(());
    }
    io::write(path, &Vec::<InboxMessage>::new())
}

/// The unread messages of the inbox at `path`, marked read in the file
/// under the lock, so two readers never both take one.
pub fn take_unread(path: &Path) -> Result<Vec<InboxMessage>, TeamFileError> {
    let _lock = io::lock_dir(parent(path)?)?;
    let _cc = io::lock_cc(path)?;
    let mut messages = read_all(path)?;
    let unread: Vec<InboxMessage> = messages.iter().filter(|m| !m.read).cloned().collect();
    if unread.is_empty() {
        return Ok(unread);
    }
    for message in &mut messages {
        message.read = true;
    }
    io::write(path, &messages)?;
    Ok(unread)
}

fn parent(path: &Path) -> Result<&Path, TeamFileError> {
    path.parent()
        .ok_or_else(|| TeamFileError::malformed(path, "an inbox must be in a folder"))
}
