//! Keys: dialogs first, then the completion popup, then global keys, then the editor.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::screen_keys::{CHAT, HELP, HISTORY_SEARCH, POPUP, ScreenKey};
use super::{App, DOUBLE_PRESS, Overlay};
use crate::cells::HistoryCell;
use crate::commands::{BUILTINS, MenuEntry, filter_menu, parse_command};
use crate::dialogs::{
    DecisionsOutcome, DialogOutcome, ModelOutcome, PickerOutcome, PluginOutcome, RewindOutcome,
    TrustOutcome,
};
use crate::event::{NoticeLevel, PermissionAnswer, Prompt, UiAction};
use crate::input::{InputMode, mention_at};

/// Menu commands the runtime carries out: sent as the typed text.
const RUNTIME_COMMANDS: [&str; 2] = ["clear", "init"];

/// Rows of the completion popup.
pub(crate) const POPUP_ROWS: usize = 8;

/// What the completion popup offers.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Popup<'a> {
    Commands(Vec<&'a MenuEntry>),
    /// `@` mention starting at byte `start`.
    Files {
        start: usize,
        paths: Vec<String>,
    },
}

fn within(last: Option<Instant>, now: Instant) -> bool {
    last.is_some_and(|t| now.saturating_duration_since(t) <= DOUBLE_PRESS)
}

impl App {
    /// The popup for the editor's text, if any.
    pub(crate) fn popup(&self) -> Option<Popup<'_>> {
        if self.popup_dismissed || self.overlay.is_some() || self.search.is_some() {
            return None;
        }
        let text = self.editor.text();
        if let Some(query) = text.strip_prefix('/')
            && !query.contains(char::is_whitespace)
            && self.editor.cursor() == text.len()
        {
            let entries = filter_menu(&self.menu, query);
            return (!entries.is_empty()).then_some(Popup::Commands(entries));
        }
        let (start, query) = mention_at(text, self.editor.cursor())?;
        let paths = self.files.rank(query, POPUP_ROWS);
        (!paths.is_empty()).then_some(Popup::Files { start, paths })
    }

    pub(crate) fn popup_len(&self) -> usize {
        match self.popup() {
            Some(Popup::Commands(e)) => e.len(),
            Some(Popup::Files { paths, .. }) => paths.len(),
            None => 0,
        }
    }

    /// A key press. Returns what the runtime should do.
    pub fn handle_key(&mut self, key: KeyEvent, now: Instant) -> Vec<UiAction> {
        let actions = self.key_press(key, now);
        // An answered dialog starts the turn's clock again.
        self.pause_while_asking(now);
        actions
    }

    fn key_press(&mut self, key: KeyEvent, now: Instant) -> Vec<UiAction> {
        self.now = Some(now);
        if key.kind == KeyEventKind::Release {
            return Vec::new();
        }
        if self.overlay.is_some() {
            return match self.screen_key(key, now) {
                Some(key) => self.overlay_key(key),
                None => Vec::new(),
            };
        }
        if self.search.is_some() {
            return self.search_key(key, now);
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        if ctrl && key.code != KeyCode::Char('c') {
            self.last_ctrl_c = None;
        }
        if key.code != KeyCode::Esc {
            self.last_esc = None;
        }
        // Reserved: no keybindings file can move these.
        match key.code {
            KeyCode::Char('c') if ctrl => return self.ctrl_c(now),
            KeyCode::Char('d') if ctrl => {
                if self.editor.is_empty() {
                    return vec![UiAction::Exit];
                }
                self.editor.delete();
                self.edited();
                return Vec::new();
            }
            _ => {}
        }
        if let Some(actions) = self.vim_key(key, now) {
            return actions;
        }
        let contexts = if self.popup_len() > 0 {
            POPUP
        } else if self.show_help {
            HELP
        } else {
            CHAT
        };
        match self.bound_key(contexts, key) {
            ScreenKey::Action(action) => return self.key_action(&action, now),
            ScreenKey::Dropped => return Vec::new(),
            ScreenKey::Own(_) => {}
        }
        match key.code {
            KeyCode::Enter if shift || alt => self.newline(),
            KeyCode::Char('j') if ctrl => self.newline(),
            KeyCode::Backspace if ctrl || alt => {
                self.editor.delete_word_back();
                self.edited();
            }
            KeyCode::Backspace => {
                self.editor.backspace();
                self.edited();
            }
            KeyCode::Delete => {
                self.editor.delete();
                self.edited();
            }
            KeyCode::Left if self.detachable && self.editor.is_empty() && !ctrl && !alt => {
                return vec![UiAction::Detach];
            }
            KeyCode::Left if ctrl || alt => self.editor.word_left(),
            KeyCode::Right if ctrl || alt => self.editor.word_right(),
            KeyCode::Left => self.editor.left(),
            KeyCode::Right => self.editor.right(),
            KeyCode::Home => self.editor.home(),
            KeyCode::End => self.editor.end(),
            KeyCode::Char('a') if ctrl => self.editor.home(),
            KeyCode::Char('e') if ctrl => self.editor.end(),
            KeyCode::Char('w') if ctrl => {
                self.editor.delete_word_back();
                self.edited();
            }
            KeyCode::Char('u') if ctrl => {
                self.editor.kill_to_line_start();
                self.edited();
            }
            KeyCode::Char('k') if ctrl => {
                self.editor.kill_to_line_end();
                self.edited();
            }
            KeyCode::Char('b') if alt => self.editor.word_left(),
            KeyCode::Char('f') if alt => self.editor.word_right(),
            KeyCode::Char('?') if self.editor.is_empty() => self.show_help = !self.show_help,
            KeyCode::Char(c) if !ctrl => {
                self.editor.insert_char(c);
                self.edited();
            }
            _ => {}
        }
        Vec::new()
    }

    pub(super) fn newline(&mut self) {
        self.editor.insert_char('\n');
        self.edited();
    }

    pub(super) fn ctrl_c(&mut self, now: Instant) -> Vec<UiAction> {
        if within(self.last_ctrl_c, now) {
            return vec![UiAction::Exit];
        }
        self.last_ctrl_c = Some(now);
        self.set_hint("Press Ctrl-C again to exit", now);
        if !self.editor.is_empty() {
            self.editor.take();
            self.pastes.clear();
            self.edited();
            return Vec::new();
        }
        if self.turn.is_some() {
            return vec![UiAction::Interrupt];
        }
        Vec::new()
    }

    pub(super) fn esc(&mut self, now: Instant) -> Vec<UiAction> {
        if self.popup_len() > 0 {
            self.popup_dismissed = true;
            return Vec::new();
        }
        if self.show_help {
            self.show_help = false;
            return Vec::new();
        }
        if self.turn.is_some() {
            self.last_esc = None;
            // Prompts queued behind the turn come back to the editor.
            let queued: Vec<String> = self.queue.drain(..).map(|(p, _)| p.text).collect();
            if !queued.is_empty() {
                let mut text = queued.join("\n");
                if !self.editor.is_empty() {
                    text = format!("{text}\n{}", self.editor.text());
                }
                self.editor.set_text(text);
            }
            return vec![UiAction::Interrupt];
        }
        if within(self.last_esc, now) {
            self.last_esc = None;
            self.hint = None;
            if self.editor.is_empty() {
                // Claude Code's Esc Esc: the rewind picker.
                return vec![UiAction::ListRewindPoints];
            }
            self.editor.take();
            self.pastes.clear();
            self.edited();
            return Vec::new();
        }
        self.last_esc = Some(now);
        let hint = if self.editor.is_empty() {
            "Esc again to rewind"
        } else {
            "Esc again to clear"
        };
        self.set_hint(hint, now);
        Vec::new()
    }

    /// Puts the selected completion into the editor.
    pub(super) fn accept_popup(&mut self, exact: bool) {
        let selected = self.popup_selected;
        let replacement = match self.popup() {
            Some(Popup::Commands(entries)) => entries.get(selected).map(|e| {
                let text = if exact {
                    format!("/{}", e.name)
                } else {
                    format!("/{} ", e.name)
                };
                (0, text)
            }),
            Some(Popup::Files { start, paths }) => {
                paths.get(selected).map(|p| (start, format!("@{p} ")))
            }
            None => None,
        };
        if let Some((start, text)) = replacement {
            self.editor.replace_before_cursor(start, &text);
            self.edited();
        }
    }

    /// Enter: a slash command, a shell or memory line, or a prompt.
    pub(super) fn submit(&mut self, now: Instant) -> Vec<UiAction> {
        let raw = self.editor.text().to_string();
        if raw.trim().is_empty() {
            return Vec::new();
        }
        let text = self.pastes.expand(&raw);
        self.editor.take();
        self.pastes.clear();
        self.edited();
        if let Err(e) = self.history.record(&text) {
            self.notice(
                NoticeLevel::Warning,
                &format!("Could not save the prompt history: {e}"),
            );
        }
        if let Some((name, args)) = parse_command(&text) {
            let (name, args) = (name.to_string(), args.to_string());
            return self.command(&name, &args, now);
        }
        let (mode, body) = InputMode::of(&text);
        match mode {
            InputMode::Prompt => self.send(Prompt::text(text.clone()), raw, now),
            InputMode::Shell => {
                self.push_cell(HistoryCell::User {
                    mode,
                    text: body.to_string(),
                });
                vec![UiAction::RunShell(body.to_string())]
            }
            InputMode::Memory => {
                self.push_cell(HistoryCell::User {
                    mode,
                    text: body.to_string(),
                });
                vec![UiAction::AddMemory(body.to_string())]
            }
        }
    }

    fn command(&mut self, name: &str, args: &str, now: Instant) -> Vec<UiAction> {
        let echo = if args.is_empty() {
            format!("/{name}")
        } else {
            format!("/{name} {args}")
        };
        if name == "clear" {
            self.todos.clear();
        }
        if RUNTIME_COMMANDS.contains(&name) || !BUILTINS.iter().any(|(n, _)| *n == name) {
            // The runtime's own (`/clear`, `/init`), a custom command or an
            // unknown one: the runtime runs it (or says it is unknown), with
            // the same hooks and results as for `-p` and the SDKs.
            return self.send(Prompt::text(echo.clone()), echo, now);
        }
        self.push_cell(HistoryCell::User {
            mode: InputMode::Prompt,
            text: echo,
        });
        match name {
            "help" => {
                let text = self.help_text(&self.menu);
                self.notice(NoticeLevel::Info, &text);
                Vec::new()
            }
            "exit" => vec![UiAction::Exit],
            "vim" => self.toggle_vim(),
            "compact" => vec![UiAction::Compact {
                instructions: (!args.is_empty()).then(|| args.to_string()),
            }],
            "model" if !args.is_empty() => {
                self.status.model = args.to_string();
                vec![UiAction::SetModel(args.to_string())]
            }
            "resume" => vec![UiAction::ListSessions],
            "rewind" | "checkpoint" => vec![UiAction::ListRewindPoints],
            _ => vec![UiAction::Command {
                name: name.to_string(),
                args: args.to_string(),
            }],
        }
    }

    /// Ctrl+R's search: `HistorySearch`'s actions, then its own keys
    /// (Ctrl+C and Ctrl+G cancel, ←/→ accept, typing searches).
    fn search_key(&mut self, key: KeyEvent, now: Instant) -> Vec<UiAction> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let action = match key.code {
            KeyCode::Char('c') if ctrl => "historySearch:cancel".to_owned(),
            _ => match self.bound_key(HISTORY_SEARCH, key) {
                ScreenKey::Action(action) => action,
                ScreenKey::Dropped => return Vec::new(),
                ScreenKey::Own(key) => match key.code {
                    KeyCode::Char('g') if ctrl => "historySearch:cancel".to_owned(),
                    KeyCode::Left | KeyCode::Right => "historySearch:accept".to_owned(),
                    KeyCode::Backspace | KeyCode::Char(_) => {
                        self.search_edit(key);
                        return Vec::new();
                    }
                    _ => return Vec::new(),
                },
            },
        };
        let Some(search) = &mut self.search else {
            return Vec::new();
        };
        match action.as_str() {
            "historySearch:next" => {
                if let Some((i, _)) = self.history.search(&search.query, search.found) {
                    search.found = Some(i);
                }
            }
            "historySearch:cancel" => {
                let draft = std::mem::take(&mut search.draft);
                self.search = None;
                self.editor.set_text(draft);
            }
            "historySearch:accept" | "historySearch:execute" => {
                let found = search
                    .found
                    .and_then(|i| self.history.entries().get(i).cloned());
                let draft = std::mem::take(&mut search.draft);
                self.search = None;
                self.editor.set_text(found.unwrap_or(draft));
                if action == "historySearch:execute" {
                    return self.submit(now);
                }
            }
            other => self.set_hint(&format!("{other} is not available in tack"), now),
        }
        Vec::new()
    }

    /// Typing into Ctrl+R's query: the newest match.
    fn search_edit(&mut self, key: KeyEvent) {
        let Some(search) = &mut self.search else {
            return;
        };
        match key.code {
            KeyCode::Backspace => _ = search.query.pop(),
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                search.query.push(c)
            }
            _ => return,
        }
        search.found = self.history.search(&search.query, None).map(|(i, _)| i);
    }

    /// The dialog of the next permission request waiting, if any.
    pub(super) fn next_permission(&mut self) {
        self.overlay = self
            .waiting_permissions
            .pop_front()
            .map(|r| Overlay::Permission(Box::new(self.permission_dialog(r))));
    }

    /// `key` as the open screen's handler reads it ([`App::screen_key`]).
    fn overlay_key(&mut self, key: KeyEvent) -> Vec<UiAction> {
        let Some(overlay) = &mut self.overlay else {
            return Vec::new();
        };
        match overlay {
            Overlay::Permission(dialog) => match dialog.key(key) {
                DialogOutcome::Open => Vec::new(),
                DialogOutcome::Answered(answer) => {
                    let id = dialog.request.id.clone();
                    self.next_permission();
                    vec![UiAction::AnswerPermission { id, answer }]
                }
                DialogOutcome::AllowInMode(mode) => {
                    let id = dialog.request.id.clone();
                    // The mode first: the edits after this one are not asked.
                    let mut actions = self.request_mode(mode);
                    self.next_permission();
                    actions.push(UiAction::AnswerPermission {
                        id,
                        answer: PermissionAnswer::Allow,
                    });
                    actions
                }
            },
            Overlay::Resume(picker) => match picker.key(key) {
                PickerOutcome::Open => Vec::new(),
                PickerOutcome::Cancelled => {
                    self.overlay = None;
                    Vec::new()
                }
                PickerOutcome::Picked(session_id) => {
                    self.overlay = None;
                    vec![UiAction::Resume { session_id }]
                }
            },
            Overlay::Model(picker) => match picker.key(key) {
                ModelOutcome::Open => Vec::new(),
                ModelOutcome::Cancelled => {
                    self.overlay = None;
                    Vec::new()
                }
                ModelOutcome::Picked(alias) => {
                    self.overlay = None;
                    self.status.model = alias.clone();
                    vec![UiAction::SetModel(alias)]
                }
            },
            Overlay::Plugins(browser) => match browser.key(key) {
                PluginOutcome::Open => Vec::new(),
                PluginOutcome::Cancelled => {
                    self.overlay = None;
                    Vec::new()
                }
                // The browser stays open; the driver answers with the new list.
                PluginOutcome::Run(args) => vec![UiAction::Command {
                    name: "plugin".to_owned(),
                    args,
                }],
            },
            Overlay::Rewind(picker) => match picker.key(key) {
                RewindOutcome::Open => Vec::new(),
                RewindOutcome::Cancelled => {
                    self.overlay = None;
                    Vec::new()
                }
                RewindOutcome::Picked { id, restore } => {
                    self.overlay = None;
                    vec![UiAction::Rewind { id, restore }]
                }
            },
            Overlay::Decisions(view) => match view.key(key) {
                DecisionsOutcome::Open => Vec::new(),
                DecisionsOutcome::Closed => {
                    self.overlay = None;
                    Vec::new()
                }
                DecisionsOutcome::AddRule(rule) => vec![UiAction::AddAllowRule { rule }],
            },
            Overlay::Trust(dialog) => match dialog.key(key) {
                TrustOutcome::Open => Vec::new(),
                TrustOutcome::Answered(yes) => {
                    self.overlay = None;
                    vec![UiAction::Trust(yes)]
                }
            },
            Overlay::Transcript { scroll } => {
                let page = usize::from(self.height.saturating_sub(2)).max(1);
                match key.code {
                    KeyCode::Esc => self.overlay = None,
                    KeyCode::Up => *scroll += 1,
                    KeyCode::Down => *scroll = scroll.saturating_sub(1),
                    KeyCode::PageUp => *scroll += page,
                    KeyCode::PageDown => *scroll = scroll.saturating_sub(page),
                    KeyCode::End => *scroll = 0,
                    _ => {}
                }
                Vec::new()
            }
        }
    }
}
