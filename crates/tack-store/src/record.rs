//! One line of a transcript, shaped like Claude Code's transcript records.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A transcript line. Chain records (`type` = `user`, `assistant`, `system`)
/// link to their predecessor with `parentUuid`; other record types Claude Code
/// writes (`summary`, `file-history-snapshot`, ...) are read and ignored.
///
/// Fields tack does not model are kept in `extra`, so a Claude Code transcript
/// read and written back loses nothing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptRecord {
    #[serde(default)]
    pub parent_uuid: Option<String>,
    /// On a compact boundary: the record before the boundary (whose chain the
    /// boundary deliberately cuts with `parentUuid: null`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logical_parent_uuid: Option<String>,
    #[serde(default)]
    pub is_sidechain: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_branch: Option<String>,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The API message: `{role, content}` for users, the whole API Message
    /// (`id`, `model`, `usage`, `stop_reason`, ...) for assistants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// On user records carrying tool results: the tool's structured output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_result: Option<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TranscriptRecord {
    /// A record of `kind` with every optional field empty.
    pub fn new(kind: &str) -> Self {
        TranscriptRecord {
            parent_uuid: None,
            logical_parent_uuid: None,
            is_sidechain: false,
            user_type: None,
            cwd: None,
            session_id: None,
            version: None,
            git_branch: None,
            kind: kind.to_owned(),
            subtype: None,
            request_id: None,
            message: None,
            uuid: None,
            timestamp: None,
            tool_use_result: None,
            extra: Map::new(),
        }
    }

    /// True for the records that form the conversation chain (Claude Code
    /// chains its `attachment` records too; they carry no message).
    pub fn is_chain(&self) -> bool {
        matches!(
            self.kind.as_str(),
            "user" | "assistant" | "system" | "attachment"
        ) && self.uuid.is_some()
    }

    pub fn is_compact_boundary(&self) -> bool {
        self.kind == "system" && self.subtype.as_deref() == Some("compact_boundary")
    }

    pub(crate) fn flag(&self, name: &str) -> bool {
        self.extra.get(name).and_then(Value::as_bool) == Some(true)
    }
}
