//! Reading a configuration file a repository may have planted: settings,
//! `.mcp.json`, agent and command definitions. Where such a file goes, a
//! repository can put a FIFO (which blocks the reader forever) or a symlink to
//! `/dev/zero` (which never ends): anything but a regular file is refused,
//! checked again on the descriptor opened non-blocking (so a swap between the
//! check and the open is caught too), and the size is capped.

use std::io::{Error, ErrorKind, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Configuration files are a few KB; anything this big is not one.
pub const MAX_CONFIG_BYTES: u64 = 10 * 1024 * 1024;

/// The UTF-8 text of the regular file at `path`, at most `max_bytes` long.
///
/// Errors: `NotFound` (and `NotADirectory`) as `std::fs` gives them;
/// `InvalidInput` "it is a FIFO (named pipe), not a regular file" and the
/// like; `InvalidData` for a file over `max_bytes` or not UTF-8. The messages
/// are written to follow "cannot read <path>: ".
pub fn read_config_file(path: &Path, max_bytes: u64) -> std::io::Result<String> {
    regular(&std::fs::metadata(path)?)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)?;
    regular(&file.metadata()?)?;
    let mut bytes = Vec::new();
    file.take(max_bytes + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(Error::new(
            ErrorKind::InvalidData,
            format!("it is larger than {}", human_size(max_bytes)),
        ));
    }
    String::from_utf8(bytes).map_err(|_| Error::new(ErrorKind::InvalidData, "it is not UTF-8 text"))
}

/// Whether `e` means the file is not there (also when a parent is a file).
pub fn is_missing(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory)
}

fn regular(meta: &std::fs::Metadata) -> std::io::Result<()> {
    let t = meta.file_type();
    let kind = if t.is_file() {
        return Ok(());
    } else if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "a special file"
    };
    Err(Error::new(
        ErrorKind::InvalidInput,
        format!("it is {kind}, not a regular file"),
    ))
}

fn human_size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}
