//! Watching an agent's inbox without polling: an inotify watch on the
//! inboxes folder wakes the task when a file there is replaced, and a
//! replaced `<agent>.json` has its unread messages taken (marked read in the
//! file) and handed on. Messages already waiting when the watch starts are
//! taken at once.

use std::path::PathBuf;
use std::sync::Arc;

use tack_sys::inotify::DirWatch;
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::task::JoinHandle;

use super::files::TeamFileError;
use super::files::inbox::{self, InboxMessage};

/// Where taken messages go (never empty), and what went wrong reading them.
pub type OnMessages = Arc<dyn Fn(Result<Vec<InboxMessage>, TeamFileError>) + Send + Sync>;

/// Watches the inbox at `path` until the task is aborted.
pub fn watch_inbox(path: PathBuf, on_messages: OnMessages) -> std::io::Result<JoinHandle<()>> {
    let dir = path
        .parent()
        .map(PathBuf::from)
        .ok_or_else(|| std::io::Error::other("an inbox must be in a folder"))?;
    tack_sys::private_file::create_dirs_private(&dir)?;
    let taken = path.clone();
    watch_file(
        &path,
        Arc::new(move || {
            take(&taken, &on_messages);
            true
        }),
    )
}

/// Calls `on_change` now and whenever the file at `path` is written or
/// replaced (its folder must exist), until it returns `false`, the task is
/// aborted or the watch fails.
pub fn watch_file(
    path: &std::path::Path,
    on_change: Arc<dyn Fn() -> bool + Send + Sync>,
) -> std::io::Result<JoinHandle<()>> {
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("a watched file must be in a folder"))?;
    let name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    let watch = DirWatch::new(dir)?;
    // SAFETY: the `DirWatch` owns its descriptor and the `AsyncFd` owns the
    // `DirWatch`, so the descriptor stays open, and the same, for as long as
    // it is registered.
    let watch = unsafe { AsyncFd::register_with_interest(watch, Interest::READABLE) }?;
    Ok(tokio::spawn(async move {
        if !on_change() {
            return;
        }
        loop {
            let Ok(mut ready) = watch.readable().await else {
                return;
            };
            match ready.try_io(|w| w.get_ref().read_names()) {
                Ok(Ok(names)) if names.contains(&name) => {
                    if !on_change() {
                        return;
                    }
                }
                Ok(Ok(_)) | Err(_) => {}
                Ok(Err(_)) => return,
            }
        }
    }))
}

fn take(path: &std::path::Path, on_messages: &OnMessages) {
    match inbox::take_unread(path) {
        Ok(messages) if messages.is_empty() => {}
        taken => on_messages(taken),
    }
}
