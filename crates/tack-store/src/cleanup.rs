//! `cleanupPeriodDays`: transcripts (and their sessions' tool-output folders)
//! not written to for that long are removed, as Claude Code does at start-up,
//! and so are sessions' file checkpoints (`file-history/<session-id>/`).

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::file_history::file_history_dir;
use crate::list::SessionStore;
use crate::paths::is_valid_session_id;

/// What a cleanup removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cleanup {
    pub transcripts: usize,
    /// Sessions' file checkpoint folders.
    pub file_histories: usize,
    /// Files or folders that could not be removed (left for next time).
    pub failures: usize,
}

/// The sweep runs at most this often: every `tack -p` of a batch (thousands
/// a day) would otherwise read every project's folder again.
pub const SWEEP_INTERVAL: Duration = Duration::from_secs(3600);

/// The file whose modification time records the last sweep (in the config
/// dir, beside `projects/`: a file among the project folders would be one
/// more "project" to every reader of that folder).
const SWEEP_STAMP: &str = ".tack-last-cleanup";

impl SessionStore {
    /// Whether a sweep is due at `now` (none recorded within `interval`);
    /// if so, records this one. Two processes racing may both sweep, which
    /// is harmless; a stamp that cannot be read or written means a sweep.
    pub fn claim_sweep(&self, interval: Duration, now: SystemTime) -> bool {
        let stamp = self.config_dir().join(SWEEP_STAMP);
        let recent = std::fs::metadata(&stamp)
            .and_then(|m| m.modified())
            .is_ok_and(|last| now.duration_since(last).is_ok_and(|age| age < interval));
        if recent {
            return false;
        }
        if let Ok(file) = tack_sys::private_file::create_private(&stamp) {
            let _ = file.set_modified(now);
        }
        true
    }

    /// Removes every `<session-id>.jsonl` of every project last modified before
    /// `cutoff`, with the session's `<session-id>/` folder, but `keep` (the
    /// session being resumed), then every session's file checkpoints not
    /// added to since `cutoff` (a session without a transcript has them too)
    /// but `keep`'s. Anything not named like a session is left alone; nothing
    /// here fails the caller.
    pub fn remove_older_than(&self, cutoff: SystemTime, keep: Option<&Path>) -> Cleanup {
        let mut done = Cleanup::default();
        self.remove_transcripts(cutoff, keep, &mut done);
        let keep_id = keep
            .and_then(Path::file_stem)
            .and_then(|s| s.to_str())
            .map(str::to_owned);
        remove_file_histories(self.config_dir(), cutoff, keep_id.as_deref(), &mut done);
        done
    }

    fn remove_transcripts(&self, cutoff: SystemTime, keep: Option<&Path>, done: &mut Cleanup) {
        let Ok(projects) = std::fs::read_dir(self.config_dir().join("projects")) else {
            return;
        };
        for project in projects.flatten() {
            let Ok(entries) = std::fs::read_dir(project.path()) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let Some(id) = crate::paths::session_file_id(&path) else {
                    continue;
                };
                let old = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|modified| modified < cutoff);
                if !old || !entry.file_type().is_ok_and(|t| t.is_file()) || keep == Some(&path) {
                    continue;
                }
                match std::fs::remove_file(&path) {
                    Ok(()) => done.transcripts += 1,
                    Err(_) => done.failures += 1,
                }
                let folder = project.path().join(id);
                if is_dir(&folder) && std::fs::remove_dir_all(&folder).is_err() {
                    done.failures += 1;
                }
            }
        }
    }
}

/// `<config>/file-history/<session-id>/` folders last changed before `cutoff`.
fn remove_file_histories(
    config_dir: &Path,
    cutoff: SystemTime,
    keep: Option<&str>,
    done: &mut Cleanup,
) {
    let root = file_history_dir(config_dir, "");
    let Ok(entries) = std::fs::read_dir(&root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(id) = name.to_str().filter(|id| is_valid_session_id(id)) else {
            continue;
        };
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|modified| modified < cutoff);
        if old && keep != Some(id) && is_dir(&entry.path()) {
            match std::fs::remove_dir_all(entry.path()) {
                Ok(()) => done.file_histories += 1,
                Err(_) => done.failures += 1,
            }
        }
    }
}

fn is_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_transcripts_and_their_folders_go_and_everything_else_stays() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let project = store.project_dir(Path::new("/work/repo"));
        std::fs::create_dir_all(&project).unwrap();
        let old = "11111111-1111-4111-8111-111111111111";
        let new = "22222222-2222-4222-8222-222222222222";
        let kept = "33333333-3333-4333-8333-333333333333";
        for id in [old, new, kept] {
            std::fs::write(project.join(format!("{id}.jsonl")), "{}\n").unwrap();
            std::fs::create_dir_all(project.join(id).join("tool-results")).unwrap();
        }
        std::fs::write(project.join("notes.jsonl"), "keep").unwrap();
        let forty_days = Duration::from_secs(40 * 86_400);
        // Checkpoints: the old session's, the kept one's and one of a session
        // without a transcript go by age; the new session's stays.
        let orphan = "44444444-4444-4444-8444-444444444444";
        for id in [old, new, kept, orphan] {
            let dir = file_history_dir(dir.path(), id);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("0123456789abcdef@v1"), "x").unwrap();
            if id != new {
                std::fs::File::open(&dir)
                    .unwrap()
                    .set_modified(SystemTime::now() - forty_days)
                    .unwrap();
            }
        }
        let file = std::fs::File::options()
            .write(true)
            .open(project.join(format!("{old}.jsonl")))
            .unwrap();
        file.set_modified(SystemTime::now() - forty_days).unwrap();
        let kept_path = project.join(format!("{kept}.jsonl"));
        let file = std::fs::File::options()
            .write(true)
            .open(&kept_path)
            .unwrap();
        file.set_modified(SystemTime::now() - forty_days).unwrap();

        let cutoff = SystemTime::now() - Duration::from_secs(30 * 86_400);
        assert_eq!(
            store.remove_older_than(cutoff, Some(&kept_path)),
            Cleanup {
                transcripts: 1,
                file_histories: 2,
                failures: 0
            }
        );
        let mut histories: Vec<String> = std::fs::read_dir(dir.path().join("file-history"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        histories.sort();
        assert_eq!(histories, [new, kept]);
        let mut left: Vec<String> = std::fs::read_dir(&project)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                new.to_owned(),
                format!("{new}.jsonl"),
                kept.to_owned(),
                format!("{kept}.jsonl"),
                "notes.jsonl".to_owned()
            ]
        );
        // Nothing to do is not an error, and a missing store is fine.
        assert_eq!(store.remove_older_than(cutoff, None).transcripts, 1);
        assert_eq!(store.remove_older_than(cutoff, None), Cleanup::default());
        assert_eq!(
            SessionStore::new(dir.path().join("nope")).remove_older_than(cutoff, None),
            Cleanup::default()
        );
    }

    #[test]
    fn a_sweep_is_claimed_once_an_interval() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let now = SystemTime::now();
        let hour = Duration::from_secs(3600);
        let claims = [
            store.claim_sweep(hour, now),
            store.claim_sweep(hour, now + Duration::from_secs(60)),
            store.claim_sweep(hour, now + hour + Duration::from_secs(1)),
            store.claim_sweep(hour, now + hour + Duration::from_secs(2)),
        ];
        assert_eq!(claims, [true, false, true, false]);
    }
}
