//! `--resume-drops-turn`: before a truncating resume (`--resume-session-at`)
//! cuts a session back, check that everything cut off is the one turn the
//! caller means to drop. A prompt the caller has not seen (a message queued
//! mid-turn, a task notification) would otherwise vanish silently.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::error::{StoreError, io_err};

/// The part of a record the check reads.
#[derive(Deserialize)]
struct Entry {
    uuid: Option<String>,
    #[serde(rename = "parentUuid")]
    parent_uuid: Option<String>,
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(rename = "isSidechain", default)]
    is_sidechain: bool,
    #[serde(rename = "isMeta", default)]
    is_meta: bool,
    #[serde(default)]
    message: Option<Value>,
}

impl Entry {
    /// A user prompt (not a tool result, not a meta record).
    fn is_prompt(&self) -> bool {
        if self.kind != "user" || self.is_meta {
            return false;
        }
        match self.message.as_ref().map(|m| &m["content"]) {
            Some(Value::Array(blocks)) => !blocks.iter().all(|b| b["type"] == "tool_result"),
            _ => true,
        }
    }
}

/// Why the resume is refused: `None` when the records after `at` (on the
/// chain to the session's last record) are the prompt `drops` and what its
/// turn wrote.
pub fn check_drops_turn(path: &Path, at: &str, drops: &str) -> Result<Option<String>, StoreError> {
    let text = std::fs::read_to_string(path).map_err(io_err(path))?;
    let entries: Vec<Entry> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Entry>(l).ok())
        .filter(|e| e.uuid.is_some() && !e.is_sidechain)
        .collect();
    let by_uuid: HashMap<&str, &Entry> = entries
        .iter()
        .filter_map(|e| e.uuid.as_deref().map(|u| (u, e)))
        .collect();
    // From the last record back to `at`: what the truncation cuts, newest first.
    let mut cut = Vec::new();
    let mut at_uuid = entries.last().and_then(|e| e.uuid.as_deref());
    while let Some(uuid) = at_uuid {
        if uuid == at {
            break;
        }
        let Some(entry) = by_uuid.get(uuid) else {
            break;
        };
        cut.push(*entry);
        at_uuid = entry.parent_uuid.as_deref();
        if cut.len() > entries.len() {
            return Ok(Some("the transcript's chain loops".to_owned()));
        }
    }
    if at_uuid != Some(at) {
        return Ok(Some(format!("`{at}` is not on the session's chain")));
    }
    cut.reverse();
    let Some(first) = cut.first() else {
        return Ok(None);
    };
    if first.uuid.as_deref() != Some(drops) || !first.is_prompt() {
        return Ok(Some(format!(
            "the record after `{at}` is `{}`, not the prompt `{drops}`",
            first.uuid.as_deref().unwrap_or_default()
        )));
    }
    Ok(cut[1..].iter().find(|e| e.is_prompt()).map(|other| {
        format!(
            "the records cut off hold another prompt (`{}`) besides `{drops}`'s turn",
            other.uuid.as_deref().unwrap_or_default()
        )
    }))
}
