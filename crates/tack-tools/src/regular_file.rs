//! Opening a file the model named without ever blocking or reading a device.
//!
//! `/dev/zero` has no end, a FIFO blocks `open` until a writer comes, and some
//! devices act on `open` alone. So a path is first `stat`ed (following
//! symlinks) and anything that is not a regular file or a directory is refused
//! without opening it. The file is then opened with `O_NONBLOCK | O_NOCTTY`
//! and the *opened descriptor* is checked again with `fstat`: a path swapped
//! for a FIFO or a device between the two steps is caught there, and
//! `O_NONBLOCK` keeps that `open` from blocking (it has no effect on reads of
//! regular files).

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Read as _};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use tack_tool::ToolError;

const NOT_REGULAR: &str = "not a regular file";

/// What a path turned out to be.
#[derive(Debug)]
pub(crate) enum Opened {
    /// A regular file, open for reading, with its `fstat`.
    File(File, Metadata),
    Directory,
    /// Anything else: a device, FIFO or socket, named for messages
    /// ("a character device").
    Special(&'static str),
}

/// Opens `path` for reading if it is a regular file. Errors are the OS's
/// (`NotFound`, `PermissionDenied`, ...).
pub(crate) fn open(path: &Path) -> io::Result<Opened> {
    let meta = fs::metadata(path)?;
    if let Some(special) = classify(&meta) {
        return Ok(special);
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)?;
    let meta = file.metadata()?;
    Ok(match classify(&meta) {
        Some(other) => other,
        None => Opened::File(file, meta),
    })
}

/// `None` for a regular file, else what the path is.
fn classify(meta: &Metadata) -> Option<Opened> {
    let t = meta.file_type();
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some(Opened::Directory)
    } else if t.is_char_device() {
        Some(Opened::Special("a character device"))
    } else if t.is_block_device() {
        Some(Opened::Special("a block device"))
    } else if t.is_fifo() {
        Some(Opened::Special("a FIFO (named pipe)"))
    } else if t.is_socket() {
        Some(Opened::Special("a socket"))
    } else {
        Some(Opened::Special(NOT_REGULAR))
    }
}

/// The current content of `target`, an existing file Write or Edit is about to
/// replace (`shown` is the path as the model gave it, for messages). A
/// directory, device or FIFO is an error, never opened for a blocking read.
pub(crate) fn read_existing(
    target: &Path,
    shown: &Path,
    tool: &str,
) -> Result<(Metadata, Vec<u8>), ToolError> {
    match open(target)? {
        Opened::File(mut file, meta) => {
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes)?;
            Ok((meta, bytes))
        }
        Opened::Directory => Err(ToolError::new(format!(
            "{} is a directory; give the path of a file.",
            shown.display()
        ))),
        Opened::Special(kind) => Err(ToolError::new(format!(
            "{}: {tool} only changes regular files.",
            what_it_is(shown, kind)
        ))),
    }
}

/// The message for a path that is [`Opened::Special`].
pub(crate) fn special_message(path: &Path, kind: &str, tool: &str) -> String {
    format!(
        "{}: {tool} only reads files. Inspect it with Bash if you must (e.g. `head -c 100 {} | xxd`).",
        what_it_is(path, kind),
        path.display()
    )
}

fn what_it_is(path: &Path, kind: &str) -> String {
    let path = path.display();
    if kind == NOT_REGULAR {
        format!("{path} is {NOT_REGULAR}")
    } else {
        format!("{path} is {kind}, not a regular file")
    }
}

/// The text of `path` if it is a regular file of at most `max_bytes` holding
/// UTF-8 text (no NUL byte), read as Read reads it: never a device or FIFO,
/// never blocking. `None` otherwise (what an `@` mention passes over).
pub fn small_text(path: &Path, max_bytes: u64) -> Option<String> {
    let Ok(Opened::File(file, meta)) = open(path) else {
        return None;
    };
    if meta.len() > max_bytes {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(max_bytes + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > max_bytes || bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_fifos_and_directories_are_not_opened_as_files() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let link = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let file = dir.path().join("f.txt");
        std::fs::write(&file, "x").unwrap();
        let socket = dir.path().join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();

        let kind = |p: &Path| match open(p).unwrap() {
            Opened::File(_, meta) => format!("file of {}", meta.len()),
            Opened::Directory => "directory".to_owned(),
            Opened::Special(kind) => kind.to_owned(),
        };
        assert_eq!(kind(&fifo), "a FIFO (named pipe)");
        assert_eq!(kind(&socket), "a socket");
        assert_eq!(kind(&link), "a character device");
        assert_eq!(kind(Path::new("/dev/null")), "a character device");
        assert_eq!(kind(dir.path()), "directory");
        assert_eq!(kind(&file), "file of 1");
        assert_eq!(
            open(&dir.path().join("missing")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    #[test]
    fn small_text_is_a_small_utf8_regular_file_only() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        };
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let read = |p: &Path| small_text(p, 8);
        assert_eq!(read(&write("ok", b"12345678")), Some("12345678".to_owned()));
        assert_eq!(read(&write("big", b"123456789")), None);
        assert_eq!(read(&write("nul", b"a\0b")), None);
        assert_eq!(read(&write("latin1", b"caf\xe9")), None);
        assert_eq!(read(&fifo), None);
        assert_eq!(read(Path::new("/dev/zero")), None);
        assert_eq!(read(dir.path()), None);
    }
}
