//! Vim mode in the prompt, as Claude Code's `/vim` has it: INSERT (typing,
//! the prompt's usual keys) and NORMAL (motions, operators, text objects,
//! one unnamed register, undo and `.`). The keys a NORMAL command is made of
//! are parsed here; what they do to the text is in [`edit`], where they go
//! in [`motion`].
//!
//! As in Claude Code, vim handles the text and the keybindings the rest:
//! keys with Ctrl or Alt, Enter (it submits in either mode), Tab and
//! Shift+Tab, and in INSERT every key but Esc are the prompt's as without
//! vim (so `keybindings.json`'s `Chat` context applies). Esc in INSERT goes
//! to NORMAL and is not `chat:cancel`; in NORMAL with nothing pending it is.

mod edit;
pub mod motion;
mod remap;
mod visual;

pub use remap::insert_remaps;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::Editor;
use motion::Find;

/// Undo steps kept.
const UNDO_DEPTH: usize = 100;
/// The largest count (`999x`) taken.
const MAX_COUNT: usize = 999;

/// The mode the prompt is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VimMode {
    Insert,
    Normal,
    /// `v`: characters from where it began to the cursor.
    Visual,
    /// `V`: the whole lines from where it began to the cursor's.
    VisualLine,
}

impl VimMode {
    /// As the indicator and the status line's `vim.mode` say it.
    pub fn name(self) -> &'static str {
        match self {
            VimMode::Insert => "INSERT",
            VimMode::Normal => "NORMAL",
            VimMode::Visual => "VISUAL",
            VimMode::VisualLine => "VISUAL LINE",
        }
    }
}

/// What became of a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VimKey {
    /// Vim took it; `edited` when the text changed.
    Handled {
        edited: bool,
    },
    /// The prompt's own key (Enter, Ctrl and Alt keys, arrows, typing in INSERT).
    PassThrough,
    /// `k` on the first line, `j` on the last: the history, as ↑/↓.
    HistoryPrevious,
    HistoryNext,
    /// `/` in NORMAL: the history search, as Ctrl+R.
    Search,
    /// `?` in NORMAL: the shortcuts.
    Help,
}

/// `d`, `c`, `y`, `>`, `<`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Delete,
    Change,
    Yank,
    /// `>`: whole lines one step in.
    Indent,
    /// `<`: whole lines one step out.
    Dedent,
}

impl Op {
    fn of(c: char) -> Option<Op> {
        Some(match c {
            'd' => Op::Delete,
            'c' => Op::Change,
            'y' => Op::Yank,
            '>' => Op::Indent,
            '<' => Op::Dedent,
            _ => return None,
        })
    }

    fn key(self) -> char {
        match self {
            Op::Delete => 'd',
            Op::Change => 'c',
            Op::Yank => 'y',
            Op::Indent => '>',
            Op::Dedent => '<',
        }
    }
}

/// The keys of a NORMAL command typed so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    Idle,
    /// `g` (of `gg`), after an operator or not.
    G(Option<Op>),
    /// `f` `F` `t` `T`, waiting for the character.
    Find(Option<Op>, Find),
    /// An operator waiting for its motion.
    Op(Op),
    /// `i` / `a` after an operator: which object.
    Object(Op, bool),
    /// `r`: the character to put.
    Replace,
}

/// The text and cursor before a change, for `u`.
type Snapshot = (String, usize);

/// Vim's state beside the editor's text.
#[derive(Debug, Clone)]
pub struct Vim {
    mode: VimMode,
    pending: Pending,
    /// A count typed before the command (`3w`); 0 when none.
    count: usize,
    /// The keys of the command being typed, for `.`.
    keys: Vec<char>,
    register: String,
    register_lines: bool,
    last_find: Option<(Find, char)>,
    /// The last change: its keys and what was typed after them in INSERT.
    last_change: Option<(Vec<char>, String)>,
    /// A command that went to INSERT: its keys, until Esc completes it.
    changing: Option<Vec<char>>,
    /// What was typed since INSERT began.
    typed: String,
    /// The text when INSERT began (one undo step for the whole insert).
    insert_start: Option<Snapshot>,
    undo: Vec<Snapshot>,
    replaying: bool,
    /// Where VISUAL began (the other end is the cursor).
    anchor: usize,
    /// `vimInsertModeRemaps`, and the first key of one typed.
    remap: remap::InsertRemap,
}

impl Default for Vim {
    fn default() -> Self {
        Vim::new()
    }
}

impl Vim {
    /// Vim mode, starting in INSERT (as Claude Code's).
    pub fn new() -> Vim {
        Vim {
            mode: VimMode::Insert,
            pending: Pending::Idle,
            count: 0,
            keys: Vec::new(),
            register: String::new(),
            register_lines: false,
            last_find: None,
            last_change: None,
            changing: None,
            typed: String::new(),
            insert_start: None,
            undo: Vec::new(),
            replaying: false,
            anchor: 0,
            remap: remap::InsertRemap::default(),
        }
    }

    /// Vim mode with `vimInsertModeRemaps`' sequences ([`insert_remaps`]).
    pub fn with_remaps(pairs: Vec<(char, char)>) -> Vim {
        let mut vim = Vim::new();
        vim.remap.pairs = pairs;
        vim
    }

    /// A key typed at `now`: [`Vim::key`], after `vimInsertModeRemaps`
    /// (whose second key, in time, is Esc with the first taken back out).
    pub fn key_at(
        &mut self,
        key: &KeyEvent,
        editor: &mut Editor,
        now: std::time::Instant,
    ) -> VimKey {
        if self.mode == VimMode::Insert && !self.remap.pairs.is_empty() {
            let plain = key.modifiers.difference(KeyModifiers::SHIFT).is_empty();
            let typed = match key.code {
                KeyCode::Char(c) if plain => Some(c),
                _ => None,
            };
            if let Some(first) = self.remap.completes(typed, now)
                && editor.text()[..editor.cursor()].ends_with(first)
            {
                editor.backspace();
                self.typed.pop();
                return self.key(&KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE), editor);
            }
        }
        self.key(key, editor)
    }

    pub fn mode(&self) -> VimMode {
        self.mode
    }

    /// A key for the prompt while vim mode is on.
    pub fn key(&mut self, key: &KeyEvent, editor: &mut Editor) -> VimKey {
        // Ctrl+[ is Esc (a terminal with the Kitty protocol tells them apart).
        if key.code == KeyCode::Char('[') && key.modifiers == KeyModifiers::CONTROL {
            return self.key(&KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE), editor);
        }
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        match (self.mode, key.code) {
            (_, _) if !plain => VimKey::PassThrough,
            (_, KeyCode::Enter) => {
                self.cancel();
                if self.in_visual() {
                    self.mode = VimMode::Normal;
                }
                VimKey::PassThrough
            }
            (VimMode::Visual | VimMode::VisualLine, code) => self.visual_key(code, editor),
            (VimMode::Insert, KeyCode::Esc) => {
                self.enter_normal(editor);
                VimKey::Handled { edited: false }
            }
            (VimMode::Insert, code) => {
                self.track_insert(code, editor);
                VimKey::PassThrough
            }
            (VimMode::Normal, KeyCode::Esc) if self.pending == Pending::Idle && self.count == 0 => {
                VimKey::PassThrough
            }
            (VimMode::Normal, KeyCode::Esc) => {
                self.cancel();
                VimKey::Handled { edited: false }
            }
            (VimMode::Normal, KeyCode::Char(c)) => self.normal(c, editor),
            (VimMode::Normal, KeyCode::Backspace) if self.expects_motion() => {
                self.normal('h', editor)
            }
            (VimMode::Normal, KeyCode::Delete) if self.expects_motion() => self.normal('x', editor),
            (VimMode::Normal, _) if self.pending == Pending::Idle => VimKey::PassThrough,
            (VimMode::Normal, _) => {
                self.cancel();
                VimKey::Handled { edited: false }
            }
        }
    }

    /// The text was replaced (history): in NORMAL the cursor goes back
    /// onto a character.
    pub fn settle(&self, editor: &mut Editor) {
        if self.mode == VimMode::Normal {
            edit::clamp_normal(editor);
        }
    }

    /// The prompt was sent or replaced: nothing is pending any more.
    pub fn cancel(&mut self) {
        self.pending = Pending::Idle;
        self.count = 0;
        self.keys.clear();
    }

    fn expects_motion(&self) -> bool {
        matches!(self.pending, Pending::Idle | Pending::Op(_))
    }

    /// Typing in INSERT: remembered for `.`, and the text before it for `u`.
    fn track_insert(&mut self, code: KeyCode, editor: &Editor) {
        if self.insert_start.is_none() {
            self.insert_start = Some(snapshot(editor));
        }
        match code {
            KeyCode::Char(c) => self.typed.push(c),
            KeyCode::Backspace => _ = self.typed.pop(),
            _ => {}
        }
    }

    fn enter_insert(&mut self, editor: &mut Editor, at: usize, before: Snapshot) {
        editor.set_cursor(at);
        self.mode = VimMode::Insert;
        self.typed.clear();
        self.insert_start = Some(before);
        if !self.replaying {
            self.changing = Some(std::mem::take(&mut self.keys));
        }
    }

    /// Esc: NORMAL, the cursor one back (as vim), the insert one change.
    fn enter_normal(&mut self, editor: &mut Editor) {
        self.mode = VimMode::Normal;
        self.cancel();
        let text = editor.text();
        let at = editor.cursor();
        if at > 0 && !text[..at].ends_with('\n') {
            editor.set_cursor(motion::prev_char(text, at));
        }
        let typed = std::mem::take(&mut self.typed);
        let start = self.insert_start.take();
        if self.replaying {
            return;
        }
        if let Some(before) = start
            && before.0 != editor.text()
        {
            self.push_undo(before);
        }
        match self.changing.take() {
            Some(keys) => self.last_change = Some((keys, typed)),
            None if !typed.is_empty() => self.last_change = Some((vec!['i'], typed)),
            None => {}
        }
    }

    fn push_undo(&mut self, before: Snapshot) {
        if self.undo.len() == UNDO_DEPTH {
            self.undo.remove(0);
        }
        self.undo.push(before);
    }

    /// A key of a NORMAL command.
    fn normal(&mut self, c: char, editor: &mut Editor) -> VimKey {
        let before = snapshot(editor);
        let idle = self.pending == Pending::Idle && self.count == 0;
        if c == '.' && self.pending == Pending::Idle && !self.replaying {
            // `3.`: the last change with its count replaced.
            let count = std::mem::take(&mut self.count);
            self.cancel();
            self.repeat(editor, count);
            if editor.text() != before.0 {
                self.push_undo(before.clone());
            }
            edit::clamp_normal(editor);
            return VimKey::Handled {
                edited: editor.text() != before.0,
            };
        }
        if idle && !self.replaying && c == 'u' {
            // Neither is a change of its own: `u` steps back, `.` is one
            // step however many keys it replays.
            if let Some((text, cursor)) = self.undo.pop() {
                editor.set_text(text);
                editor.set_cursor(cursor);
            }
            edit::clamp_normal(editor);
            return VimKey::Handled {
                edited: editor.text() != before.0,
            };
        }
        if !self.replaying {
            self.keys.push(c);
        }
        let outcome = self.step(c, editor, &before);
        let edited = editor.text() != before.0;
        if self.mode == VimMode::Insert {
            return VimKey::Handled { edited };
        }
        if self.pending == Pending::Idle && self.count == 0 {
            let keys = std::mem::take(&mut self.keys);
            if edited && !self.replaying {
                self.last_change = Some((keys, String::new()));
            }
        }
        if edited && !self.replaying {
            self.push_undo(before);
        }
        edit::clamp_normal(editor);
        outcome.unwrap_or(VimKey::Handled { edited })
    }

    /// Carries out `c` given what is pending; `Some` for what the prompt does.
    fn step(&mut self, c: char, editor: &mut Editor, before: &Snapshot) -> Option<VimKey> {
        let pending = std::mem::replace(&mut self.pending, Pending::Idle);
        let count = self.count.max(1);
        match pending {
            Pending::Idle | Pending::Op(_)
                if c.is_ascii_digit() && (c != '0' || self.count > 0) =>
            {
                // A prompt needs no more: a count is a loop.
                self.count = (self.count * 10 + (c as usize - '0' as usize)).min(MAX_COUNT);
                self.pending = pending;
                return None;
            }
            Pending::Idle => {
                let outcome = self.idle(c, count, editor, before);
                if self.pending == Pending::Idle {
                    self.count = 0;
                }
                return outcome;
            }
            Pending::Op(op) => self.after_op(op, c, count, editor, before),
            Pending::G(op) => {
                if c == 'g' {
                    match op {
                        Some(op) => self.lines(op, 0, editor.cursor(), editor, before),
                        None => editor.set_cursor(0),
                    }
                }
            }
            Pending::Find(op, find) => {
                self.last_find = Some((find, c));
                self.find(op, find, c, count, editor, before);
            }
            Pending::Object(op, around) => {
                if let Some((start, end)) =
                    motion::text_object(editor.text(), editor.cursor(), c, around)
                {
                    self.apply(op, start, end, editor, before);
                }
            }
            Pending::Replace => edit::replace(editor, c, count),
        }
        self.count = 0;
        None
    }

    /// The first key of a command.
    fn idle(
        &mut self,
        c: char,
        count: usize,
        editor: &mut Editor,
        before: &Snapshot,
    ) -> Option<VimKey> {
        let (text, at) = (editor.text(), editor.cursor());
        let insert_at = match c {
            'i' => Some(at),
            'a' => Some(edit::after(text, at)),
            'I' => Some(motion::first_non_blank(text, at)),
            'A' => Some(motion::line_end(text, at)),
            _ => None,
        };
        if let Some(to) = insert_at {
            self.enter_insert(editor, to, before.clone());
            return None;
        }
        match c {
            'o' | 'O' => {
                let to = edit::open_line(editor, c == 'o');
                self.enter_insert(editor, to, before.clone());
            }
            'j' | 'k' => {
                for _ in 0..count {
                    let moved = if c == 'j' { editor.down() } else { editor.up() };
                    if !moved {
                        return Some(if c == 'j' {
                            VimKey::HistoryNext
                        } else {
                            VimKey::HistoryPrevious
                        });
                    }
                }
            }
            'g' => self.pending = Pending::G(None),
            'r' => self.pending = Pending::Replace,
            'x' => {
                let end = edit::chars_forward(text, at, count);
                self.apply(Op::Delete, at, end, editor, before);
            }
            'X' => {
                let start = edit::chars_back(text, at, count);
                self.apply(Op::Delete, start, at, editor, before);
            }
            '~' => {
                let end = edit::chars_forward(text, at, count);
                edit::toggle_case(editor, at, end);
            }
            'v' | 'V' => self.enter_visual(c == 'V', at),
            's' => {
                let end = edit::chars_forward(text, at, count);
                self.apply(Op::Change, at, end, editor, before);
            }
            'D' | 'C' => {
                let op = if c == 'D' { Op::Delete } else { Op::Change };
                let end = motion::line_end(text, at);
                self.apply(op, at, end, editor, before);
            }
            'S' => self.lines(Op::Change, at, at, editor, before),
            'Y' => self.lines(Op::Yank, at, at, editor, before),
            'p' | 'P' => edit::paste(editor, &self.register, self.register_lines, c == 'p', count),
            'J' => edit::join(editor, count),
            ';' | ',' => {
                if let Some((find, target)) = self.last_find {
                    let find = if c == ',' { find.reversed() } else { find };
                    self.find(None, find, target, count, editor, before);
                }
            }
            '?' => return Some(VimKey::Help),
            '/' => return Some(VimKey::Search),
            c => {
                if let Some(op) = Op::of(c) {
                    self.pending = Pending::Op(op);
                    return None;
                }
                if let Some(find) = Find::of(c) {
                    self.pending = Pending::Find(None, find);
                    return None;
                }
                if let Some(to) = edit::motion(editor.text(), editor.cursor(), c, count, None) {
                    editor.set_cursor(to.target);
                }
            }
        }
        None
    }

    /// The key after an operator: its own letter (`dd`), an object, a
    /// motion.
    fn after_op(&mut self, op: Op, c: char, count: usize, editor: &mut Editor, before: &Snapshot) {
        let (text, at) = (editor.text(), editor.cursor());
        if c == op.key() {
            let last = (1..count).fold(at, |p, _| {
                let end = motion::line_end(text, p);
                if end < text.len() { end + 1 } else { p }
            });
            self.lines(op, at, last, editor, before);
            return;
        }
        match c {
            'i' | 'a' => self.pending = Pending::Object(op, c == 'a'),
            'g' => self.pending = Pending::G(Some(op)),
            c => {
                if let Some(find) = Find::of(c) {
                    self.pending = Pending::Find(Some(op), find);
                    return;
                }
                let Some(to) = edit::motion(text, at, c, count, Some(op == Op::Change)) else {
                    return;
                };
                if to.lines {
                    self.lines(op, at, to.target, editor, before);
                } else {
                    let (start, end) = edit::span(text, at, to);
                    self.apply(op, start, end, editor, before);
                }
            }
        }
        if self.pending == Pending::Idle {
            self.count = 0;
        }
    }

    fn find(
        &mut self,
        op: Option<Op>,
        find: Find,
        c: char,
        count: usize,
        editor: &mut Editor,
        before: &Snapshot,
    ) {
        let Some(to) = find.find(editor.text(), editor.cursor(), c, count) else {
            return;
        };
        match op {
            None => editor.set_cursor(to),
            Some(op) => {
                let at = editor.cursor();
                let (start, end) = if find.forward() {
                    (at, motion::next_char(editor.text(), to))
                } else {
                    (to, at)
                };
                self.apply(op, start, end, editor, before);
            }
        }
    }

    /// `op` on `start..end` of the text.
    fn apply(&mut self, op: Op, start: usize, end: usize, editor: &mut Editor, before: &Snapshot) {
        if start >= end && op != Op::Change {
            return;
        }
        if matches!(op, Op::Indent | Op::Dedent) {
            // `>w`, `<i(`: the lines the range is on.
            let last = motion::prev_char(editor.text(), end).max(start);
            self.lines(op, start, last, editor, before);
            return;
        }
        self.register = editor.text()[start..end].to_owned();
        self.register_lines = false;
        match op {
            Op::Yank | Op::Indent | Op::Dedent => editor.set_cursor(start),
            Op::Delete => {
                editor.splice(start..end, "");
                editor.set_cursor(start);
            }
            Op::Change => {
                editor.splice(start..end, "");
                self.enter_insert(editor, start, before.clone());
            }
        }
    }

    /// `op` on the whole lines from the one `a` is on to the one `b` is on.
    fn lines(&mut self, op: Op, a: usize, b: usize, editor: &mut Editor, before: &Snapshot) {
        if matches!(op, Op::Indent | Op::Dedent) {
            edit::shift_lines(editor, a, b, op == Op::Indent);
            return;
        }
        let text = editor.text();
        let start = motion::line_start(text, a.min(b));
        let end = motion::line_end(text, a.max(b));
        self.register = format!("{}\n", &text[start..end]);
        self.register_lines = true;
        match op {
            Op::Yank | Op::Indent | Op::Dedent => {}
            Op::Delete => {
                let range = if end < text.len() {
                    start..end + 1
                } else {
                    start.saturating_sub(1)..end
                };
                let at = range.start;
                editor.splice(range, "");
                let at = motion::first_non_blank(editor.text(), at.min(editor.text().len()));
                editor.set_cursor(at);
            }
            Op::Change => {
                editor.splice(start..end, "");
                self.enter_insert(editor, start, before.clone());
            }
        }
    }

    /// `.`: the last change's keys again, and what was typed after them;
    /// with a `count` (`3.`), that count in place of the change's own.
    fn repeat(&mut self, editor: &mut Editor, count: usize) {
        let Some((mut keys, typed)) = self.last_change.clone() else {
            return;
        };
        if count > 0 {
            let own = keys.iter().take_while(|c| c.is_ascii_digit()).count();
            keys.splice(..own, count.to_string().chars());
        }
        self.replaying = true;
        for c in keys {
            self.normal(c, editor);
        }
        if self.mode == VimMode::Insert {
            editor.insert_str(&typed);
            self.enter_normal(editor);
        }
        self.replaying = false;
    }
}

fn snapshot(editor: &Editor) -> Snapshot {
    (editor.text().to_owned(), editor.cursor())
}

#[cfg(test)]
mod tests;
