//! What each keybinding action does in the prompt (contexts `Global`,
//! `Chat`, while the completion popup is open `Autocomplete`, while the
//! help is shown `Help`). The keys
//! come from [`crate::keybindings::Keymap`]; editing keys that are no
//! action (Ctrl+A, Ctrl+W, Alt+B, ...) stay the editor's.

use std::time::Instant;

use tack_protocol::PermissionMode;

use super::keys::Popup;
use super::{App, Overlay, Search};
use crate::event::UiAction;
use crate::keybindings::Keymap;

impl App {
    /// The keybindings in force (the defaults until the driver reads the
    /// user's file).
    pub fn set_keymap(&mut self, keymap: Keymap) {
        self.keymap = keymap;
        self.chord.clear();
    }

    pub(super) fn key_action(&mut self, action: &str, now: Instant) -> Vec<UiAction> {
        let popup_len = self.popup_len();
        match action {
            "app:toggleTodos" => self.show_todos = !self.show_todos,
            "app:toggleTranscript" => self.overlay = Some(Overlay::Transcript { scroll: 0 }),
            "app:interrupt" => return self.ctrl_c(now),
            "app:exit" => return vec![UiAction::Exit],
            "history:search" => {
                self.search = Some(Search {
                    draft: self.editor.text().to_string(),
                    ..Search::default()
                });
            }
            "history:previous" => {
                if !self.editor.on_first_line() {
                    self.editor.up();
                } else if let Some(text) = self.history.older(self.editor.text()) {
                    self.editor.set_text(text);
                }
            }
            "history:next" => {
                if !self.editor.on_last_line() {
                    self.editor.down();
                } else if let Some(text) = self.history.newer() {
                    self.editor.set_text(text);
                }
            }
            "chat:cancel" | "autocomplete:dismiss" => return self.esc(now),
            "help:dismiss" => self.show_help = false,
            "chat:clearInput" | "chat:clearScreen" => {
                self.editor.take();
                self.pastes.clear();
                self.edited();
            }
            "chat:cycleMode" => {
                let mode = self.modes.next(self.status.permission_mode);
                self.hint = None;
                if mode == PermissionMode::Default {
                    // The footer names the other modes; Manual is said here.
                    self.set_hint("Manual mode: actions no rule allows ask first", now);
                }
                return self.request_mode(mode);
            }
            "chat:modelPicker" => {
                return vec![UiAction::Command {
                    name: "model".into(),
                    args: String::new(),
                }];
            }
            "chat:submit" => return self.submit_key(now),
            // tack never interrupts a turn for a prompt: this queues too.
            "chat:queueSubmit" => return self.submit(now),
            "chat:newline" => self.newline(),
            "chat:externalEditor" => {
                return vec![UiAction::OpenExternalEditor {
                    text: self.editor.text().to_string(),
                }];
            }
            "autocomplete:accept" if popup_len > 0 => self.accept_popup(false),
            "autocomplete:previous" if popup_len > 0 => {
                self.popup_selected = (self.popup_selected + popup_len - 1) % popup_len;
            }
            "autocomplete:next" if popup_len > 0 => {
                self.popup_selected = (self.popup_selected + 1) % popup_len;
            }
            other => self.set_hint(&format!("{other} is not available in tack"), now),
        }
        Vec::new()
    }

    /// Enter: a command picked in the popup runs, a file picked is put in;
    /// a line ending in `\` continues on the next; else the prompt is sent.
    fn submit_key(&mut self, now: Instant) -> Vec<UiAction> {
        match self.popup() {
            Some(Popup::Commands(_)) => {
                self.accept_popup(true);
                return self.submit(now);
            }
            Some(Popup::Files { .. }) => {
                self.accept_popup(false);
                return Vec::new();
            }
            None => {}
        }
        if self.editor.text()[..self.editor.cursor()].ends_with('\\') {
            self.editor.backspace();
            self.newline();
            return Vec::new();
        }
        self.submit(now)
    }
}
