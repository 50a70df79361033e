//! A teammate process that is gone without saying so (`kill -9`, the OOM
//! killer): the lead holds a pidfd on it (`tack_sys::pidfd`, registered
//! with the event loop: no polling), and when it exits with its job row
//! still live, marks the row as `tack agents` reads a dead one (`status:
//! killed`, a turn in progress `failed`). The row's watch
//! (`super::process_teammate`) then reports it stopped and left, and its
//! member entry is marked inactive (`isActive: false`, as Claude Code marks
//! a teammate that is not working).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

use super::enlist::update_member;
use super::files::place::TeamDir;

/// The job row at `path`, `None` while it cannot be read (mid-replace).
pub(crate) fn read_row(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// Watches the process the row at `row` names until it exits, then marks
/// the row if the process did not.
pub(crate) fn watch_exit(row: &Path) -> Result<(), String> {
    let pid = read_row(row)
        .and_then(|r| r.get("pid")?.as_i64())
        .and_then(|p| i32::try_from(p).ok())
        .filter(|p| *p > 0)
        .ok_or_else(|| format!("The teammate's job row {} names no pid", row.display()))?;
    let unwatched = |e: std::io::Error| format!("The teammate's process {pid} is not watched: {e}");
    let fd = match tack_sys::pidfd::open(pid).map_err(unwatched)? {
        // SAFETY: the OwnedFd stays open, and is the same fd, until dropped
        // with the AsyncFd that owns it.
        Some(fd) => Some(
            unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }
                .map_err(|e| unwatched(e.into_parts().1))?,
        ),
        None => None,
    };
    let row: PathBuf = row.to_path_buf();
    tokio::spawn(async move {
        if let Some(fd) = &fd {
            let _ = fd.readable().await;
        }
        mark_killed(&row, pid);
    });
    Ok(())
}

/// The row of `pid`, marked killed if it still says the process lives (a
/// row a respawn rewrote for a new process is left alone).
fn mark_killed(path: &Path, pid: i32) {
    let Some(mut row) = read_row(path) else {
        return;
    };
    let live = matches!(
        row.get("status").and_then(Value::as_str),
        Some("busy" | "waiting" | "idle" | "running")
    );
    if !live || row.get("pid").and_then(Value::as_i64) != Some(pid.into()) {
        return;
    }
    row["status"] = json!("killed");
    if matches!(
        row.get("state").and_then(Value::as_str),
        Some("working" | "blocked")
    ) {
        row["state"] = json!("failed");
    }
    row["updatedAt"] = json!(super::files::inbox::now_iso());
    let Ok(mut text) = serde_json::to_vec_pretty(&row) else {
        return;
    };
    text.push(b'\n');
    // Best effort: the row's watch needs it; nothing else waits on it.
    let _ = tack_sys::write_atomic_private(path, &text);
}

/// Marks the member `name` inactive in its team's config (best effort).
pub(crate) fn inactive(team: Option<&TeamDir>, name: &str) {
    if let Some(team) = team {
        let _ = update_member(team, name, |m| {
            m.extra.insert("isActive".into(), Value::Bool(false));
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_row_of_the_dead_process_is_marked_killed_and_others_are_left() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        let write = |row: Value| std::fs::write(&path, row.to_string()).unwrap();
        write(json!({"pid": 7, "status": "busy", "state": "working", "name": "alice"}));
        mark_killed(&path, 7);
        let mut row = read_row(&path).unwrap();
        assert!(row["updatedAt"].is_string());
        row.as_object_mut().unwrap().remove("updatedAt");
        assert_eq!(
            row,
            json!({"pid": 7, "status": "killed", "state": "failed", "name": "alice"})
        );
        for unchanged in [
            json!({"pid": 7, "status": "ended", "state": "stopped"}),
            json!({"pid": 8, "status": "idle", "state": "done"}),
        ] {
            write(unchanged.clone());
            mark_killed(&path, 7);
            assert_eq!(read_row(&path).unwrap(), unchanged);
        }
    }
}
