//! The inline viewport, checked through a terminal emulator: history reaches
//! the scrollback exactly once, the live area is where it should be.

use pretty_assertions::assert_eq;
use proptest::prelude::*;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use tack_tui::InlineTerminal;
use tack_tui::testing::Emulator;

fn live(width: u16, rows: &[String]) -> Buffer {
    let mut buf = Buffer::empty(Rect::new(0, 0, width, rows.len() as u16));
    for (y, r) in rows.iter().enumerate() {
        buf.set_string(0, y as u16, r, ratatui::style::Style::new());
    }
    buf
}

/// The rows a line of ASCII text takes in a terminal `width` wide.
fn wrapped(text: &str, width: usize) -> Vec<String> {
    if text.is_empty() {
        return vec![String::new()];
    }
    text.as_bytes()
        .chunks(width)
        .map(|c| String::from_utf8(c.to_vec()).unwrap())
        .collect()
}

fn trimmed(mut rows: Vec<String>) -> Vec<String> {
    while rows.last().is_some_and(String::is_empty) {
        rows.pop();
    }
    rows
}

/// Writes `bytes` from the terminal into the emulator.
fn flush(term: &mut InlineTerminal<Vec<u8>>, emu: &mut Emulator) -> usize {
    let bytes = std::mem::take(term.writer_mut());
    emu.process(&bytes);
    bytes.len()
}

#[derive(Debug, Clone)]
struct Step {
    history: Vec<usize>,
    live_rows: usize,
    /// How many of the live area's top rows show the start of the next
    /// frame's history lines (a line streaming), and how much of each.
    streaming: usize,
    shown: usize,
}

fn step() -> impl Strategy<Value = Step> {
    (
        proptest::collection::vec(0usize..75, 0..14),
        0usize..12,
        0usize..4,
        0usize..40,
    )
        .prop_map(|(history, live_rows, streaming, shown)| Step {
            history,
            live_rows,
            streaming,
            shown,
        })
}

/// The text of history line `n`, `len` characters long (at least its name).
fn history_line(n: usize, len: usize) -> String {
    let mut s = format!("h{n}:");
    while s.len() < len {
        s.push((b'a' + (s.len() % 26) as u8) as char);
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(200) })]

    /// Whatever the sequence of history batches (lines longer than the screen
    /// is wide included) and live area heights, and whether the live area's
    /// top rows already show the start of the next history lines (streaming,
    /// so that they are adopted where they stand), the terminal holds the
    /// shell's line, every history line once and in order, then the live
    /// area; and after the live area is erased, only the history.
    #[test]
    fn history_lands_in_scrollback_exactly_once(steps in proptest::collection::vec(step(), 1..25)) {
        let (width, height) = (30u16, 10u16);
        let mut emu = Emulator::new(width, height);
        emu.process(b"$ tack\r\n");
        let mut term = InlineTerminal::new(Vec::new(), width, height);
        let mut expected = vec!["$ tack".to_string()];
        let mut n = 0;
        for (frame, step) in steps.iter().enumerate() {
            let history: Vec<String> = step
                .history
                .iter()
                .map(|len| {
                    n += 1;
                    history_line(n, *len)
                })
                .collect();
            let lines: Vec<Line<'static>> = history.iter().map(|h| Line::raw(h.clone())).collect();
            // The next lines as they stream in, then a changing top over rows
            // that stay (input, status), so that rows are moved as well as
            // rewritten.
            let next = steps.get(frame + 1).map_or(&[][..], |s| &s.history[..]);
            let mut live_rows: Vec<String> = next
                .iter()
                .take(step.streaming)
                .enumerate()
                .map(|(i, len)| {
                    let line = history_line(n + 1 + i, *len);
                    line.chars().take(step.shown.min(usize::from(width))).collect()
                })
                .collect();
            live_rows.extend((0..step.live_rows).map(|r| format!("live {frame}.{r}")));
            live_rows.extend(["> input".to_string(), "status".to_string()]);
            term.frame(&lines, &live(width, &live_rows)).unwrap();
            let bytes = std::mem::take(term.writer_mut());
            // Never "erase display": under tmux's scroll-on-clear, ED from the
            // top-left corner copies the screen (the live area) into history.
            prop_assert!(!bytes.windows(3).any(|w| w == b"\x1b[J"));
            emu.process(&bytes);
            for h in &history {
                expected.extend(wrapped(h, usize::from(width)));
            }
            let mut with_live = expected.clone();
            // Taller than the screen: the bottom rows are shown.
            let shown = live_rows.len().min(usize::from(height));
            with_live.extend(live_rows[live_rows.len() - shown..].iter().cloned());
            prop_assert_eq!(trimmed(emu.all_rows()), with_live);
        }
        term.erase_live().unwrap();
        flush(&mut term, &mut emu);
        prop_assert_eq!(trimmed(emu.all_rows()), expected);
    }
}

#[test]
fn an_unchanged_frame_writes_nothing_and_a_change_writes_only_the_cells() {
    let mut emu = Emulator::new(40, 10);
    let mut term = InlineTerminal::new(Vec::new(), 40, 10);
    let rows = vec!["streaming text".to_string(), "> input".to_string()];
    term.frame(&[], &live(40, &rows)).unwrap();
    flush(&mut term, &mut emu);
    term.frame(&[], &live(40, &rows)).unwrap();
    assert_eq!(flush(&mut term, &mut emu), 0);
    let more = vec!["streaming text more".to_string(), "> input".to_string()];
    term.frame(&[], &live(40, &more)).unwrap();
    let bytes = String::from_utf8(std::mem::take(term.writer_mut())).unwrap();
    // Move right 15 (the space is already there), "more"; the cursor stays
    // after it. One run of text needs no synchronized update.
    assert_eq!(bytes, "\x1b[15Cmore");
    emu.process(bytes.as_bytes());
    assert_eq!(trimmed(emu.all_rows()), more);
    // Two places changing at once, in a frame this small: one write, which
    // the terminal reads whole.
    let both = vec!["streaming text more!".to_string(), "> input2".to_string()];
    term.frame(&[], &live(40, &both)).unwrap();
    let bytes = String::from_utf8(std::mem::take(term.writer_mut())).unwrap();
    assert_eq!(bytes, "!\x1b[B\r\x1b[7C2\r\x1b[A");
    emu.process(bytes.as_bytes());
    assert_eq!(trimmed(emu.all_rows()), both);
    // More than that is one synchronized update.
    let other = vec![
        "a different line of streamed text".to_string(),
        "> a different input, typed in".to_string(),
    ];
    term.frame(&[], &live(40, &other)).unwrap();
    let bytes = String::from_utf8(std::mem::take(term.writer_mut())).unwrap();
    assert!(
        bytes.starts_with("\x1b[?2026h") && bytes.ends_with("\x1b[?2026l"),
        "{bytes:?}"
    );
    emu.process(bytes.as_bytes());
    assert_eq!(trimmed(emu.all_rows()), other);
}

#[test]
fn a_streamed_line_becomes_history_where_it_stands_for_the_cells_it_lacked() {
    let mut emu = Emulator::new(40, 10);
    emu.process(b"$ tack\r\n");
    let mut term = InlineTerminal::new(Vec::new(), 40, 10);
    for text in ["stream", "streaming te"] {
        term.frame(&[], &live(40, &[text.into(), "> input".into()]))
            .unwrap();
        flush(&mut term, &mut emu);
    }
    // The line completes: it goes to history, and the next one starts live.
    let history = [Line::raw("streaming text done")];
    term.frame(&history, &live(40, &["next".into(), "> input".into()]))
        .unwrap();
    let bytes = String::from_utf8(std::mem::take(term.writer_mut())).unwrap();
    // Only the missing cells, written where the cursor was left; the park
    // point one row down; a row made above the input box (line feed, then
    // insert line); the next line. Small enough to need no synchronized update.
    assert_eq!(bytes, "xt done\r\x1b[B\n\x1b[A\x1b[Lnext");
    emu.process(bytes.as_bytes());
    term.erase_live().unwrap();
    flush(&mut term, &mut emu);
    assert_eq!(
        trimmed(emu.all_rows()),
        vec!["$ tack", "streaming text done"]
    );
}

#[test]
fn resize_redraws_the_live_area_and_keeps_history() {
    let mut emu = Emulator::new(40, 10);
    let mut term = InlineTerminal::new(Vec::new(), 40, 10);
    let history: Vec<Line<'static>> = (0..15).map(|i| Line::raw(format!("history {i}"))).collect();
    term.frame(&history, &live(40, &["a".into(), "b".into(), "c".into()]))
        .unwrap();
    flush(&mut term, &mut emu);
    // The terminal gets wider and taller (vt100 neither reflows nor scrolls on a
    // resize, so this is the change it models faithfully).
    emu.resize(50, 12);
    term.resize(50, 12).unwrap();
    term.frame(&[], &live(50, &["a".into(), "b2".into()]))
        .unwrap();
    flush(&mut term, &mut emu);
    let mut expected: Vec<String> = (0..15).map(|i| format!("history {i}")).collect();
    expected.extend(["a".to_string(), "b2".to_string()]);
    assert_eq!(trimmed(emu.all_rows()), expected);
}

#[test]
fn a_resize_while_a_line_streams_redraws_it_below_the_history() {
    let mut emu = Emulator::new(40, 10);
    let mut term = InlineTerminal::new(Vec::new(), 40, 10);
    let history = [Line::raw("history")];
    term.frame(&history, &live(40, &["stream".into(), "> input".into()]))
        .unwrap();
    // Text appended to the streaming line leaves the cursor after it.
    term.frame(&[], &live(40, &["streaming te".into(), "> input".into()]))
        .unwrap();
    flush(&mut term, &mut emu);
    assert_eq!(emu.screen().cursor_position().1, 12);
    emu.resize(30, 8);
    term.resize(30, 8).unwrap();
    term.frame(&[], &live(30, &["streaming text".into(), "> input".into()]))
        .unwrap();
    flush(&mut term, &mut emu);
    assert_eq!(
        trimmed(emu.all_rows()),
        vec!["history", "streaming text", "> input"]
    );
}

#[test]
fn wide_characters_and_styles_reach_the_screen() {
    let mut emu = Emulator::new(10, 5);
    let mut term = InlineTerminal::new(Vec::new(), 10, 5);
    let line = Line::from(vec![
        ratatui::text::Span::styled(
            "界界",
            ratatui::style::Style::new().fg(ratatui::style::Color::Red),
        ),
        ratatui::text::Span::raw("abcdefg"),
    ]);
    term.frame(&[line], &live(10, &["x".into()])).unwrap();
    flush(&mut term, &mut emu);
    // 4 + 7 = 11 columns: the terminal wraps the last character.
    assert_eq!(trimmed(emu.all_rows()), vec!["界界abcdef", "g", "x"]);
    assert_eq!(
        emu.screen().cell(0, 0).unwrap().fgcolor(),
        vt100::Color::Idx(1)
    );
}

#[test]
fn a_full_screen_view_uses_the_alternate_screen_and_leaves_the_rest_alone() {
    let mut emu = Emulator::new(30, 8);
    let mut term = InlineTerminal::new(Vec::new(), 30, 8);
    let history: Vec<Line<'static>> = (0..12).map(|i| Line::raw(format!("history {i}"))).collect();
    let rows = vec!["> input".to_string(), "status".to_string()];
    term.frame(&history, &live(30, &rows)).unwrap();
    flush(&mut term, &mut emu);
    let before = emu.all_rows();

    let view: Vec<String> = (0..8).map(|i| format!("transcript {i}")).collect();
    term.frame_fullscreen(&live(30, &view)).unwrap();
    flush(&mut term, &mut emu);
    assert!(emu.screen().alternate_screen());
    assert_eq!(emu.screen_rows(), view);
    // Scrolling the view rewrites only what changed.
    let mut scrolled = view.clone();
    scrolled[7] = "transcript 7 (end)".into();
    term.frame_fullscreen(&live(30, &scrolled)).unwrap();
    assert!(flush(&mut term, &mut emu) < 60);
    assert_eq!(emu.screen_rows(), scrolled);

    // Back: scrollback and live area exactly as they were.
    term.frame(&[], &live(30, &rows)).unwrap();
    flush(&mut term, &mut emu);
    assert!(!emu.screen().alternate_screen());
    assert_eq!(emu.all_rows(), before);
}
