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

use std::io::{self, Write};

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::ansi::Pen;
use crate::wrap::terminal_rows;

const SYNC_BEGIN: &str = "\x1b[?2026h";
const SYNC_END: &str = "\x1b[?2026l";

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
            self.fresh = false;
        }
        self.write_history(&mut body, history)?;
        simple &= self.write_live(&mut body, &live)?;
        // A frame that is one run of text written in place cannot be seen half
        // done; anything else is wrapped in a synchronized update.
        let mut bytes = Vec::with_capacity(body.len() + 16);
        let sync = self.synchronized && !simple;
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

    /// Erases the live area and leaves the cursor where it started (on exit,
    /// so the shell's prompt follows the history).
    pub fn erase_live(&mut self) -> io::Result<()> {
        let mut out = b"\x1b[0m".to_vec();
        erase_below(&mut out, self.height);
        self.out.write_all(&out)?;
        self.live_rows = 0;
        self.shown = Buffer::empty(Rect::new(0, 0, self.width, 0));
        self.out.flush()
    }

    fn write_history(&mut self, out: &mut Vec<u8>, history: &[Line<'_>]) -> io::Result<()> {
        if history.is_empty() {
            return Ok(());
        }
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
            write!(out, "\x1b[{chunk_rows}L")?;
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
                write!(out, "\x1b[{grow}L")?;
                move_up(out, at);
            }
            let blanks = std::iter::repeat_n(None, usize::from(grow));
            base.splice(usize::from(at)..usize::from(at), blanks);
        } else if rows < old {
            let shrink = old - rows;
            if suffix > 0 && old - suffix >= shrink {
                let at = old - suffix - shrink;
                move_down(out, at);
                write!(out, "\x1b[{shrink}M")?;
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
        let mut pen = Pen::default();
        let (mut cx, mut cy) = (0u16, 0u16);
        let width = live.area.width;
        let mut runs = 0;
        // Where each row's content ends: old content beyond it is erased with
        // EL rather than overwritten with spaces, so a row is never wider than
        // what it shows (a terminal that reflows on resize then has less to
        // re-wrap, and copies no trailing blanks).
        let blank = Buffer::empty(Rect::new(0, 0, 1, 1))[(0, 0)].clone();
        let content_end: Vec<u16> = (0..rows)
            .map(|y| {
                (0..width)
                    .rev()
                    .find(|x| live[(*x, y)] != blank)
                    .map_or(0, |x| x + 1)
            })
            .collect();
        let mut erased_row: Option<u16> = None;
        for (x, y, cell) in shown.diff(live) {
            let end = content_end[usize::from(y)];
            if x >= end && erased_row == Some(y) {
                continue;
            }
            let (x, erase) = if x >= end { (end, true) } else { (x, false) };
            if (x, y) != (cx, cy) || cx >= width {
                runs += 1;
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
        if cx != 0 {
            out.push(b'\r');
        }
        move_up(out, cy);
        self.shown = live.clone();
        Ok(same_height && runs <= 1)
    }
}

/// How many rows at the bottom of `a` and `b` are the same (at most the
/// shorter's height).
fn common_suffix_rows(a: &Buffer, b: &Buffer) -> u16 {
    let width = usize::from(a.area.width);
    let (ha, hb) = (usize::from(a.area.height), usize::from(b.area.height));
    let mut n = 0;
    while n < ha.min(hb) {
        let ra = &a.content[(ha - 1 - n) * width..(ha - n) * width];
        let rb = &b.content[(hb - 1 - n) * width..(hb - n) * width];
        if ra != rb {
            break;
        }
        n += 1;
    }
    n as u16
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
    if n > 0 {
        let _ = write!(out, "\x1b[{n}B");
    }
}

fn move_up(out: &mut Vec<u8>, n: u16) {
    if n > 0 {
        let _ = write!(out, "\x1b[{n}A");
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
