//! The registry through which sessions on one machine find each other, as
//! Claude Code keeps it (since 2.1.224): `<config dir>/sessions/<pid>.json`
//! for each live session, `{pid, sessionId, cwd, startedAt, version,
//! peerProtocol, kind, entrypoint, messagingSocketPath, name, status}`, and
//! beside it `<pid>.<hex>.key`, `{"peerToken"}`, readable by the user alone:
//! whoever holds the token may write to the session's messaging socket.
//! Both are removed when the session ends; a crashed session's stay, so a
//! reader checks that the socket answers.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::TeamFileError;
use super::io;

/// One session's registry entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionEntry {
    pub pid: u32,
    pub session_id: String,
    #[serde(default)]
    pub cwd: String,
    #[serde(default)]
    pub started_at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer_protocol: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entrypoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messaging_socket_path: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct KeyFile {
    peer_token: String,
}

/// `<claude_dir>/sessions`.
pub fn dir(claude_dir: &Path) -> PathBuf {
    claude_dir.join("sessions")
}

/// Writes this process's entry and key; `key_name` is the key file's middle
/// part (hex). Returns the two paths, to remove at the end.
pub fn register(
    claude_dir: &Path,
    entry: &SessionEntry,
    key_name: &str,
    token: &str,
) -> Result<(PathBuf, PathBuf), TeamFileError> {
    let dir = dir(claude_dir);
    tack_sys::private_file::create_dirs_private(&dir).map_err(TeamFileError::io(&dir))?;
    let entry_path = dir.join(format!("{}.json", entry.pid));
    let key_path = dir.join(format!("{}.{key_name}.key", entry.pid));
    io::write(
        &key_path,
        &KeyFile {
            peer_token: token.to_string(),
        },
    )?;
    io::write(&entry_path, entry)?;
    Ok((entry_path, key_path))
}

/// Every entry that parses, with the path of each one that does not (a
/// reader skips those: another tool's, or torn).
pub fn list(claude_dir: &Path) -> (Vec<SessionEntry>, Vec<TeamFileError>) {
    let (mut entries, mut bad) = (Vec::new(), Vec::new());
    let Ok(read) = std::fs::read_dir(dir(claude_dir)) else {
        return (entries, bad);
    };
    for item in read.flatten() {
        let path = item.path();
        let is_entry = path.extension().is_some_and(|e| e == "json")
            && path
                .file_stem()
                .and_then(|s| s.to_str())
                .is_some_and(|s| s.parse::<u32>().is_ok());
        if !is_entry {
            continue;
        }
        match io::read::<SessionEntry>(&path) {
            Ok(Some(entry)) => entries.push(entry),
            Ok(None) => {}
            Err(e) => bad.push(e),
        }
    }
    entries.sort_by_key(|e| e.started_at);
    (entries, bad)
}

/// The peer token of the session with `pid`.
pub fn token(claude_dir: &Path, pid: u32) -> Result<String, TeamFileError> {
    let dir = dir(claude_dir);
    let prefix = format!("{pid}.");
    let read = std::fs::read_dir(&dir).map_err(TeamFileError::io(&dir))?;
    let key = read
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name.starts_with(&prefix) && name.ends_with(".key")
        })
        .ok_or_else(|| TeamFileError::malformed(&dir, format!("no key file for process {pid}")))?;
    let file: Option<KeyFile> = io::read(&key)?;
    file.map(|k| k.peer_token)
        .ok_or_else(|| TeamFileError::malformed(&key, "it went away"))
}
