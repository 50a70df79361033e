//! The rendering budgets: bytes written per streamed token stay small and
//! bounded, and a frame costs the same with 10,000 messages of history as with
//! ten. Figures are printed (`--nocapture`) for BENCHMARKS.md.

use crate::common;

use std::io::{self, Write};
use std::time::{Duration, Instant};

use common::{Clock, key, type_text};
use crossterm::event::KeyCode;
use tack_tui::testing::Emulator;
use tack_tui::{App, InlineTerminal, Theme, ThemeKind, TurnSummary, UiEvent, draw};

/// A writer that counts bytes and keeps them for an emulator.
#[derive(Default)]
struct Counting {
    bytes: Vec<u8>,
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// About 2,000 tokens of a typical answer: prose, a list, code.
fn answer() -> String {
    let mut text = String::new();
    let mut i = 0;
    while text.split_whitespace().count() < 1_800 {
        i += 1;
        text.push_str(&format!(
            "## Step {i}\n\nThe function `parse_{i}` reads the input line by line and keeps the \
             items it has seen in a vector; when the input ends without a newline the last item \
             was dropped, which is what the test in step {i} shows.\n\n\
             - check the boundary\n- keep the last item\n\n\
             ```rust\nfn parse_{i}(s: &str) -> Vec<&str> {{\n    s.lines().collect()\n}}\n```\n\n"
        ));
    }
    text
}

/// Splits like a tokenizer would, roughly: words with their following space,
/// long words in pieces of four bytes.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        current.push(c);
        if c.is_whitespace() || current.len() >= 4 && !c.is_alphanumeric() || current.len() >= 6 {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn done() -> UiEvent {
    UiEvent::TurnResult(TurnSummary {
        interrupted: false,
        error: None,
        cost_usd: 0.0,
        session_cost_usd: 0.0,
        input_tokens: 0,
        output_tokens: 0,
        duration: Duration::ZERO,
    })
}

#[test]
fn bytes_per_streamed_token_stay_small_and_history_lands_once() {
    let (width, height) = (100u16, 40u16);
    let clock = Clock::new();
    let mut app = common::app_with(width, height, Theme::new(ThemeKind::Dark, true), Vec::new());
    let mut term = InlineTerminal::new(Counting::default(), width, height);
    type_text(&mut app, "explain the parser", clock.at(0));
    app.handle_key(key(KeyCode::Enter), clock.at(0));
    draw(&mut app, &mut term).unwrap();
    let start = term.writer().bytes.len();
    let text = answer();
    let toks = tokens(&text);
    let mut biggest = 0;
    for (i, tok) in toks.iter().enumerate() {
        // 50 tokens a second, the spinner ticking along.
        let now = clock.at(20 * i as u64);
        app.handle_event(UiEvent::TextDelta(tok.clone()), now);
        // The driver ticks every 200 ms while a turn runs.
        if i % 10 == 0 {
            app.tick(now);
        }
        let before = term.writer().bytes.len();
        draw(&mut app, &mut term).unwrap();
        biggest = biggest.max(term.writer().bytes.len() - before);
    }
    let streamed = term.writer().bytes.len() - start;
    let per_token = streamed as f64 / toks.len() as f64;
    // The history itself (each line once) is part of the bytes: compare with it.
    let history_text_bytes: usize = text.len();
    println!(
        "streamed {} tokens ({} bytes of markdown): {streamed} bytes written, {per_token:.1} bytes/token, \
         largest frame {biggest} bytes",
        toks.len(),
        history_text_bytes
    );
    app.handle_event(UiEvent::AssistantMessageDone, clock.at(60_000));
    app.handle_event(done(), clock.at(60_000));
    draw(&mut app, &mut term).unwrap();
    term.erase_live().unwrap();

    // Bounded: no frame is anywhere near a full redraw of the screen, and the
    // average (colour codes, cursor moves and the history itself included;
    // 39.6 when this was written) stays small.
    assert!(per_token < 50.0, "{per_token} bytes/token");
    assert!(
        biggest < usize::from(width) * usize::from(height),
        "largest frame {biggest} bytes"
    );

    // The scrollback holds every line of the answer once, in order.
    let mut emu = Emulator::new(width, height);
    emu.process(&term.writer().bytes);
    let rows: Vec<String> = emu.all_rows();
    let steps: Vec<usize> = rows
        .iter()
        .filter_map(|r| r.strip_prefix("Step ").and_then(|n| n.parse().ok()))
        .collect();
    let expected: Vec<usize> = (1..=steps.len()).collect();
    assert!(steps.len() > 20);
    assert_eq!(steps, expected);
    assert_eq!(
        rows.iter()
            .filter(|r| r.as_str() == "> explain the parser")
            .count(),
        1
    );
}

/// Median time of `frames` frames of streaming into `app`.
fn frame_time(app: &mut App, frames: usize) -> (Duration, usize) {
    let mut term = InlineTerminal::new(io::sink(), 100, 40);
    draw(app, &mut term).unwrap();
    let now = Instant::now();
    let mut times = Vec::with_capacity(frames);
    let mut rows = 0;
    for i in 0..frames {
        let t = Instant::now();
        app.handle_event(UiEvent::TextDelta(format!("word{i} ")), now);
        let history = app.take_history();
        let live = app.render_live(100, 40);
        term.frame(&history, &live).unwrap();
        times.push(t.elapsed());
        rows = live.area.height as usize;
    }
    times.sort();
    (times[times.len() / 2], rows)
}

fn session_with(messages: usize) -> App {
    let clock = Clock::new();
    let mut app = common::app_with(100, 40, Theme::new(ThemeKind::Dark, true), Vec::new());
    let mut sink = InlineTerminal::new(io::sink(), 100, 40);
    for i in 0..messages / 2 {
        app.handle_event(
            UiEvent::UserPrompt(format!("question number {i}")),
            clock.at(0),
        );
        app.handle_event(UiEvent::TurnStarted, clock.at(0));
        app.handle_event(
            UiEvent::TextDelta(format!(
                "Answer {i}: the parser keeps **every** item now.\n\nDone."
            )),
            clock.at(0),
        );
        app.handle_event(UiEvent::AssistantMessageDone, clock.at(0));
        app.handle_event(done(), clock.at(0));
        if i % 100 == 0 {
            draw(&mut app, &mut sink).unwrap();
        }
    }
    draw(&mut app, &mut sink).unwrap();
    app.handle_event(UiEvent::TurnStarted, clock.at(0));
    app
}

#[test]
fn frame_time_does_not_grow_with_history() {
    let mut small = session_with(10);
    let mut large = session_with(10_000);
    assert_eq!(large.cells().len(), 10_000);
    let (t_small, rows_small) = frame_time(&mut small, 400);
    let (t_large, rows_large) = frame_time(&mut large, 400);
    println!("median frame: {t_small:?} with 10 messages, {t_large:?} with 10,000 messages");
    assert_eq!(rows_small, rows_large);
    // Generous: a shared machine is noisy; growth with history would be 1000x.
    assert!(
        t_large < t_small * 5 + Duration::from_micros(500),
        "{t_small:?} vs {t_large:?}"
    );
}

/// A 60-line answer of single newlines in chunks of 12 characters (what the
/// scripted server sends every 5 ms), the spinner ticking every 40 chunks:
/// each line lands in the scrollback once, on its own row, and everything
/// written from Enter to the turn's end is at most 1.5 bytes per answer byte
/// (each line is written once, where it streamed; `benches/scrollback.rs`
/// measures the same in a pty with the binary).
#[test]
fn a_streamed_answer_is_written_once_line_by_line() {
    let (width, height) = (100u16, 30u16);
    let clock = Clock::new();
    let mut app = common::app_with(width, height, Theme::new(ThemeKind::Dark, true), Vec::new());
    let mut term = InlineTerminal::new(Counting::default(), width, height);
    type_text(&mut app, "write sixty lines", clock.at(0));
    draw(&mut app, &mut term).unwrap();
    let start = term.writer().bytes.len();
    app.handle_key(key(KeyCode::Enter), clock.at(0));
    draw(&mut app, &mut term).unwrap();
    let text = tack_tui::testing::single_newline_answer(60);
    let chars: Vec<char> = text.chars().collect();
    for (i, chunk) in chars.chunks(12).enumerate() {
        let now = clock.at(5 * i as u64);
        app.handle_event(UiEvent::TextDelta(chunk.iter().collect()), now);
        if i % 40 == 0 {
            app.tick(now);
        }
        draw(&mut app, &mut term).unwrap();
    }
    app.handle_event(UiEvent::AssistantMessageDone, clock.at(60_000));
    app.handle_event(done(), clock.at(60_000));
    draw(&mut app, &mut term).unwrap();
    let written = term.writer().bytes.len() - start;
    let per_byte = written as f64 / text.len() as f64;
    println!(
        "{written} bytes written for {} ({per_byte:.2} per byte)",
        text.len()
    );
    assert!(per_byte <= 1.5, "{per_byte:.2} bytes per answer byte");
    let mut emu = Emulator::new(width, height);
    emu.process(&term.writer().bytes);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        tack_tui::testing::lines_on_own_row_once(&emu.all_rows(), &lines),
        60
    );
}

/// `/permissions`' decisions view over as many decisions as a session keeps
/// (50): Up and Down in turn (each key moves the selection) redraw a view of
/// the same height as with 10, in the same time (0.8 ms a key, debug build).
#[test]
fn the_decisions_view_costs_a_frame_whatever_its_length() {
    let view = |n: usize| {
        let decisions = (0..n)
            .map(|i| tack_tui::AutoDecision {
                tool_name: "Bash".into(),
                summary: format!("npm install package-{i}"),
                allowed: i % 3 != 0,
                decided_by: tack_tui::Decider::Classifier { stage: 2 },
                reason: "it installs a package from the network".into(),
                rule: Some("Bash(npm install:*)".into()),
            })
            .collect();
        let mut app = common::app_with(100, 40, Theme::new(ThemeKind::Dark, true), Vec::new());
        app.handle_event(UiEvent::AutoDecisions(decisions), Instant::now());
        app
    };
    let mut times = Vec::new();
    let mut heights = Vec::new();
    for n in [10, 50] {
        let mut app = view(n);
        let mut term = InlineTerminal::new(io::sink(), 100, 40);
        draw(&mut app, &mut term).unwrap();
        let mut each = Vec::new();
        for i in 0..200 {
            let code = if i % 2 == 0 {
                KeyCode::Up
            } else {
                KeyCode::Down
            };
            let t = Instant::now();
            app.handle_key(key(code), Instant::now());
            let live = app.render_live(100, 40);
            term.frame(&app.take_history(), &live).unwrap();
            each.push(t.elapsed());
            heights.push(live.area.height);
        }
        each.sort();
        times.push(each[each.len() / 2]);
    }
    println!(
        "decisions view, median frame per key: {:?} with 10 decisions, {:?} with 50",
        times[0], times[1]
    );
    heights.dedup();
    assert_eq!(heights.len(), 1, "{heights:?}");
    assert!(
        times[1] < times[0] * 5 + Duration::from_micros(500),
        "{times:?}"
    );
}
