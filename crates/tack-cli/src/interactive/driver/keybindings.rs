//! `~/.claude/keybindings.json` in the terminal: read at start, read again
//! whenever the file is replaced or written (an inotify watch on its
//! folder, which sleeps in the kernel: no polling), and `/keybindings`,
//! which creates it from Claude Code's template and opens it in the editor.
//! A bad file is a warning; the defaults stay for whatever it got wrong.

use std::path::{Path, PathBuf};

use tack_sys::inotify::DirWatch;
use tack_tui::input::external_editor::launch_editor;
use tack_tui::keybindings::{Keymap, TEMPLATE};
use tack_tui::{NoticeLevel, UiAction, UiEvent};
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::sync::mpsc;

use super::{Driver, Internal};

const FILE: &str = "keybindings.json";

/// The watch on the file's folder; stops with the driver.
pub(super) struct Watch(tokio::task::JoinHandle<()>);

impl Drop for Watch {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Watches `dir` for `keybindings.json` being written or replaced.
/// `None` when the folder does not exist (yet) or cannot be watched.
pub(super) fn watch(dir: &Path, tx: &mpsc::UnboundedSender<Internal>) -> Option<Watch> {
    let watch = DirWatch::new(dir).ok()?;
    // SAFETY: the `AsyncFd` owns the `DirWatch`, which owns its descriptor:
    // it stays open, and the same, while registered.
    let watch = unsafe { AsyncFd::register_with_interest(watch, Interest::READABLE) }.ok()?;
    let tx = tx.clone();
    Some(Watch(tokio::spawn(async move {
        loop {
            let Ok(mut ready) = watch.readable().await else {
                return;
            };
            match ready.try_io(|w| w.get_ref().read_names()) {
                Ok(Ok(names)) if names.iter().any(|n| n == FILE) => {
                    if tx.send(Internal::KeybindingsChanged).is_err() {
                        return;
                    }
                }
                Ok(Ok(_)) | Err(_) => {}
                Ok(Err(_)) => return,
            }
        }
    })))
}

impl Driver {
    pub(super) fn keybindings_path(&self) -> PathBuf {
        self.place.claude_dir.join(FILE)
    }

    /// Reads the file and puts its bindings in force; its problems become
    /// warnings.
    pub(super) fn load_keybindings(&mut self) -> Vec<UiAction> {
        let (keymap, warnings) = Keymap::load(&self.keybindings_path());
        self.app.set_keymap(keymap);
        self.ui(warnings.into_iter().map(|text| UiEvent::Notice {
            level: NoticeLevel::Warning,
            text,
        }))
    }

    /// `/keybindings`: the file, created from the template when missing,
    /// opened in the editor; read again when the editor closes.
    pub(super) async fn keybindings_command(&mut self) -> anyhow::Result<Vec<UiAction>> {
        let path = self.keybindings_path();
        if let Err(e) = create_from_template(&path) {
            return Ok(self.notice(
                NoticeLevel::Error,
                format!("Could not create {}: {e}", path.display()),
            ));
        }
        let Some(editor) = self.editor() else {
            return Ok(self.notice(
                NoticeLevel::Info,
                format!(
                    "Keybindings: {} (set $VISUAL or $EDITOR to open it from here)",
                    path.display()
                ),
            ));
        };
        let opened = path.clone();
        let status = self
            .suspended(move || launch_editor(&editor, &opened))
            .await?;
        let mut actions = self.load_keybindings();
        actions.extend(match status {
            Ok(s) if s.success() => self.notice(
                NoticeLevel::Info,
                format!("Keybindings read from {}", path.display()),
            ),
            Ok(s) => self.notice(NoticeLevel::Error, format!("The editor exited with {s}")),
            Err(e) => self.notice(NoticeLevel::Error, format!("Could not run the editor: {e}")),
        });
        Ok(actions)
    }
}

/// Writes Claude Code's template to `path` unless a file is there.
fn create_from_template(path: &Path) -> std::io::Result<()> {
    if path.exists() {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    tack_sys::atomic_write::write_atomic(path, TEMPLATE.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::create_from_template;

    #[test]
    fn the_template_is_written_once_and_an_edited_file_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/keybindings.json");
        create_from_template(&path).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            tack_tui::keybindings::TEMPLATE
        );
        std::fs::write(&path, "{\"bindings\": [1]}").unwrap();
        create_from_template(&path).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"bindings\": [1]}"
        );
    }
}
