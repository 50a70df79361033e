//! Read records: what a file looked like when it was last read or written in this
//! session, and the checks Write/Edit/MultiEdit make against them.

use std::fs::Metadata;
use std::hash::{DefaultHasher, Hasher};
use std::path::Path;

use tack_tool::{ReadRecord, ToolEnv, ToolError};

pub(crate) const NOT_READ: &str = "File has not been read yet. Read it first before writing to it.";
pub(crate) const MODIFIED_SINCE_READ: &str = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.";

/// The content hash of a read record, fed in pieces (Read streams the file):
/// SipHash is a byte stream, so any split of the same bytes gives the same hash.
#[derive(Debug, Default)]
pub(crate) struct ContentHasher(DefaultHasher);

impl ContentHasher {
    pub(crate) fn new() -> Self {
        ContentHasher(DefaultHasher::new())
    }
}

impl Hasher for ContentHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }

    fn finish(&self) -> u64 {
        self.0.finish()
    }
}

pub(crate) fn content_hash(bytes: &[u8]) -> u64 {
    let mut h = ContentHasher::new();
    h.write(bytes);
    h.finish()
}

pub(crate) fn record(meta: &Metadata, bytes: &[u8], partial: bool) -> ReadRecord {
    record_hashed(meta, content_hash(bytes), partial)
}

/// A read record for content already hashed with [`ContentHasher`].
pub(crate) fn record_hashed(meta: &Metadata, content_hash: u64, partial: bool) -> ReadRecord {
    ReadRecord {
        mtime: meta.modified().ok(),
        len: meta.len(),
        content_hash,
        partial,
    }
}

/// What a caller wants from the read record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    /// Write replaces the whole file: a partial read is not enough.
    WholeFile,
    /// NotebookEdit replaces cells by id: any read of the file will do.
    AnyRead,
    /// Edit and MultiEdit replace exact strings, which must be in the file:
    /// Claude Code 2.1.328 takes such an edit of a file not read in this
    /// session (only a read that went stale refuses it). Editors' adapters
    /// rely on it: their prompts carry the file, not a Read.
    MatchedText,
}

/// Checks that `path` (which exists, with `meta` and current `bytes`) was read in
/// this session and has not changed since. A file whose mtime moved but whose
/// content is the same (touched) is not stale.
pub(crate) fn check_fresh(
    env: &ToolEnv,
    path: &Path,
    meta: &Metadata,
    bytes: &[u8],
    need: Need,
) -> Result<(), ToolError> {
    let Some(rec) = env.read_record(path) else {
        return match need {
            Need::MatchedText => Ok(()),
            Need::WholeFile | Need::AnyRead => Err(ToolError::new(NOT_READ)),
        };
    };
    if rec.partial && need == Need::WholeFile {
        return Err(ToolError::new(NOT_READ));
    }
    let same_stat =
        rec.mtime.is_some() && rec.mtime == meta.modified().ok() && rec.len == meta.len();
    if same_stat || (rec.len == bytes.len() as u64 && rec.content_hash == content_hash(bytes)) {
        Ok(())
    } else {
        Err(ToolError::new(MODIFIED_SINCE_READ))
    }
}

/// After a successful write: the new content is what the model knows.
pub(crate) fn record_written(env: &ToolEnv, path: &Path, bytes: &[u8]) {
    if let Ok(meta) = std::fs::metadata(path) {
        env.record_read(path.to_path_buf(), record(&meta, bytes, false));
    }
}

/// The model's path resolved against the session cwd and normalised lexically
/// (`.` and `..` removed), so `src/../a.rs` and `/repo/a.rs` share one record.
pub fn resolve(env: &ToolEnv, path: &str) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for c in env.resolve(path).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
