//! The inline viewport: history goes into the terminal's own scrollback once;
//! only the live area at the bottom is redrawn, by diff.
//!
//! # The model
//! The terminal cursor is *parked* at column 0 of the live area's first row
//! between frames (the UI draws its own caret, the real cursor is hidden). All
//! movement is relative to that point, so nothing needs to know absolute screen
//! rows, and a resize (which may reflow the screen) only needs "erase from the
//! park point down, draw again".
//!
//! Inserting `n` rows of history above the live area:
//! 1. go to the live area's last row and write `n` line feeds: they move down,
//!    or scroll the whole screen up when at the bottom, which is what pushes
//!    rows into the terminal's scrollback. Either way the live area's top is
//!    now `live_rows - 1 + n` rows above the cursor;
//! 2. go there and insert `n` blank lines (IL): the live area moves down
//!    intact, the blank rows below it fall off the bottom;
//! 3. write the history rows into the gap; the cursor ends at the new park point.
//!
//! The live area is not redrawn for that. A frame is written inside a
//! synchronized update (DEC mode 2026), which terminals without it ignore.
//! Nothing is written when nothing changed, so an idle UI costs nothing.
//!
//! # Streaming into the scrollback
//! History goes exactly where the live area's first row is. So when the first
//! history lines of a frame fit a row each, they are written *over* the live
//! area's top rows, cell by cell against what those rows show, and the park
//! point moves below them: they are history from then on, never touched
//! again. A streamed line shown live as it grew costs only its last cells when
//! it completes. Between frames the cursor may be left on the park row, after
//! the last cell written there (its column is kept in `col`): text appended to
//! a streaming line then needs no cursor movement at all. Every other write
//! starts with a carriage return. (A terminal that reflows on a resize to
//! fewer columns than that line is long moves the cursor onto the line's
//! continuation row; what stood before it on the park row is then left above
//! the live area, which is drawn again below it.)

use std::io::{self, Write};

use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::ansi::Pen;
use crate::wrap::terminal_rows;

const SYNC_BEGIN: &str = "\x1b[?2026h";
const SYNC_END: &str = "\x1b[?2026l";
/// Bytes of a frame written without a synchronized update around it.
const SMALL_FRAME: usize = 64;

/// An inline viewport on a terminal writer `W`.
#[derive(Debug)]
pub struct InlineTerminal<W: Write> {
    out: W,
    width: u16,
    height: u16,
    /// Screen rows the live area occupies below the park point.
    live_rows: u16,
    /// What those rows show (`width` x `live_rows`).
    shown: Buffer,
    synchronized: bool,
    /// Nothing drawn yet: the rows below the cursor are erased first.
    fresh: bool,
    /// The cursor's column on the park row (0: at the park point).
    col: u16,
    /// A full-screen view (the transcript) is shown on the alternate screen;
    /// what it shows.
    alternate: Option<Buffer>,
    /// The terminal was resized while on the alternate screen: the live area
    /// is erased and drawn anew on return.
    stale: bool,
}

impl<W: Write> InlineTerminal<W> {
    /// Takes over the terminal below the cursor, which must be at column 0 of
    /// the row where the live area is to start. `width` x `height` is the
    /// terminal's size.
    pub fn new(out: W, width: u16, height: u16) -> InlineTerminal<W> {
        InlineTerminal {
            out,
            width: width.max(1),
            height: height.max(1),
            live_rows: 0,
            shown: Buffer::empty(Rect::new(0, 0, width.max(1), 0)),
            synchronized: true,
            fresh: true,
            col: 0,
            alternate: None,
            stale: false,
        }
    }

    /// Wraps frames in DEC 2026 synchronized updates (on by default).
    pub fn set_synchronized(&mut self, on: bool) {
        self.synchronized = on;
    }

    /// The terminal's size as last set.
    pub fn size(&self) -> (u16, u16) {
        (self.width, self.height)
    }

    pub fn writer(&self) -> &W {
        &self.out
    }

    pub fn writer_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// Writes `history` into the scrollback above the live area, then brings
    /// the live area to `live` (its width should be the terminal's; rows beyond
    /// the terminal's height are cut from the top). Writes nothing if nothing
    /// changed.
    pub fn frame(&mut self, history: &[Line<'_>], live: &Buffer) -> io::Result<()> {
        self.leave_fullscreen()?;
        let live = fit(live, self.width, self.height);
        if history.is_empty() && !self.fresh && live == self.shown {
            return Ok(());
        }
        let mut body = Vec::with_capacity(256);
        let mut simple = !self.fresh && history.is_empty();
        if self.fresh {
            erase_below(&mut body, self.height);
            self.col = 0;
            self.fresh = false;
        }
        let adopted = self.adopt_history(&mut body, history)?;
        self.write_history(&mut body, &history[adopted..])?;
        simple &= self.write_live(&mut body, &live)?;
        // A frame that is one run of text written in place cannot be seen half
        // done, and a small one (a streamed line moving into history) goes
        // out in one write, which a terminal reads whole before it renders:
        // wrapping it would double its size. Anything else is wrapped in a
        // synchronized update.
        let mut bytes = Vec::with_capacity(body.len() + 16);
        let sync = self.synchronized && !simple && body.len() > SMALL_FRAME;
        if sync {
            bytes.extend_from_slice(SYNC_BEGIN.as_bytes());
        }
        bytes.extend_from_slice(&body);
        if sync {
            bytes.extend_from_slice(SYNC_END.as_bytes());
        }
        self.out.write_all(&bytes)?;
        self.out.flush()
    }

    /// Shows `screen` on the alternate screen (a full-screen view such as the
    /// transcript), entering it first if needed. The scrollback and the live
    /// area are left alone and come back as they were.
    pub fn frame_fullscreen(&mut self, screen: &Buffer) -> io::Result<()> {
        let screen = fit(screen, self.width, self.height);
        let mut out = Vec::with_capacity(1024);
        out.extend_from_slice(SYNC_BEGIN.as_bytes());
        let shown = match self.alternate.take() {
            Some(shown) if shown.area == screen.area => shown,
            _ => {
                out.extend_from_slice(b"\x1b[?1049h\x1b[H\x1b[2J");
                Buffer::empty(screen.area)
            }
        };
        let mut pen = Pen::default();
        let mut at: Option<(u16, u16)> = None;
        for (x, y, cell) in shown.diff(&screen) {
            if at != Some((x, y)) {
                write!(out, "\x1b[{};{}H", y + 1, x + 1)?;
            }
            pen.switch(Pen::of(cell.style()), &mut out)?;
            write_text(&mut out, cell.symbol());
            let w = unicode_width::UnicodeWidthStr::width(cell.symbol()).max(1) as u16;
            at = Some((x + w, y));
        }
        pen.switch(Pen::default(), &mut out)?;
        out.extend_from_slice(SYNC_END.as_bytes());
        self.alternate = Some(screen);
        self.out.write_all(&out)?;
        self.out.flush()
    }

    /// Back from the alternate screen, if there; the cursor returns to the
    /// park point.
    pub fn leave_fullscreen(&mut self) -> io::Result<()> {
        if self.alternate.take().is_none() {
            return Ok(());
        }
        self.out.write_all(b"\x1b[?1049l")?;
        if std::mem::take(&mut self.stale) {
            self.erase_live()?;
        }
        self.out.flush()
    }

    /// The terminal was resized: the live area is erased and drawn whole by the
    /// next frame. History already written is the terminal's to reflow.
    pub fn resize(&mut self, width: u16, height: u16) -> io::Result<()> {
        self.width = width.max(1);
        self.height = height.max(1);
        if self.alternate.is_some() {
            self.alternate = Some(Buffer::empty(Rect::new(0, 0, 0, 0)));
            self.stale = true;
            return Ok(());
        }
        self.erase_live()
    }

    /// Clears the screen and the scrollback and starts again at the top: a
    /// conversation rewind shows what is left of the conversation anew (the
    /// one time history is written again, as Claude Code's rewind does).
    pub fn clear_all(&mut self) -> io::Result<()> {
        self.out.write_all(b"\x1b[0m\x1b[H\x1b[2J\x1b[3J")?;
        self.col = 0;
        self.live_rows = 0;
        self.shown = Buffer::empty(Rect::new(0, 0, self.width, 0));
        self.fresh = true;
        self.out.flush()
    }

    /// Erases the live area and leaves the cursor where it started (on exit,
    /// so the shell's prompt follows the history).
    pub fn erase_live(&mut self) -> io::Result<()> {
        let mut out = b"\x1b[0m".to_vec();
        erase_below(&mut out, self.height);
        self.out.write_all(&out)?;
        self.col = 0;
        self.live_rows = 0;
        self.shown = Buffer::empty(Rect::new(0, 0, self.width, 0));
        self.out.flush()
    }

    /// The cursor back to the park point.
    fn home(&mut self, out: &mut Vec<u8>) {
        if self.col != 0 {
            out.push(b'\r');
            self.col = 0;
        }
    }

    /// Writes the first lines of `history` over the live area's top rows
    /// (all but its last row) where those rows show the start of them (a
    /// streamed line, a blank row), only the cells that differ, and moves the
    /// park point below them. Returns how many lines that took. Rows showing
    /// something else (the input box) are left to be moved, not rewritten.
    fn adopt_history(&mut self, out: &mut Vec<u8>, history: &[Line<'_>]) -> io::Result<usize> {
        let room = usize::from(self.live_rows.saturating_sub(1));
        let mut target = self.shown.clone();
        let mut n: u16 = 0;
        for line in history.iter().take(room) {
            if terminal_rows(line, self.width) != 1 {
                break;
            }
            let mut row = Buffer::empty(Rect::new(0, 0, target.area.width, 1));
            row.set_line(0, 0, line, target.area.width);
            let blank = Cell::EMPTY;
            let starts_it = (0..row.area.width).all(|x| {
                let shown = &self.shown[(x, n)];
                *shown == blank || *shown == row[(x, 0)]
            });
            if !starts_it {
                break;
            }
            for x in 0..row.area.width {
                target[(x, n)] = row[(x, 0)].clone();
            }
            n += 1;
        }
        if n == 0 {
            return Ok(0);
        }
        let painted = paint(out, &self.shown, &target, (self.col, 0))?;
        let (cx, cy) = painted.cursor;
        if cx != 0 {
            out.push(b'\r');
        }
        move_down(out, n - cy);
        self.col = 0;
        self.live_rows -= n;
        self.shown = rows_from(&target, n);
        Ok(usize::from(n))
    }

    fn write_history(&mut self, out: &mut Vec<u8>, history: &[Line<'_>]) -> io::Result<()> {
        if history.is_empty() {
            return Ok(());
        }
        self.home(out);
        let rows: Vec<u16> = history
            .iter()
            .map(|l| terminal_rows(l, self.width))
            .collect();
        let room = self.height.saturating_sub(self.live_rows);
        let fits = room > 0 && rows.iter().all(|&r| r <= room);
        if !fits || self.live_rows == 0 {
            // Erase the live area and write the history as plain lines, letting
            // the terminal scroll; the live area is drawn anew below them.
            erase_below(out, self.height);
            self.live_rows = 0;
            self.shown = Buffer::empty(Rect::new(0, 0, self.width, 0));
            for line in history {
                write_line(out, line)?;
            }
            return Ok(());
        }
        let mut start = 0;
        while start < history.len() {
            let mut end = start;
            let mut chunk_rows: u16 = 0;
            while end < history.len() && chunk_rows + rows[end] <= room {
                chunk_rows += rows[end];
                end += 1;
            }
            let below = self.live_rows - 1;
            move_down(out, below);
            out.extend(std::iter::repeat_n(b'\n', usize::from(chunk_rows)));
            move_up(out, below + chunk_rows);
            csi(out, chunk_rows, b'L');
            for line in &history[start..end] {
                write_line(out, line)?;
            }
            start = end;
        }
        Ok(())
    }

    /// Brings the live area to `live`; true when that took one run of cells
    /// and no change of height.
    fn write_live(&mut self, out: &mut Vec<u8>, live: &Buffer) -> io::Result<bool> {
        let rows = live.area.height;
        let same_height = rows == self.live_rows && self.shown.area.width == live.area.width;
        if !same_height {
            self.home(out);
        }
        if self.shown.area.width != live.area.width {
            erase_below(out, self.height);
            self.live_rows = 0;
            self.shown = Buffer::empty(Rect::new(0, 0, live.area.width, 0));
        }
        let old = self.live_rows;
        // The rows at the bottom that stay the same (input box, status line) are
        // moved with IL / DL when the area above them grows or shrinks, instead
        // of being written again.
        let suffix = common_suffix_rows(&self.shown, live);
        // For each row of the screen after the moves: the row of `shown` it
        // holds, or `None` for a blank row.
        let mut base: Vec<Option<u16>> = (0..old).map(Some).collect();
        if rows > old {
            let grow = rows - old;
            // Make room below: line feeds scroll the screen when at the bottom.
            let below = old.max(1) - 1;
            move_down(out, below);
            out.extend(std::iter::repeat_n(b'\n', usize::from(rows - below - 1)));
            move_up(out, rows - 1);
            let at = old - suffix;
            if suffix > 0 {
                move_down(out, at);
                csi(out, grow, b'L');
                move_up(out, at);
            }
            let blanks = std::iter::repeat_n(None, usize::from(grow));
            base.splice(usize::from(at)..usize::from(at), blanks);
        } else if rows < old {
            let shrink = old - rows;
            if suffix > 0 && old - suffix >= shrink {
                let at = old - suffix - shrink;
                move_down(out, at);
                csi(out, shrink, b'M');
                move_up(out, at);
                base.drain(usize::from(at)..usize::from(at + shrink));
            } else {
                move_down(out, rows);
                erase_below(out, self.height);
                move_up(out, rows);
                base.truncate(usize::from(rows));
            }
        }
        self.live_rows = rows;
        let mut shown = Buffer::empty(live.area);
        for (y, from) in base.iter().enumerate() {
            if let Some(from) = from {
                for x in 0..live.area.width {
                    shown[(x, y as u16)] = self.shown[(x, *from)].clone();
                }
            }
        }
        let painted = paint(out, &shown, live, (self.col, 0))?;
        let (cx, cy) = painted.cursor;
        if cy == 0 && cx < live.area.width {
            self.col = cx;
        } else {
            if cx != 0 {
                out.push(b'\r');
            }
            move_up(out, cy);
            self.col = 0;
        }
        self.shown = live.clone();
        Ok(same_height && painted.runs <= 1)
    }
}

/// Where [`paint`] left the cursor, and how many times it had to move it.
struct Painted {
    cursor: (u16, u16),
    runs: usize,
}

/// Writes the cells of `to` that differ from `from` (the same area), the
/// cursor starting at `cursor` (column, row) from the area's top-left.
fn paint(out: &mut Vec<u8>, from: &Buffer, to: &Buffer, cursor: (u16, u16)) -> io::Result<Painted> {
    let rows = to.area.height;
    let width = to.area.width;
    let (mut cx, mut cy) = cursor;
    let mut pen = Pen::default();
    let mut runs = 0;
    // Where each row's content ends: old content beyond it is erased with
    // EL rather than overwritten with spaces, so a row is never wider than
    // what it shows (a terminal that reflows on resize then has less to
    // re-wrap, and copies no trailing blanks).
    let blank = Cell::EMPTY;
    let content_end: Vec<u16> = (0..rows)
        .map(|y| {
            (0..width)
                .rev()
                .find(|x| to[(*x, y)] != blank)
                .map_or(0, |x| x + 1)
        })
        .collect();
    let mut erased_row: Option<u16> = None;
    for (x, y, cell) in from.diff(to) {
        let end = content_end[usize::from(y)];
        if x >= end && erased_row == Some(y) {
            continue;
        }
        let (x, erase) = if x >= end { (end, true) } else { (x, false) };
        if y == cy && x > cx && x - cx < 4 {
            // A few unchanged cells (the spaces between streamed words)
            // are cheaper written again than skipped with a cursor move.
            let gap: Vec<&Cell> = (cx..x).map(|gx| &to[(gx, y)]).collect();
            if gap
                .iter()
                .all(|c| c.symbol().len() == 1 && !c.symbol().chars().any(char::is_control))
            {
                for cell in gap {
                    pen.switch(Pen::of(cell.style()), out)?;
                    out.extend_from_slice(cell.symbol().as_bytes());
                }
                cx = x;
            }
        }
        let moved = (x, y) != (cx, cy) || cx >= width;
        // Each stretch of cells written in a row is a run, the first one
        // too when it needs no cursor movement.
        if moved || runs == 0 {
            runs += 1;
        }
        if moved {
            if y > cy {
                move_down(out, y - cy);
            } else if y < cy {
                move_up(out, cy - y);
            }
            if x == 0 || cx >= width || x < cx {
                out.push(b'\r');
                cx = 0;
            }
            if x > cx {
                write!(out, "\x1b[{}C", x - cx)?;
            }
        }
        cx = x;
        cy = y;
        if erase {
            pen.switch(Pen::default(), out)?;
            out.extend_from_slice(b"\x1b[K");
            erased_row = Some(y);
            continue;
        }
        pen.switch(Pen::of(cell.style()), out)?;
        let symbol = cell.symbol();
        write_text(out, symbol);
        let w = unicode_width::UnicodeWidthStr::width(symbol).max(1) as u16;
        cx = x.saturating_add(w).min(width);
    }
    pen.switch(Pen::default(), out)?;
    Ok(Painted {
        cursor: (cx, cy),
        runs,
    })
}

/// The rows of `buf` from `first` down, as a buffer of their own.
fn rows_from(buf: &Buffer, first: u16) -> Buffer {
    let rows = buf.area.height.saturating_sub(first);
    let mut out = Buffer::empty(Rect::new(0, 0, buf.area.width, rows));
    let width = usize::from(buf.area.width);
    let skip = usize::from(first) * width;
    out.content
        .clone_from_slice(&buf.content[skip..skip + usize::from(rows) * width]);
    out
}

/// How many rows at the bottom of `a` (shown) stay together with the bottom
/// of `b` (to show) when the area grows or shrinks (the rows above them stay
/// at the top): the choice that leaves the most rows matching, so the fewest
/// are rewritten. The input box and status line move with IL / DL even when
/// a row of them changed (the typed text, the cost).
fn common_suffix_rows(a: &Buffer, b: &Buffer) -> u16 {
    let width = usize::from(a.area.width);
    let (ha, hb) = (usize::from(a.area.height), usize::from(b.area.height));
    let same = |ya: usize, yb: usize| {
        a.content[ya * width..(ya + 1) * width] == b.content[yb * width..(yb + 1) * width]
    };
    // A shrink deletes rows above the suffix: it can be at most `hb` rows.
    let max = ha.min(hb);
    let top = |at: usize| (0..at.min(hb)).filter(|&y| same(y, y)).count();
    let bottom = |n: usize| (0..n).filter(|&i| same(ha - 1 - i, hb - 1 - i)).count();
    let mut best = (0, 0);
    for n in 0..=max {
        let score = bottom(n) + top(ha - n);
        if score >= best.1 {
            best = (n, score);
        }
    }
    best.0 as u16
}

/// `live` cut to the terminal: at most `height` rows (the bottom ones), `width`
/// columns.
fn fit(live: &Buffer, width: u16, height: u16) -> Buffer {
    let rows = live.area.height.min(height);
    let skip = live.area.height - rows;
    let mut out = Buffer::empty(Rect::new(0, 0, width, rows));
    for y in 0..rows {
        for x in 0..width.min(live.area.width) {
            out[(x, y)] = live[(live.area.x + x, live.area.y + skip + y)].clone();
        }
    }
    out
}

/// Erases the cursor's row and every row below it, leaving the cursor at
/// column 0. Deleting the lines (DL) rather than erasing the display (ED):
/// terminals with tmux's `scroll-on-clear` copy the whole screen into the
/// scrollback when ED clears it from the top-left corner, which would put the
/// live area into history whenever it fills the screen.
fn erase_below(out: &mut Vec<u8>, height: u16) {
    let _ = write!(out, "\r\x1b[{height}M");
}

fn move_down(out: &mut Vec<u8>, n: u16) {
    move_rows(out, i32::from(n));
}

fn move_up(out: &mut Vec<u8>, n: u16) {
    move_rows(out, -i32::from(n));
}

/// Moves the cursor `n` rows, down when positive. Moves come in chains (to
/// the last row, back up to the top): one that ends `out` is merged into this.
fn move_rows(out: &mut Vec<u8>, n: i32) {
    let mut n = n;
    if let Some((start, before)) = trailing_vertical_move(out) {
        out.truncate(start);
        n += before;
    }
    match n.cmp(&0) {
        std::cmp::Ordering::Greater => csi(out, n.unsigned_abs() as u16, b'B'),
        std::cmp::Ordering::Less => csi(out, n.unsigned_abs() as u16, b'A'),
        std::cmp::Ordering::Equal => {}
    }
}

/// Where a cursor up / down sequence ending `out` starts, and its rows (down
/// positive). Text never holds an escape ([`write_text`]), so one found is ours.
fn trailing_vertical_move(out: &[u8]) -> Option<(usize, i32)> {
    let sign = match out.last()? {
        b'A' => -1,
        b'B' => 1,
        _ => return None,
    };
    let start = out.iter().rposition(|&b| b == 0x1b)?;
    let digits = out[start + 1..out.len() - 1].strip_prefix(b"[")?;
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n: i32 = match digits {
        [] => 1,
        _ => std::str::from_utf8(digits).ok()?.parse().ok()?,
    };
    Some((start, sign * n))
}

/// `ESC [ n <final>`, the 1 left out (every sequence used here defaults to 1).
fn csi(out: &mut Vec<u8>, n: u16, last: u8) {
    if n != 1 {
        let _ = write!(out, "\x1b[{n}");
        out.push(last);
    } else {
        out.extend_from_slice(&[0x1b, b'[', last]);
    }
}

/// Text without control characters (a stray escape in tool output must not
/// reach the terminal).
fn write_text(out: &mut Vec<u8>, text: &str) {
    if text.chars().any(char::is_control) {
        let clean: String = text.chars().filter(|c| !c.is_control()).collect();
        out.extend_from_slice(clean.as_bytes());
    } else {
        out.extend_from_slice(text.as_bytes());
    }
}

/// One history line, then CR LF.
fn write_line(out: &mut Vec<u8>, line: &Line<'_>) -> io::Result<()> {
    let mut pen = Pen::default();
    for span in &line.spans {
        pen.switch(Pen::of(line.style.patch(span.style)), out)?;
        write_text(out, &span.content);
    }
    pen.switch(Pen::default(), out)?;
    out.extend_from_slice(b"\r\n");
    Ok(())
}
