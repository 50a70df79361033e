//! The terminal UI's state machine: [`UiEvent`]s and keys in, [`UiAction`]s
//! out, history lines and a live area to draw. No terminal, clock or
//! environment inside: the driver passes the time with each call, so every
//! behaviour is testable with plain values.

mod help;
mod key_actions;
mod keys;
mod live;
mod modes;
mod screen_keys;
mod view;
mod vim_keys;

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crossterm::event::Event;
use ratatui::text::Line;
use tack_protocol::PermissionMode;
use tack_protocol::TodoItem;

use crate::cells::{HistoryCell, ToolCall, ToolResult};
use crate::commands::{MenuEntry, menu_entries};
use crate::dialogs::{
    DecisionsView, ModelPicker, PermissionDialog, PluginBrowser, ResumePicker, RewindPicker,
    TrustDialog,
};
use crate::event::{NoticeLevel, PermissionRequest, Prompt, UiAction, UiEvent};
use crate::input::{Editor, FileIndex, InputMode, Pastes, PromptHistory};
use crate::paths::ShownPaths;
use crate::status::StatusInfo;
use crate::theme::Theme;
use live::{Committed, Live};
use modes::ModeCycle;

pub use modes::ModeOptions;

/// Two presses of Esc or Ctrl+C closer than this are a double press.
pub const DOUBLE_PRESS: Duration = Duration::from_millis(1000);
/// The spinner's frame time while a turn runs.
pub const SPINNER_TICK: Duration = Duration::from_millis(200);

/// What the UI starts with.
#[derive(Debug, Clone)]
pub struct AppConfig {
    pub theme: Theme,
    /// The terminal's size.
    pub width: u16,
    pub height: u16,
    /// Prompt history (`PromptHistory::load(config_dir, cwd)`).
    pub history: PromptHistory,
    /// The session's custom commands for the menu (the runtime's list; see
    /// [`App::set_custom_commands`]).
    pub custom_commands: Vec<MenuEntry>,
    /// Files for `@` completion (`FileIndex::build`, ideally off the UI thread,
    /// then [`App::set_file_index`]).
    pub files: FileIndex,
    pub status: StatusInfo,
}

/// A dialog or view that takes the keys.
#[derive(Debug)]
enum Overlay {
    Permission(Box<PermissionDialog>),
    Resume(ResumePicker),
    Rewind(RewindPicker),
    /// `/model`'s picker.
    Model(ModelPicker),
    Plugins(PluginBrowser),
    Trust(TrustDialog),
    /// `/permissions`' auto-mode decisions.
    Decisions(DecisionsView),
    /// The full transcript; `scroll` rows up from the bottom.
    Transcript {
        scroll: usize,
    },
}

/// Ctrl+R reverse search.
#[derive(Debug, Clone, Default)]
struct Search {
    query: String,
    /// The entry shown, as an index into the history.
    found: Option<usize>,
    /// What was in the editor before.
    draft: String,
}

#[derive(Debug, Clone, Copy)]
struct Turn {
    started: Instant,
    /// Characters streamed (for the token estimate).
    streamed: usize,
    /// `streamed` as of the last tick: the spinner line changes on ticks
    /// only, not with every token.
    shown_streamed: usize,
    thinking: bool,
    /// Time spent waiting for the user's answer to a dialog (not counted).
    paused: Duration,
    /// A dialog is waiting since then: the clock and the spinner stand still.
    paused_since: Option<Instant>,
}

/// The terminal UI. See the crate docs for the loop that drives it.
#[derive(Debug)]
pub struct App {
    theme: Theme,
    width: u16,
    height: u16,
    /// Lines for the scrollback, not yet written.
    pending_history: Vec<Line<'static>>,
    /// Whether history has any entry (the next one gets a blank line first).
    history_started: bool,
    /// Everything shown so far, for the transcript view.
    cells: Vec<HistoryCell>,
    live: Live,
    turn: Option<Turn>,
    /// Prompts waiting for the running turn, with what history shows for each.
    queue: VecDeque<(Prompt, String)>,
    editor: Editor,
    pastes: Pastes,
    history: PromptHistory,
    overlay: Option<Overlay>,
    /// Permission requests waiting behind the open dialog.
    waiting_permissions: VecDeque<PermissionRequest>,
    search: Option<Search>,
    popup_selected: usize,
    popup_dismissed: bool,
    menu: Vec<MenuEntry>,
    files: FileIndex,
    status: StatusInfo,
    /// How paths are shown (relative to the session's directory).
    paths: ShownPaths,
    modes: ModeCycle,
    /// The mode last asked of the runtime, until it answers.
    requested_mode: Option<PermissionMode>,
    todos: Vec<TodoItem>,
    show_todos: bool,
    /// The keybindings in force, and the keys of a chord begun.
    keymap: crate::keybindings::Keymap,
    chord: Vec<crate::keybindings::Keystroke>,
    show_help: bool,
    last_esc: Option<Instant>,
    last_ctrl_c: Option<Instant>,
    hint: Option<(String, Instant)>,
    now: Option<Instant>,
    /// Attached to a background session: Left on an empty prompt detaches.
    detachable: bool,
    /// Vim mode, while it is on.
    vim: Option<crate::input::Vim>,
    /// The statusLine setting's `hideVimModeIndicator` and
    /// `vimInsertModeRemaps`, kept while vim mode is off.
    vim_options: VimOptions,
}

/// What vim mode is set up with.
#[derive(Debug, Clone, Default)]
struct VimOptions {
    hide_indicator: bool,
    remaps: Vec<(char, char)>,
}

impl App {
    pub fn new(config: AppConfig) -> App {
        App {
            theme: config.theme,
            width: config.width.max(1),
            height: config.height.max(1),
            pending_history: Vec::new(),
            history_started: false,
            cells: Vec::new(),
            live: Live::default(),
            turn: None,
            queue: VecDeque::new(),
            editor: Editor::new(),
            pastes: Pastes::new(),
            history: config.history,
            overlay: None,
            waiting_permissions: VecDeque::new(),
            search: None,
            popup_selected: 0,
            popup_dismissed: false,
            menu: menu_entries(&config.custom_commands),
            files: config.files,
            status: config.status,
            paths: ShownPaths::default(),
            modes: ModeCycle::default(),
            requested_mode: None,
            todos: Vec::new(),
            show_todos: true,
            keymap: crate::keybindings::Keymap::default(),
            chord: Vec::new(),
            show_help: false,
            last_esc: None,
            last_ctrl_c: None,
            hint: None,
            now: None,
            detachable: false,
            vim: None,
            vim_options: VimOptions::default(),
        }
    }

    /// The UI is attached to a background session (`tack attach`): Left on
    /// an empty prompt detaches ([`UiAction::Detach`]), as in Claude Code.
    pub fn set_detachable(&mut self, detachable: bool) {
        self.detachable = detachable;
    }

    /// The session's custom commands, for the menu (a new session may have
    /// others). Typed, they go to the runtime as they are; it expands them.
    pub fn set_custom_commands(&mut self, custom: &[MenuEntry]) {
        self.menu = menu_entries(custom);
    }

    /// What Shift+Tab may offer (the session's start-up choices; by
    /// default neither bypass mode nor silence on the switch to auto).
    pub fn set_mode_options(&mut self, options: ModeOptions) {
        self.modes = ModeCycle::new(options);
    }

    /// The terminal was resized. History already written stays as it is.
    pub fn set_size(&mut self, width: u16, height: u16) {
        self.width = width.max(1);
        self.height = height.max(1);
    }

    pub fn size(&self) -> (u16, u16) {
        (self.width, self.height)
    }

    /// Where the session runs: paths inside it are shown relative, under
    /// the home folder with `~`.
    pub fn set_paths(&mut self, paths: ShownPaths) {
        self.paths = paths;
    }

    pub fn set_file_index(&mut self, files: FileIndex) {
        self.files = files;
    }

    /// Puts `text` into the editor (after [`UiAction::OpenExternalEditor`]).
    pub fn set_input(&mut self, text: impl Into<String>) {
        self.editor.set_text(text);
        self.history.reset();
    }

    pub fn input(&self) -> &str {
        self.editor.text()
    }

    pub fn status(&self) -> &StatusInfo {
        &self.status
    }

    pub fn permission_mode(&self) -> PermissionMode {
        self.status.permission_mode
    }

    /// Whether a turn is running.
    pub fn is_busy(&self) -> bool {
        self.turn.is_some()
    }

    /// Prompts waiting for the running turn to end.
    pub fn queued(&self) -> impl Iterator<Item = &Prompt> {
        self.queue.iter().map(|(p, _)| p)
    }

    /// Whether a dialog is waiting for the user (fire the Notification hook).
    pub fn is_waiting_for_user(&self) -> bool {
        matches!(
            self.overlay,
            Some(Overlay::Permission(_) | Overlay::Trust(_))
        )
    }

    /// Whether a full-screen view (the transcript) is open: draw it on the
    /// alternate screen ([`crate::draw`] does).
    pub fn is_fullscreen(&self) -> bool {
        matches!(self.overlay, Some(Overlay::Transcript { .. }))
    }

    /// Every history entry so far (the transcript).
    pub fn cells(&self) -> &[HistoryCell] {
        &self.cells
    }

    /// The lines to write into the scrollback now; each line is handed out once.
    pub fn take_history(&mut self) -> Vec<Line<'static>> {
        std::mem::take(&mut self.pending_history)
    }

    /// When the driver should call [`App::tick`] next: while a turn runs (the
    /// spinner) or a hint is shown. `None` means idle: no timer at all.
    pub fn next_tick(&self) -> Option<Instant> {
        let now = self.now?;
        // No tick while a dialog waits: the spinner stands still.
        let spinner = self
            .turn
            .filter(|t| t.paused_since.is_none())
            .map(|_| now + SPINNER_TICK);
        let hint = self.hint.as_ref().map(|(_, until)| *until);
        match (spinner, hint) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Time passes (spinner, hints expiring).
    pub fn tick(&mut self, now: Instant) {
        self.now = Some(now);
        if let Some(turn) = &mut self.turn {
            turn.shown_streamed = turn.streamed;
        }
        if self.hint.as_ref().is_some_and(|(_, until)| *until <= now) {
            self.hint = None;
        }
    }

    /// A terminal event from crossterm.
    pub fn handle_terminal_event(&mut self, event: Event, now: Instant) -> Vec<UiAction> {
        match event {
            Event::Key(key) => self.handle_key(key, now),
            Event::Paste(text) => {
                self.handle_paste(&text);
                Vec::new()
            }
            Event::Resize(w, h) => {
                self.set_size(w, h);
                Vec::new()
            }
            Event::FocusGained | Event::FocusLost | Event::Mouse(_) => Vec::new(),
        }
    }

    /// Bracketed paste: large pastes become a placeholder.
    pub fn handle_paste(&mut self, text: &str) {
        match &mut self.overlay {
            Some(
                Overlay::Permission(_)
                | Overlay::Resume(_)
                | Overlay::Rewind(_)
                | Overlay::Model(_)
                | Overlay::Plugins(_)
                | Overlay::Trust(_)
                | Overlay::Decisions(_),
            ) => return,
            Some(Overlay::Transcript { .. }) => self.overlay = None,
            None => {}
        }
        if self.search.is_some() {
            return;
        }
        let inserted = self.pastes.insert(text);
        self.editor.insert_str(&inserted);
        self.edited();
    }

    /// Something the runtime reports.
    pub fn handle_event(&mut self, event: UiEvent, now: Instant) -> Vec<UiAction> {
        self.now = Some(now);
        let mut actions = Vec::new();
        let (width, theme) = (self.width, self.theme);
        match event {
            UiEvent::Welcome {
                version,
                model,
                cwd,
            } => {
                let cwd = self.paths.with_tilde(&cwd);
                self.push_cell(HistoryCell::Welcome {
                    version,
                    model,
                    cwd,
                });
            }
            UiEvent::TurnStarted => {
                if self.turn.is_none() {
                    self.turn = Some(Turn::new(now));
                }
            }
            UiEvent::UserPrompt(text) => {
                let (mode, body) = InputMode::of(&text);
                let cell = HistoryCell::User {
                    mode,
                    text: body.to_string(),
                };
                self.push_cell(cell);
            }
            UiEvent::TextDelta(delta) => {
                if let Some(t) = &mut self.turn {
                    t.streamed += delta.len();
                    t.thinking = false;
                }
                self.live.text_delta(&delta, width, &theme);
            }
            UiEvent::ThinkingDelta(delta) => {
                if let Some(t) = &mut self.turn {
                    t.streamed += delta.len();
                    t.thinking = true;
                }
                self.live.thinking_delta(&delta, width, &theme);
            }
            UiEvent::StreamDiscarded => {
                if self.live.discard_streams() {
                    self.notice(
                        NoticeLevel::Warning,
                        "The response above was cut off; it is being retried.",
                    );
                }
            }
            UiEvent::AssistantMessageDone => self.live.finish_streams(),
            UiEvent::ToolUseStarted { id, name, input } => self.tool_started(id, name, &input),
            UiEvent::ToolProgress { id, text } => self.live.tool_progress(&id, text),
            UiEvent::ToolUseFinished {
                id,
                is_error,
                content,
            } => {
                let tool = self.live.tool_name(&id).unwrap_or_default();
                let content = self.paths.result(&tool, &content);
                self.live
                    .tool_finished(&id, ToolResult { is_error, content });
            }
            UiEvent::Todos(todos) => self.todos = todos,
            UiEvent::PermissionRequest(request) => self.permission_request(request),
            UiEvent::PermissionWithdrawn { id } => {
                self.waiting_permissions.retain(|r| r.id != id);
                if matches!(&self.overlay, Some(Overlay::Permission(d)) if d.request.id == id) {
                    self.next_permission();
                }
            }
            UiEvent::Compacted { summary, .. } => {
                self.commit_live();
                self.push_cell(HistoryCell::Compacted { summary });
            }
            UiEvent::TurnResult(summary) => {
                // A permission request cannot outlive its turn (the runtime
                // has denied it when the turn was interrupted).
                self.waiting_permissions.clear();
                if matches!(self.overlay, Some(Overlay::Permission(_))) {
                    self.overlay = None;
                }
                self.live.end_turn();
                self.commit_live();
                if summary.interrupted || summary.error.is_some() {
                    self.push_cell(HistoryCell::TurnEnd {
                        interrupted: summary.interrupted,
                        error: summary.error,
                    });
                }
                self.status.session_cost_usd = summary.session_cost_usd;
                self.turn = None;
                if let Some((next, display)) = self.queue.pop_front() {
                    actions.extend(self.send(next, display, now));
                }
            }
            UiEvent::Status(patch) => self.status_patch(patch),
            UiEvent::Models { options, current } => {
                self.overlay = Some(Overlay::Model(ModelPicker::new(options, &current)));
            }
            UiEvent::Sessions { sessions, clock } => {
                self.overlay = Some(Overlay::Resume(ResumePicker::new(sessions, clock)));
            }
            UiEvent::Plugins(plugins) => {
                self.overlay = Some(Overlay::Plugins(match &self.overlay {
                    Some(Overlay::Plugins(open)) => open.refreshed(plugins),
                    _ => PluginBrowser::new(plugins),
                }));
            }
            UiEvent::RewindPoints(mut points) => {
                for file in points.iter_mut().flat_map(|p| &mut p.files) {
                    *file = self.paths.show(file);
                }
                self.overlay = Some(Overlay::Rewind(RewindPicker::new(points)));
            }
            UiEvent::HistoryReset => {
                self.pending_history.clear();
                self.history_started = false;
                self.cells.clear();
            }
            UiEvent::TrustRequest { dir } => {
                self.overlay = Some(Overlay::Trust(TrustDialog::new(dir)));
            }
            UiEvent::Notice { level, text } => {
                self.commit_live();
                self.notice(level, &text);
            }
            UiEvent::ModeSet(mode) => self.mode_set(mode),
            UiEvent::ModeUnavailable { mode, reason } => {
                actions.extend(self.mode_unavailable(mode, &reason));
            }
            UiEvent::AutoDecisions(decisions) => {
                if self.is_waiting_for_user() {
                    // A question of the runtime's stays open.
                    self.notice(
                        NoticeLevel::Warning,
                        "Answer the dialog first; /permissions then lists auto mode's decisions.",
                    );
                } else {
                    self.overlay = Some(Overlay::Decisions(DecisionsView::new(decisions)));
                }
            }
            UiEvent::RuleAdded { rule, saved } => self.rule_added(&rule, saved),
        }
        self.commit_live();
        self.pause_while_asking(now);
        actions
    }

    /// A tool call started: shown with its paths shortened; TodoWrite's
    /// list replaces the todos.
    fn tool_started(&mut self, id: String, name: String, input: &serde_json::Value) {
        if name == "TodoWrite"
            && let Some(todos) = input
                .get("todos")
                .cloned()
                .and_then(|t| serde_json::from_value::<Vec<TodoItem>>(t).ok())
        {
            self.todos = todos;
        }
        let input = self.paths.input(&name, input);
        self.live.tool_started(ToolCall {
            id,
            name,
            input,
            result: None,
        });
    }

    /// A dialog for `request` (its paths shortened), or queued behind the open one.
    fn permission_request(&mut self, mut request: PermissionRequest) {
        request.input = self.paths.input(&request.tool_name, &request.input);
        if matches!(self.overlay, Some(Overlay::Permission(_))) {
            self.waiting_permissions.push_back(request);
        } else {
            self.overlay = Some(Overlay::Permission(Box::new(
                self.permission_dialog(request),
            )));
        }
    }

    /// Stops the turn's clock while a dialog waits for the user, and starts
    /// it again when it is answered.
    fn pause_while_asking(&mut self, now: Instant) {
        let asking = self.is_waiting_for_user();
        let Some(turn) = &mut self.turn else {
            return;
        };
        match (asking, turn.paused_since) {
            (true, None) => turn.paused_since = Some(now),
            (false, Some(since)) => {
                turn.paused += now.saturating_duration_since(since);
                turn.paused_since = None;
            }
            (true, Some(_)) | (false, None) => {}
        }
    }

    fn notice(&mut self, level: NoticeLevel, text: &str) {
        self.push_cell(HistoryCell::Notice {
            level,
            text: text.to_string(),
        });
    }

    /// Adds a finished cell to history (a blank line before it).
    fn push_cell(&mut self, cell: HistoryCell) {
        let lines = cell.render(&self.theme, self.width, false);
        self.push_lines(lines, true);
        self.cells.push(cell);
    }

    fn push_lines(&mut self, lines: Vec<Line<'static>>, starts_entry: bool) {
        if lines.is_empty() {
            return;
        }
        if starts_entry && self.history_started {
            self.pending_history.push(Line::default());
        }
        self.pending_history.extend(lines);
        self.history_started = true;
    }

    fn commit_live(&mut self) {
        let mut out: Vec<Committed> = Vec::new();
        self.live.commit(self.width, &self.theme, &mut out);
        for c in out {
            self.push_lines(c.lines, c.starts_entry);
            self.cells.extend(c.cells);
        }
    }

    /// Sends a prompt now, or queues it behind the running turn. History shows
    /// `display`: what was typed (paste placeholders, the slash command), not
    /// the expanded text.
    fn send(&mut self, prompt: Prompt, display: String, now: Instant) -> Vec<UiAction> {
        if self.turn.is_some() {
            self.queue.push_back((prompt, display));
            return Vec::new();
        }
        self.push_cell(HistoryCell::User {
            mode: InputMode::Prompt,
            text: display,
        });
        self.turn = Some(Turn::new(now));
        vec![UiAction::Submit(prompt)]
    }

    fn set_hint(&mut self, text: &str, now: Instant) {
        self.hint = Some((text.to_string(), now + DOUBLE_PRESS));
    }

    /// The editor's text changed: browsing and popups start over.
    fn edited(&mut self) {
        self.history.reset();
        self.popup_selected = 0;
        self.popup_dismissed = false;
        self.show_help = false;
    }
}

impl Turn {
    fn new(now: Instant) -> Turn {
        Turn {
            started: now,
            streamed: 0,
            shown_streamed: 0,
            thinking: false,
            paused: Duration::ZERO,
            paused_since: None,
        }
    }

    /// How long the turn has run by `now`, time spent waiting on a dialog
    /// left out.
    fn elapsed(&self, now: Instant) -> Duration {
        let until = self.paused_since.unwrap_or(now);
        until
            .saturating_duration_since(self.started)
            .saturating_sub(self.paused)
    }
}
