//! Vim mode's two ends outside the UI: `/vim` saved as `editorMode` in
//! `~/.claude.json` (atomically, under the lock every writer of that file
//! takes), and the status line run again when the mode changes (its JSON
//! carries `vim.mode`), as Claude Code does.

use tack_tui::input::VimMode;
use tack_tui::{NoticeLevel, UiEvent};

use super::{Driver, Internal};

impl Driver {
    /// `/vim` turned vim mode on or off: saved off the UI's thread (the
    /// file's lock may be held by another tack a moment).
    pub(super) fn save_editor_mode(&mut self, vim: bool) {
        self.after_key();
        let Some(path) = self.place.claude_json.clone() else {
            return;
        };
        let tx = self.tx.clone();
        tokio::task::spawn_blocking(move || {
            if let Err(e) = tack_runtime::claude_json::set_vim_mode(&path, vim) {
                let _ = tx.send(Internal::Ui(vec![UiEvent::Notice {
                    level: NoticeLevel::Warning,
                    text: format!("The editor mode was not saved: {e}"),
                }]));
            }
        });
    }

    /// After a key: a new vim mode (Esc, `i`, `/vim`) is the status line's
    /// to show.
    pub(super) fn after_key(&mut self) {
        let mode = self.app.vim_mode();
        if mode != self.vim_mode {
            self.vim_mode = mode;
            self.refresh_status_line();
        }
    }

    /// The mode as the status line's JSON says it.
    pub(super) fn vim_mode_name(&self) -> Option<String> {
        self.app.vim_mode().map(|m| VimMode::name(m).to_owned())
    }
}
