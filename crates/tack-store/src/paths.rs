//! Where transcripts live: `<config_dir>/projects/<sanitised cwd>/<session-id>.jsonl`.

use std::path::Path;

/// Longest project directory name Claude Code writes before it cuts and hashes.
const MAX_PROJECT_DIR_LEN: usize = 200;

/// The project directory name for `cwd`, as Claude Code spells it: every
/// character that is not ASCII alphanumeric becomes `-`
/// (`/home/dev/my repo` → `-home-dev-my-repo`). Names longer than 200 characters
/// are cut to 200 and suffixed with `-` and a hash of the whole path, so two long
/// paths with a common prefix still get different directories.
pub fn sanitize_cwd(cwd: &Path) -> String {
    let full = cwd.to_string_lossy();
    let name: String = full
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    if name.len() <= MAX_PROJECT_DIR_LEN {
        return name;
    }
    // FNV-1a: stable across platforms and Rust versions (unlike `DefaultHasher`).
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in full.as_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    // `name` is ASCII, so any byte index is a char boundary.
    format!("{}-{hash:x}", &name[..MAX_PROJECT_DIR_LEN])
}

/// True if `id` looks like a session id (a UUID), so it is safe as a file name.
pub fn is_valid_session_id(id: &str) -> bool {
    uuid::Uuid::parse_str(id).is_ok()
}

/// The session id of a transcript file name (`<uuid>.jsonl`), if it is one.
pub(crate) fn session_file_id(path: &Path) -> Option<&str> {
    path.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".jsonl"))
        .filter(|id| is_valid_session_id(id))
}

/// `None` for a regular file, else what it is ("a directory").
pub(crate) fn file_kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if t.is_char_device() || t.is_block_device() {
        Some("a device")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        Some("not a regular file")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitises_like_claude_code() {
        assert_eq!(
            sanitize_cwd(Path::new("/home/dev/work/my-repo")),
            "-home-dev-work-my-repo"
        );
        assert_eq!(sanitize_cwd(Path::new("/tmp/a b.c_d")), "-tmp-a-b-c-d");
        assert_eq!(sanitize_cwd(Path::new("/tmp/é")), "-tmp--");
    }

    #[test]
    fn long_paths_are_cut_and_hashed() {
        let a = format!("/{}/a", "x".repeat(300));
        let b = format!("/{}/b", "x".repeat(300));
        let (sa, sb) = (sanitize_cwd(Path::new(&a)), sanitize_cwd(Path::new(&b)));
        assert!(sa.starts_with(&format!("-{}", "x".repeat(199))));
        assert_ne!(sa, sb);
        assert!(sa.len() < 220);
    }

    #[test]
    fn session_ids_must_be_uuids() {
        assert!(is_valid_session_id("0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60"));
        assert!(!is_valid_session_id("../../etc/passwd"));
        assert!(!is_valid_session_id(""));
    }
}
