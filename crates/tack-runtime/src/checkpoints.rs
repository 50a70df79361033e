//! File checkpointing for every front end (`CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING`,
//! the Agent SDKs' `enable_file_checkpointing`): each turn begins a snapshot
//! keyed by its user message's id, the gate keeps a file's content before a
//! file tool's first change to it in the turn, and [`crate::Command::RewindFiles`]
//! puts the files back. The store itself is `tack_store::FileHistory`.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use tack_store::{FileHistory, FileHistoryError, Limits, Rewound};
use tack_tool::ToolEnv;

use crate::place::Env;

/// The environment variable the Agent SDKs set for `enable_file_checkpointing`.
const CHECKPOINTING_ENV: &str = "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING";

/// Why files could not be rewound.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RewindError {
    /// The session keeps no checkpoints.
    #[error("File rewinding is not enabled.")]
    NotEnabled,
    /// No checkpoint was kept for the message named.
    #[error("No file checkpoint found for this message.")]
    UnknownMessage(String),
    /// A kept file or the file it restores could not be read or written.
    #[error("{}: {message}", path.display())]
    Io { path: PathBuf, message: String },
    /// A conversation rewind asked for while a turn runs or work is queued.
    #[error("Cannot rewind the conversation while a turn is running.")]
    TurnRunning,
    /// The message named is not a prompt of the conversation.
    #[error("No such prompt in the conversation.")]
    NotAPrompt,
    /// The transcript could not record the rewind; the conversation is as it was.
    #[error("The rewind could not be recorded: {0}")]
    Transcript(String),
}

impl From<FileHistoryError> for RewindError {
    fn from(error: FileHistoryError) -> RewindError {
        match error {
            FileHistoryError::UnknownMessage(id) => RewindError::UnknownMessage(id),
            FileHistoryError::Io { path, error } => RewindError::Io {
                path,
                message: error.to_string(),
            },
        }
    }
}

/// A session's checkpoints, shared by the gate (which keeps files) and the
/// session task (which begins turns and rewinds).
#[derive(Debug)]
pub(crate) struct Checkpoints(Mutex<FileHistory>);

impl Checkpoints {
    /// A session's checkpoints in `dir`, if `on` or the environment turns
    /// them on (`1`, `true`, `yes`, `on`).
    pub(crate) fn for_session(on: bool, env: &Env, dir: PathBuf) -> Option<Arc<Checkpoints>> {
        let from_env = env.get(CHECKPOINTING_ENV).is_some_and(|v| {
            ["1", "true", "yes", "on"]
                .iter()
                .any(|t| v.trim().eq_ignore_ascii_case(t))
        });
        (on || from_env).then(|| {
            let history = FileHistory::new(dir, Limits::default());
            Arc::new(Checkpoints(Mutex::new(history)))
        })
    }

    fn history(&self) -> std::sync::MutexGuard<'_, FileHistory> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A turn started by the user message `message_id` begins.
    pub(crate) fn begin(&self, message_id: &str) {
        self.history().begin(message_id);
    }

    /// `tool` is allowed to run with `input`: if it changes a file, keep the
    /// file first. A file that cannot be kept is reported, never a reason
    /// to stop the tool.
    pub(crate) fn before_tool(&self, tool: &str, input: &Value, env: &ToolEnv) -> Option<String> {
        let key = match tool {
            "Write" | "Edit" | "MultiEdit" => "file_path",
            "NotebookEdit" => "notebook_path",
            _ => return None,
        };
        let path = input.get(key)?.as_str().filter(|p| !p.is_empty())?;
        let path = tack_tools::resolve_tool_path(env, path);
        self.history()
            .before_change(&path)
            .err()
            .map(|e| format!("file checkpoint not kept: {e}"))
    }

    /// Puts the files back as they were when `message_id` was sent.
    pub(crate) fn rewind(&self, message_id: &str, dry_run: bool) -> Result<Rewound, RewindError> {
        Ok(self.history().rewind(message_id, dry_run)?)
    }
}
