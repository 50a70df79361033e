//! The prompt in vim mode (`/vim`, `editorMode: "vim"` in `~/.claude.json`):
//! keys go to [`crate::input::Vim`] first; what it leaves is the prompt's
//! as without vim (the keybindings, then the editor).

use std::time::Instant;

use crossterm::event::KeyEvent;

use super::App;
use crate::event::{NoticeLevel, UiAction};
use crate::input::{Vim, VimKey, VimMode};

impl App {
    /// Vim mode on or off (the driver reads `editorMode` at start).
    pub fn set_vim(&mut self, on: bool) {
        self.vim = on.then(|| Vim::with_remaps(self.vim_options.remaps.clone()));
    }

    /// `vimInsertModeRemaps` (from the user's settings): `jj` to Esc.
    pub fn set_vim_remaps(&mut self, remaps: Vec<(char, char)>) {
        self.vim_options.remaps = remaps;
        if self.vim.is_some() {
            self.set_vim(true);
        }
    }

    /// INSERT or NORMAL while vim mode is on.
    pub fn vim_mode(&self) -> Option<VimMode> {
        self.vim.as_ref().map(Vim::mode)
    }

    /// The statusLine setting's `hideVimModeIndicator`: its command shows
    /// the mode itself.
    pub fn hide_vim_indicator(&mut self, hidden: bool) {
        self.vim_options.hide_indicator = hidden;
    }

    /// `-- INSERT --` under the prompt, as Claude Code shows it (NORMAL
    /// shows nothing), `-- VISUAL --` and `-- VISUAL LINE --` as vim does.
    pub(super) fn vim_indicator(&self) -> Option<&'static str> {
        let text = match self.vim_mode()? {
            VimMode::Insert => "-- INSERT --",
            VimMode::Visual => "-- VISUAL --",
            VimMode::VisualLine => "-- VISUAL LINE --",
            VimMode::Normal => return None,
        };
        let show = !self.vim_options.hide_indicator && self.search.is_none();
        show.then_some(text)
    }

    /// The prompt's text selected in VISUAL, shown highlighted.
    pub(super) fn vim_selection(&self) -> Option<std::ops::Range<usize>> {
        self.vim.as_ref()?.selection(&self.editor)
    }

    /// `/vim`: toggles vim mode and says so as Claude Code does; the
    /// driver saves it.
    pub(super) fn toggle_vim(&mut self) -> Vec<UiAction> {
        let on = self.vim.is_none();
        self.set_vim(on);
        let text = if on {
            "Editor mode set to vim. Use Escape key to toggle between INSERT and NORMAL modes."
        } else {
            "Editor mode set to normal. Using standard (readline) keyboard bindings."
        };
        self.notice(NoticeLevel::Info, text);
        vec![UiAction::SetEditorMode { vim: on }]
    }

    /// `key` for vim, if it takes it.
    pub(super) fn vim_key(&mut self, key: KeyEvent, now: Instant) -> Option<Vec<UiAction>> {
        let vim = self.vim.as_mut()?;
        let was_insert = vim.mode() == VimMode::Insert;
        let outcome = vim.key_at(&key, &mut self.editor, now);
        if was_insert && self.vim_mode() == Some(VimMode::Normal) {
            // The completion popup closes with INSERT.
            self.popup_dismissed = true;
        }
        match outcome {
            VimKey::PassThrough => None,
            VimKey::Handled { edited } => {
                if edited {
                    self.edited();
                }
                Some(Vec::new())
            }
            VimKey::HistoryPrevious | VimKey::HistoryNext => {
                let action = if outcome == VimKey::HistoryNext {
                    "history:next"
                } else {
                    "history:previous"
                };
                let actions = self.key_action(action, now);
                if let Some(vim) = &self.vim {
                    vim.settle(&mut self.editor);
                }
                Some(actions)
            }
            VimKey::Search => Some(self.key_action("history:search", now)),
            VimKey::Help => {
                self.show_help = !self.show_help;
                Some(Vec::new())
            }
        }
    }
}
