//! Where a file tool's new content goes: through the session's client when
//! it takes writes (an editor over ACP shows the change in its buffer), else
//! to the disk, atomically.

use std::io;
use std::path::Path;

use tack_sys::write_atomic;
use tack_tool::ToolEnv;

/// Writes `text` as `path`'s content. Called from a blocking thread (the
/// tools' `spawn_blocking`), where waiting for the client is allowed.
pub(crate) fn write_file(env: &ToolEnv, path: &Path, text: &str) -> io::Result<()> {
    if let Some(files) = env.client_files()
        && let Ok(runtime) = tokio::runtime::Handle::try_current()
        && let Some(written) = runtime.block_on(files.write_text(path, text))
    {
        return written;
    }
    write_atomic(path, text.as_bytes())
}
