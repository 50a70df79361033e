//! How a shell runs this very binary: for the hints tack prints (the demo's
//! closing lines, the terminal UI's exit line).

use std::path::Path;

use crate::refusals::shell_quote;

/// How a shell in any folder runs this binary: `tack` when that is what
/// PATH finds, else the binary's absolute path (after `cargo run` or
/// `cargo build`, `tack` is not on PATH).
pub(crate) fn tack_command() -> String {
    let Ok(exe) = std::env::current_exe().and_then(|p| p.canonicalize()) else {
        return "tack".to_owned();
    };
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("tack"))
            .find(|p| is_executable(p))
    });
    match found.and_then(|p| p.canonicalize().ok()) {
        Some(found) if found == exe => "tack".to_owned(),
        _ => shell_quote(&exe.to_string_lossy()),
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
