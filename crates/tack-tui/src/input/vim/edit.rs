//! What NORMAL commands do to the editor's text: motions as ranges, the
//! cursor kept on a character, paste, join, replace, open a line.

use super::motion::{
    first_non_blank, line_end, line_start, next_char, next_word_start, prev_char, prev_word_start,
    this_word_end, word_end,
};
use crate::input::Editor;

/// Where a motion goes, and how an operator takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Motion {
    pub target: usize,
    /// The character at `target` is part of the range (`e`, `f`).
    pub inclusive: bool,
    /// Whole lines (`j`, `k`, `G` after an operator).
    pub lines: bool,
}

/// Where motion key `c` goes from `at`, `count` times. `op` is `Some`
/// after an operator (`Some(true)` for `c`, whose `w` stops at the word's
/// end as vim's `cw` does).
pub(super) fn motion(
    text: &str,
    at: usize,
    c: char,
    count: usize,
    op: Option<bool>,
) -> Option<Motion> {
    // Stops where the motion stops moving (a count past the text's end).
    let repeat = |f: &dyn Fn(usize) -> usize| {
        let mut p = at;
        for _ in 0..count {
            let next = f(p);
            if next == p {
                break;
            }
            p = next;
        }
        p
    };
    let plain = |target| Motion {
        target,
        inclusive: false,
        lines: false,
    };
    let start = line_start(text, at);
    let end = line_end(text, at);
    let on_blank = text[at..].starts_with(char::is_whitespace);
    Some(match c {
        'h' => plain(repeat(&|p| prev_char(text, p).max(start))),
        'l' | ' ' => plain(repeat(&|p| next_char(text, p).min(end))),
        'w' | 'W' if op == Some(true) && !on_blank => {
            // `cw` is `ce` that stays in the word it starts on.
            let big = c == 'W';
            let first = this_word_end(text, at, big);
            Motion {
                target: (1..count).fold(first, |p, _| word_end(text, p, big)),
                inclusive: true,
                lines: false,
            }
        }
        'w' | 'W' => {
            let target = repeat(&|p| next_word_start(text, p, c == 'W'));
            // After an operator `w` stops at the end of the line.
            let target = if op.is_some() && text[at..target].contains('\n') && end > at {
                end
            } else {
                target
            };
            plain(target)
        }
        'e' | 'E' => Motion {
            target: repeat(&|p| word_end(text, p, c == 'E')),
            inclusive: true,
            lines: false,
        },
        'b' | 'B' => plain(repeat(&|p| prev_word_start(text, p, c == 'B'))),
        '0' => plain(start),
        '^' => plain(first_non_blank(text, at)),
        '$' => plain(end),
        'G' if op.is_some() => Motion {
            target: text.len(),
            inclusive: false,
            lines: true,
        },
        'G' => plain(line_start(text, text.len())),
        'j' if op.is_some() && end < text.len() => Motion {
            target: end + 1,
            inclusive: false,
            lines: true,
        },
        'k' if op.is_some() && start > 0 => Motion {
            target: start - 1,
            inclusive: false,
            lines: true,
        },
        _ => return None,
    })
}

/// The range an operator takes from `at` to the motion's target.
pub(super) fn span(text: &str, at: usize, to: Motion) -> (usize, usize) {
    let (low, high) = (at.min(to.target), at.max(to.target));
    if to.inclusive {
        (low, next_char(text, high))
    } else {
        (low, high)
    }
}

/// In NORMAL the cursor is on a character: not past the end of a line
/// that has any.
pub(super) fn clamp_normal(editor: &mut Editor) {
    let text = editor.text();
    let at = editor.cursor();
    if at == line_end(text, at) && at > line_start(text, at) {
        editor.set_cursor(prev_char(text, at));
    }
}

/// `a`, `p`: after the character under the cursor (an empty line has none).
pub(super) fn after(text: &str, at: usize) -> usize {
    next_char(text, at).min(line_end(text, at))
}

/// `count` characters from `at`, within its line (`x`, `s`).
pub(super) fn chars_forward(text: &str, at: usize, count: usize) -> usize {
    let end = line_end(text, at);
    (0..count).fold(at, |p, _| next_char(text, p).min(end))
}

/// `o` / `O`: a new line below or above the cursor's; where typing goes.
pub(super) fn open_line(editor: &mut Editor, below: bool) -> usize {
    let (text, at) = (editor.text(), editor.cursor());
    if below {
        let end = line_end(text, at);
        editor.splice(end..end, "\n");
        end + 1
    } else {
        let start = line_start(text, at);
        editor.splice(start..start, "\n");
        start
    }
}

/// `r`: the `count` characters from the cursor become `with` (nothing
/// when the line has fewer).
pub(super) fn replace(editor: &mut Editor, with: char, count: usize) {
    let (text, at) = (editor.text(), editor.cursor());
    let end = line_end(text, at);
    let chars = text[at..end].chars().count();
    if chars < count || with == '\n' {
        return;
    }
    let stop = chars_forward(text, at, count);
    let new = with.to_string().repeat(count);
    editor.splice(at..stop, &new);
    editor.set_cursor(at + new.len() - with.len_utf8());
}

/// `p` / `P`: the register after or before the cursor (whole lines below
/// or above its line), `count` times.
pub(super) fn paste(
    editor: &mut Editor,
    register: &str,
    lines: bool,
    after_cursor: bool,
    count: usize,
) {
    if register.is_empty() {
        return;
    }
    let (text, at) = (editor.text(), editor.cursor());
    // At most a megabyte of pasted copies.
    let count = count.min((1 << 20) / register.len()).max(1);
    let body = register.repeat(count);
    if lines {
        let to = if after_cursor {
            let end = line_end(text, at);
            let body = body.strip_suffix('\n').unwrap_or(&body);
            editor.splice(end..end, &format!("\n{body}"));
            end + 1
        } else {
            let start = line_start(text, at);
            editor.splice(start..start, &body);
            start
        };
        let to = first_non_blank(editor.text(), to);
        editor.set_cursor(to);
    } else {
        let to = if after_cursor { after(text, at) } else { at };
        editor.splice(to..to, &body);
        let last = prev_char(editor.text(), to + body.len());
        editor.set_cursor(last);
    }
}

/// `J`: the next line joined to this one with one space (none before an
/// empty line), `count - 1` times (once at least).
pub(super) fn join(editor: &mut Editor, count: usize) {
    for _ in 0..count.max(2) - 1 {
        let (text, at) = (editor.text(), editor.cursor());
        let end = line_end(text, at);
        if end == text.len() {
            return;
        }
        let next = end + 1;
        let blanks = text[next..]
            .find(|c: char| c != ' ' && c != '\t')
            .map_or(text.len() - next, |i| i);
        let rest_empty = text[next + blanks..].starts_with('\n') || next + blanks == text.len();
        let sep = if rest_empty { "" } else { " " };
        editor.splice(end..next + blanks, sep);
        editor.set_cursor(end);
    }
}

/// What `>` adds before a line and `<` takes away (the prompt has no
/// `shiftwidth`; a leading tab counts as one step out).
const SHIFT: &str = "  ";

/// `>>` / `<<` (and `>`, `<` with a motion or in VISUAL): the lines from
/// the one `a` is on to the one `b` is on, one step in or out; empty lines
/// stay empty. The cursor goes to the first line's first non-blank.
pub(super) fn shift_lines(editor: &mut Editor, a: usize, b: usize, indent: bool) {
    let text = editor.text();
    let start = line_start(text, a.min(b));
    let end = line_end(text, a.max(b));
    let shifted: Vec<String> = text[start..end]
        .split('\n')
        .map(|line| match indent {
            true if line.is_empty() => String::new(),
            true => format!("{SHIFT}{line}"),
            false => {
                let out = line
                    .strip_prefix(SHIFT)
                    .or_else(|| line.strip_prefix('\t'))
                    .or_else(|| line.strip_prefix(' '))
                    .unwrap_or(line);
                out.to_owned()
            }
        })
        .collect();
    editor.splice(start..end, &shifted.join("\n"));
    let to = first_non_blank(editor.text(), start);
    editor.set_cursor(to);
}

/// `~` (and `~` in VISUAL): the case of the letters in `start..end`
/// swapped; the cursor goes to `end` (NORMAL clamps it onto the line).
pub(super) fn toggle_case(editor: &mut Editor, start: usize, end: usize) {
    let swapped: String = editor.text()[start..end]
        .chars()
        .flat_map(|c| -> Vec<char> {
            if c.is_lowercase() {
                c.to_uppercase().collect()
            } else if c.is_uppercase() {
                c.to_lowercase().collect()
            } else {
                vec![c]
            }
        })
        .collect();
    editor.splice(start..end, &swapped);
    editor.set_cursor(start + swapped.len());
}

/// `X`: `count` characters before `at`, within its line.
pub(super) fn chars_back(text: &str, at: usize, count: usize) -> usize {
    let start = line_start(text, at);
    (0..count).fold(at, |p, _| prev_char(text, p).max(start))
}
