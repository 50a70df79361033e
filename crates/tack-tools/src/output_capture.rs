//! One output stream of a foreground Bash command: a bounded preview (head and
//! tail) in memory, and, once the stream outgrows the preview, every byte
//! streamed to a file in the session directory, so nothing the command printed
//! is lost and memory stays bounded however much it prints. A result that
//! shows only part of a stream names the file and the stream's real size
//! (Claude Code: "Output too large (14.2MB). Full output saved to: <path>").

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::bg_tasks::create_private_file;
use crate::head_tail::HeadTail;

/// Where a stream went, for the result's first lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Saved {
    /// All of it is in the preview.
    Whole,
    /// Cut in the preview; the whole stream is in this file.
    File(PathBuf),
    /// Cut, and the file could not be written: why.
    Failed(String),
}

#[derive(Debug)]
pub(crate) struct OutputCapture {
    preview: HeadTail,
    /// Bytes the preview holds before it starts dropping the middle.
    capacity: usize,
    /// `<session_dir>/bash-output`, where the file goes.
    dir: PathBuf,
    /// `stdout` or `stderr`: the file's extension.
    stream: &'static str,
    file: Option<(File, PathBuf)>,
    failed: Option<String>,
}

impl OutputCapture {
    /// A capture whose preview keeps `preview_bytes` (half head, half tail).
    pub(crate) fn new(session_dir: &Path, stream: &'static str, preview_bytes: usize) -> Self {
        OutputCapture {
            preview: HeadTail::new(preview_bytes / 2, preview_bytes - preview_bytes / 2),
            capacity: preview_bytes,
            dir: session_dir.join("bash-output"),
            stream,
            file: None,
            failed: None,
        }
    }

    pub(crate) fn push(&mut self, chunk: &[u8]) {
        let outgrows = self.preview.total() + chunk.len() as u64 > self.capacity as u64;
        if outgrows && self.file.is_none() && self.failed.is_none() {
            // The preview still holds every byte so far: they start the file.
            let start = self.preview.whole_bytes();
            self.spill(&start);
        }
        if let Some((file, _)) = &mut self.file
            && let Err(e) = file.write_all(chunk)
        {
            self.failed = Some(e.to_string());
            self.file = None;
        }
        self.preview.push(chunk);
    }

    fn spill(&mut self, start: &[u8]) {
        let created = create_private_file(&self.dir, 'b', self.stream);
        match created.and_then(|(_, path, mut file)| {
            file.write_all(start)?;
            Ok((file, path))
        }) {
            Ok(opened) => self.file = Some(opened),
            Err(e) => self.failed = Some(e.to_string()),
        }
    }

    /// Bytes the stream produced.
    pub(crate) fn total(&self) -> u64 {
        self.preview.total()
    }

    /// What the preview holds, in at most about `budget` bytes; nothing is
    /// written.
    pub(crate) fn peek(&self, budget: usize) -> String {
        self.preview.render(budget)
    }

    /// The stream in at most about `budget` bytes, and where the whole of it
    /// is if that is not all of it. A stream cut only now (it fit its own
    /// preview but not the budget) is written to its file now.
    pub(crate) fn finish(&mut self, budget: usize) -> (String, Saved) {
        let text = self.preview.render(budget).trim_end().to_owned();
        let cut = !(self.preview.is_whole() && self.total() <= budget as u64);
        if cut && self.file.is_none() && self.failed.is_none() {
            let all = self.preview.whole_bytes();
            self.spill(&all);
        }
        if let Some((file, _)) = &mut self.file
            && let Err(e) = file.flush()
        {
            self.failed = Some(e.to_string());
            self.file = None;
        }
        let saved = match (&self.file, &self.failed) {
            _ if !cut => Saved::Whole,
            (Some((_, path)), _) => Saved::File(path.clone()),
            (None, Some(e)) => Saved::Failed(e.clone()),
            (None, None) => Saved::Failed("no file was written".to_owned()),
        };
        (text, saved)
    }
}

/// The result's line for a stream that is not shown whole.
pub(crate) fn saved_line(what: &str, lower: &str, total: u64, saved: &Saved) -> Option<String> {
    let size = human_size(total);
    match saved {
        Saved::Whole => None,
        Saved::File(path) => Some(format!(
            "{what} too large ({size}). Full {lower} saved to: {}",
            path.display()
        )),
        Saved::Failed(error) => Some(format!(
            "{what} too large ({size}); the full {lower} could not be saved: {error}"
        )),
    }
}

/// `14.3MB`, `2.5KB`, `812 bytes` (binary units, as Claude Code prints them).
pub(crate) fn human_size(bytes: u64) -> String {
    const K: f64 = 1024.0;
    let b = bytes as f64;
    if b < K {
        format!("{bytes} bytes")
    } else if b < K * K {
        format!("{:.1}KB", b / K)
    } else if b < K * K * K {
        format!("{:.1}MB", b / (K * K))
    } else {
        format!("{:.1}GB", b / (K * K * K))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_stream_within_the_preview_stays_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = OutputCapture::new(dir.path(), "stdout", 10);
        c.push(b"hello\n");
        assert_eq!(c.finish(10), ("hello".to_owned(), Saved::Whole));
        assert!(!dir.path().join("bash-output").exists());
    }

    #[test]
    fn a_stream_outgrowing_the_preview_is_saved_whole() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = OutputCapture::new(dir.path(), "stdout", 10);
        for chunk in [&b"0123"[..], b"4567", b"89ab", b"cdef"] {
            c.push(chunk);
        }
        let (text, saved) = c.finish(10);
        assert_eq!(text, "01234\n\n... [6 bytes truncated] ...\n\nbcdef");
        let Saved::File(path) = saved else {
            panic!("{saved:?}")
        };
        assert_eq!(std::fs::read(&path).unwrap(), b"0123456789abcdef");
        assert!(path.to_string_lossy().ends_with(".stdout"));
    }

    #[test]
    fn a_stream_cut_only_by_the_budget_is_saved_too() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = OutputCapture::new(dir.path(), "stderr", 10);
        c.push(b"0123456789");
        let (text, saved) = c.finish(4);
        assert_eq!(text, "01\n\n... [6 bytes truncated] ...\n\n89");
        let Saved::File(path) = saved else {
            panic!("{saved:?}")
        };
        assert_eq!(std::fs::read(&path).unwrap(), b"0123456789");
    }

    #[test]
    fn an_unwritable_session_dir_is_reported_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bash-output"), "a file in the way").unwrap();
        let mut c = OutputCapture::new(dir.path(), "stdout", 4);
        c.push(b"0123456789");
        let (text, saved) = c.finish(4);
        assert_eq!(text, "01\n\n... [6 bytes truncated] ...\n\n89");
        assert!(matches!(saved, Saved::Failed(_)), "{saved:?}");
    }

    #[test]
    fn sizes_read_like_claude_codes() {
        assert_eq!(human_size(812), "812 bytes");
        assert_eq!(human_size(2560), "2.5KB");
        assert_eq!(human_size(15_000_009), "14.3MB");
        assert_eq!(human_size(3 << 30), "3.0GB");
    }
}
