//! tack's session store: one append-only JSONL transcript per session, shaped
//! like Claude Code's, so `--continue` and `--resume` can pick a conversation up
//! again after anything short of disk loss — including `kill -9`.
//!
//! # Layout
//! `<config_dir>/projects/<sanitised cwd>/<session-id>.jsonl` ([`SessionStore`]),
//! where the config dir is `~/.tack` (or `TACK_CONFIG_DIR`, resolved by the
//! caller) and the cwd is sanitised like Claude Code does ([`sanitize_cwd`]).
//!
//! # Records
//! One [`TranscriptRecord`] per line: `type` (`user` / `assistant` / `system`),
//! `uuid`, `parentUuid` (the chain), `sessionId`, `timestamp` (RFC 3339, ms),
//! `cwd`, `gitBranch`, `version`, `isSidechain`, `userType: "external"`,
//! `message` (the API message) and, on tool-result records, `toolUseResult`.
//!
//! # Writing ([`Transcript`])
//! Each append is one `write` of a complete line on an `O_APPEND` descriptor,
//! under `flock`, before the append returns; `fsync` (`sync_data`) follows on a
//! thread of the transcript's own, so no request waits for the disk.
//! The caller appends a message before showing it or sending the next request,
//! which is what makes "printed ⇒ on disk" hold.
//!
//! # Loading ([`load`])
//! Damage a crash leaves is repaired, not fatal: torn or garbled lines are
//! skipped, tool calls left without a result get a synthetic interrupted result,
//! and only what follows the last compact boundary is loaded. Each repair is
//! returned as a [`LoadWarning`]; the library prints nothing.
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - JSONL transcripts: append + fsync (off the caller's path), load + repair, listing (Claude
//!   Code's dir first, then tack's own; invariant 21):
//!   `tack-store/src/{writer,syncer,load,list,summary}.rs`
//! - sidechain transcripts (`<session-dir>/subagents/agent-<id>.jsonl`):
//!   `tack-store/src/{writer,load,list}.rs` (`Transcript::sidechain`, `load_sidechain`)
//! - `cleanupPeriodDays` (transcripts, their folders, `file-history/<session>/`):
//!   `tack-store/src/cleanup.rs` (run by `tack-runtime/src/start.rs`)
//! - file checkpoints: a file's content kept before a turn's first change to it (keyed by the
//!   turn's user message uuid), rewind to a message, limits (10 MiB a file, 100 MiB a session);
//!   the one place naming the folder, `file_history_dir` = `<config
//!   dir>/file-history/<session>/`: `tack-store/src/file_history.rs`

mod cleanup;
mod drops_turn;
mod error;
mod file_history;
mod list;
mod load;
mod paths;
mod record;
mod summary;
mod syncer;
mod writer;

pub use cleanup::{Cleanup, SWEEP_INTERVAL};
pub use drops_turn::check_drops_turn;
pub use error::StoreError;
pub use file_history::{FileHistory, FileHistoryError, Limits, Rewound, file_history_dir};
pub use list::{SessionHead, SessionStore, session_head, subagent_transcript_path};
pub use load::{
    AGENT_SETTING, INTERRUPTED_TOOL_RESULT, LoadWarning, LoadedSession, load, load_before,
    load_bytes, load_sidechain, load_until,
};
pub use paths::{is_valid_session_id, sanitize_cwd};
pub use record::TranscriptRecord;
pub use summary::SessionSummary;
pub use writer::{Mirror, RecordMeta, Transcript, TranscriptMirror, timestamp_now};
