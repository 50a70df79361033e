//! VISUAL (`v`) and VISUAL LINE (`V`), as Claude Code's table has them: the
//! motions of NORMAL move the cursor and the selection runs from where it
//! began to the cursor (inclusive); `d` `x` delete it, `y` yanks it, `c` `s`
//! change it, `p` puts the register in its place, `r{char}` replaces each
//! character, `~` `u` `U` swap, lower and raise its case, `>` `<` shift its
//! lines, `J` joins them, `o` goes to its other end, `iw` `a"` ... select a
//! text object, `v` / `V` switch the kind (or leave when it is the same),
//! Esc leaves. A change made in VISUAL is one undo step; `.` does not
//! repeat it.

use std::ops::Range;

use crossterm::event::KeyCode;

use super::motion::{self, Find};
use super::{Op, Pending, Vim, VimKey, VimMode, edit, snapshot};
use crate::input::Editor;

impl Vim {
    pub(super) fn in_visual(&self) -> bool {
        matches!(self.mode, VimMode::Visual | VimMode::VisualLine)
    }

    /// `v` / `V` in NORMAL: the selection begins at `at`.
    pub(super) fn enter_visual(&mut self, lines: bool, at: usize) {
        self.mode = match lines {
            true => VimMode::VisualLine,
            false => VimMode::Visual,
        };
        self.anchor = at;
    }

    /// The selected text while in VISUAL: from where it began to the
    /// cursor, the character under the cursor included (whole lines in
    /// VISUAL LINE, their last newline not).
    pub fn selection(&self, editor: &Editor) -> Option<Range<usize>> {
        let (text, at) = (editor.text(), editor.cursor());
        let (a, b) = (self.anchor.min(at), self.anchor.max(at).min(text.len()));
        match self.mode {
            VimMode::Visual => Some(a..motion::next_char(text, b).min(text.len())),
            VimMode::VisualLine => Some(motion::line_start(text, a)..motion::line_end(text, b)),
            VimMode::Insert | VimMode::Normal => None,
        }
    }

    /// A key in VISUAL.
    pub(super) fn visual_key(&mut self, code: KeyCode, editor: &mut Editor) -> VimKey {
        match code {
            KeyCode::Esc => {
                self.cancel();
                self.mode = VimMode::Normal;
                VimKey::Handled { edited: false }
            }
            KeyCode::Char(c) => {
                // Undone, the cursor goes back to where the selection began.
                let start = self.selection(editor).map_or(editor.cursor(), |r| r.start);
                let before = (editor.text().to_owned(), start);
                self.visual_char(c, editor);
                let edited = editor.text() != before.0;
                // `c`: the insert it began is the undo step, as in NORMAL.
                if edited && self.mode != VimMode::Insert {
                    self.push_undo(before);
                }
                if self.mode != VimMode::Insert {
                    edit::clamp_normal(editor);
                }
                VimKey::Handled { edited }
            }
            // Arrows and the like move the cursor, and so the selection.
            _ => VimKey::PassThrough,
        }
    }

    fn visual_char(&mut self, c: char, editor: &mut Editor) {
        match std::mem::replace(&mut self.pending, Pending::Idle) {
            Pending::Replace => return self.replace_selection(c, editor),
            Pending::Object(_, around) => return self.select_object(c, around, editor),
            pending => self.pending = pending,
        }
        if self.pending != Pending::Idle {
            // The character of `f`/`t`, the second `g`: motions only.
            let before = snapshot(editor);
            self.step(c, editor, &before);
            return;
        }
        let count = self.count.max(1);
        let digit = c.is_ascii_digit() && (c != '0' || self.count > 0);
        let (text, at) = (editor.text(), editor.cursor());
        match c {
            _ if digit => {
                let more = self.count * 10 + (c as usize - '0' as usize);
                self.count = more.min(super::MAX_COUNT);
            }
            'v' | 'V' => {
                let lines = c == 'V';
                match (self.mode == VimMode::VisualLine) == lines {
                    true => self.mode = VimMode::Normal,
                    false => self.enter_visual(lines, self.anchor),
                }
            }
            'o' => {
                let other = self.anchor;
                self.anchor = at;
                editor.set_cursor(other);
            }
            'g' => self.pending = Pending::G(None),
            'j' | 'k' => {
                for _ in 0..count {
                    _ = if c == 'j' { editor.down() } else { editor.up() };
                }
            }
            ';' | ',' => {
                if let Some((find, target)) = self.last_find {
                    let find = if c == ',' { find.reversed() } else { find };
                    if let Some(to) = find.find(text, at, target, count) {
                        editor.set_cursor(to);
                    }
                }
            }
            'd' | 'x' => self.on_selection(Op::Delete, editor),
            'y' => self.on_selection(Op::Yank, editor),
            'c' | 's' => self.on_selection(Op::Change, editor),
            '>' => self.on_selection(Op::Indent, editor),
            '<' => self.on_selection(Op::Dedent, editor),
            '~' | 'u' | 'U' => self.recase_selection(c, editor),
            'p' => self.put_over_selection(editor),
            'J' => {
                if let Some(range) = self.selection(editor) {
                    let lines = text[range.clone()].matches('\n').count() + 1;
                    editor.set_cursor(range.start);
                    edit::join(editor, lines);
                }
                self.mode = VimMode::Normal;
            }
            'r' => self.pending = Pending::Replace,
            'i' | 'a' => self.pending = Pending::Object(Op::Yank, c == 'a'),
            c => {
                if let Some(find) = Find::of(c) {
                    self.pending = Pending::Find(None, find);
                } else if let Some(to) = edit::motion(text, at, c, count, None) {
                    editor.set_cursor(to.target);
                }
            }
        }
        if !digit && self.pending == Pending::Idle {
            self.count = 0;
        }
    }

    /// `~`, `u`, `U`: the selection's case swapped, lowered, raised.
    fn recase_selection(&mut self, c: char, editor: &mut Editor) {
        if let Some(range) = self.selection(editor) {
            match c {
                '~' => edit::toggle_case(editor, range.start, range.end),
                _ => {
                    let old = &editor.text()[range.clone()];
                    let new = match c {
                        'U' => old.to_uppercase(),
                        _ => old.to_lowercase(),
                    };
                    editor.splice(range.clone(), &new);
                }
            }
            editor.set_cursor(range.start);
        }
        self.mode = VimMode::Normal;
    }

    /// `r{char}`: every selected character but the line breaks becomes `c`.
    fn replace_selection(&mut self, c: char, editor: &mut Editor) {
        if let Some(range) = self.selection(editor).filter(|_| c != '\n') {
            let new: String = editor.text()[range.clone()]
                .chars()
                .map(|old| if old == '\n' { old } else { c })
                .collect();
            editor.splice(range.clone(), &new);
            editor.set_cursor(range.start);
        }
        self.mode = VimMode::Normal;
    }

    /// `p`: the register in the selection's place (a register of whole
    /// lines without its last line break).
    fn put_over_selection(&mut self, editor: &mut Editor) {
        if let Some(range) = self.selection(editor).filter(|_| !self.register.is_empty()) {
            let body = match self.register_lines {
                true => self.register.strip_suffix('\n').unwrap_or(&self.register),
                false => &self.register,
            };
            editor.splice(range.clone(), body);
            let last = motion::prev_char(editor.text(), range.start + body.len());
            editor.set_cursor(last.max(range.start));
        }
        self.mode = VimMode::Normal;
    }

    /// `iw`, `a"`, `i(` ...: the selection becomes the object around the
    /// cursor.
    fn select_object(&mut self, kind: char, around: bool, editor: &mut Editor) {
        if let Some((start, end)) =
            motion::text_object(editor.text(), editor.cursor(), kind, around)
            && start < end
        {
            self.anchor = start;
            editor.set_cursor(motion::prev_char(editor.text(), end));
        }
    }

    /// `op` on the selection; NORMAL after it (INSERT after `c`).
    fn on_selection(&mut self, op: Op, editor: &mut Editor) {
        let Some(range) = self.selection(editor) else {
            return;
        };
        let lines = self.mode == VimMode::VisualLine;
        self.mode = VimMode::Normal;
        let before = (editor.text().to_owned(), range.start);
        // Not a change `.` repeats: no keys are kept for it.
        self.keys.clear();
        if lines {
            self.lines(op, range.start, range.end, editor, &before);
        } else {
            self.apply(op, range.start, range.end, editor, &before);
        }
    }
}
