//! The results file: one JSON line per finished task, appended when the task
//! is done (never before), so after a crash, Ctrl+C or `kill -9` the file
//! holds exactly the finished tasks and a rerun skips them. A line torn by a
//! crash mid-write (no final newline) is cut off at start.
//!
//! One run at a time writes a results file: the first holds an exclusive
//! `flock` on it (released by the kernel when that run dies, however it
//! dies), and a second run on the same file refuses at once. Only a regular
//! file is taken (a FIFO or a device would block or never hold results).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use tack_sys::file_lock::{FileLock, try_lock_exclusive};

pub struct ResultsFile {
    path: PathBuf,
    file: File,
    /// Held while this run may write the file.
    _lock: FileLock,
}

impl ResultsFile {
    /// Opens (or creates) the file, takes its lock and returns it with the
    /// ids already in it, each with its `status` (`""` when it has none).
    pub fn open(path: &Path) -> anyhow::Result<(ResultsFile, HashMap<String, String>)> {
        let cannot = || format!("cannot open the results file {}", path.display());
        // Not blocking: opening a FIFO for reading would wait for a writer.
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .with_context(cannot)?;
        if !file.metadata().with_context(cannot)?.is_file() {
            bail!(
                "the results file {} is not a regular file (a FIFO, a device or a folder)",
                path.display()
            );
        }
        let lock =
            try_lock_exclusive(file.try_clone().with_context(cannot)?).with_context(cannot)?;
        let Some(lock) = lock else {
            bail!(
                "another `tack batch` is writing {} (it holds the file's lock); wait for it to end, or give this run another --out",
                path.display()
            );
        };
        let mut text = Vec::new();
        file.read_to_end(&mut text).with_context(cannot)?;
        let whole = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let mut done = HashMap::new();
        for line in text[..whole].split(|&b| b == b'\n') {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let value: serde_json::Value = serde_json::from_slice(line)
                .with_context(|| format!("{} holds a line that is not JSON", path.display()))?;
            if let Some(id) = value.get("id").and_then(|v| v.as_str()) {
                let status = value.get("status").and_then(|v| v.as_str()).unwrap_or("");
                done.insert(id.to_owned(), status.to_owned());
            }
        }
        if whole < text.len() {
            // A torn last line: its task did not finish as far as we know.
            file.set_len(whole as u64).with_context(cannot)?;
        }
        let results = ResultsFile {
            path: path.to_owned(),
            file,
            _lock: lock,
        };
        Ok((results, done))
    }

    /// Appends one result as a whole line in one write, then syncs it.
    pub fn append(&mut self, result: &serde_json::Value) -> anyhow::Result<()> {
        let mut line = serde_json::to_vec(result)?;
        line.push(b'\n');
        let cannot = || format!("cannot write to {}", self.path.display());
        self.file.write_all(&line).with_context(cannot)?;
        self.file.sync_data().with_context(cannot)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    #[test]
    fn finished_ids_are_read_back_and_a_torn_line_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        {
            let (mut results, done) = ResultsFile::open(&path).unwrap();
            assert!(done.is_empty());
            results
                .append(&json!({"id": "a", "status": "success"}))
                .unwrap();
            results
                .append(&json!({"id": "b", "status": "error"}))
                .unwrap();
        }
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(br#"{"id": "c", "sta"#).unwrap();
        drop(f);

        let (mut results, done) = ResultsFile::open(&path).unwrap();
        assert_eq!(
            done,
            HashMap::from([
                ("a".to_owned(), "success".to_owned()),
                ("b".to_owned(), "error".to_owned())
            ])
        );
        results.append(&json!({"id": "c"})).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "{\"id\":\"a\",\"status\":\"success\"}\n{\"id\":\"b\",\"status\":\"error\"}\n{\"id\":\"c\"}\n"
        );
    }

    #[test]
    fn a_second_opener_is_refused_while_the_first_holds_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let first = ResultsFile::open(&path).unwrap();
        let err = ResultsFile::open(&path).err().unwrap();
        assert!(
            format!("{err:#}").contains("holds the file's lock"),
            "{err:#}"
        );
        drop(first);
        assert!(ResultsFile::open(&path).is_ok());
    }

    #[test]
    fn a_whole_line_that_is_not_json_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        std::fs::write(&path, "{\"id\": \"a\"}\nnot json\n").unwrap();
        let err = ResultsFile::open(&path).err().unwrap();
        assert!(format!("{err:#}").contains("not JSON"), "{err:#}");
    }
}
