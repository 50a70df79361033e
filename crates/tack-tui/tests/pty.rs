//! End to end in a pseudo-terminal: the demo binary (the UI driven by a
//! scripted runtime) read back through a terminal emulator, screen and
//! scrollback.

use std::time::Duration;

use portable_pty::CommandBuilder;
use pretty_assertions::assert_eq;
use tack_tui::testing::{PtySession, keys};

const WAIT: Duration = Duration::from_secs(20);

fn demo(cols: u16, rows: u16) -> PtySession {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tack-tui-demo"));
    cmd.env("TERM", "xterm-256color");
    let dir = tempfile::tempdir().unwrap();
    cmd.cwd(dir.path());
    PtySession::spawn(cmd, cols, rows).unwrap()
}

fn count(rows: &[String], needle: &str) -> usize {
    rows.iter().filter(|r| r.contains(needle)).count()
}

#[test]
fn the_harness_reads_screen_and_scrollback_of_a_simple_program() {
    let mut cmd = CommandBuilder::new("sh");
    cmd.args([
        "-c",
        "for i in $(seq 1 30); do echo line $i; done; read x; echo got $x",
    ]);
    let mut pty = PtySession::spawn(cmd, 20, 5).unwrap();
    pty.wait_for_text("line 30", WAIT).unwrap();
    pty.send(b"hello\r").unwrap();
    pty.wait_for_text("got hello", WAIT).unwrap();
    let status = pty.wait_exit(WAIT).unwrap();
    assert!(status.success());
    let rows: Vec<String> = pty
        .all_rows()
        .into_iter()
        .filter(|r| !r.is_empty())
        .collect();
    let mut expected: Vec<String> = (1..=30).map(|i| format!("line {i}")).collect();
    expected.extend(["hello".to_string(), "got hello".to_string()]);
    assert_eq!(rows, expected);
}

#[test]
fn a_session_lands_in_the_scrollback_exactly_once() {
    let mut pty = demo(80, 16);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();

    // A prompt and its streamed answer.
    pty.send(b"hello world").unwrap();
    pty.wait_for_text("> hello world", WAIT).unwrap();
    pty.send(keys::ENTER).unwrap();
    pty.wait_until("the answer, turn over", WAIT, |s| {
        s.contents().contains("Done.") && !s.contents().contains("Working")
    })
    .unwrap();

    // The transcript view comes and goes on the alternate screen.
    pty.send(b"\x0f").unwrap();
    pty.wait_for_text("Transcript ·", WAIT).unwrap();
    pty.send(keys::ESC).unwrap();
    pty.wait_until("the transcript closed", WAIT, |s| !s.alternate_screen())
        .unwrap();

    // A permission dialog, answered yes, then no with feedback.
    pty.send(b"please edit it\r").unwrap();
    pty.wait_for_text("Do you want to proceed?", WAIT).unwrap();
    pty.send(b"1").unwrap();
    pty.wait_for_text("Edited.", WAIT).unwrap();
    pty.wait_until("turn over", WAIT, |s| !s.contents().contains("Working"))
        .unwrap();
    pty.send(b"edit again\r").unwrap();
    pty.wait_for_text("Do you want to proceed?", WAIT).unwrap();
    pty.send(b"3").unwrap();
    pty.send(b"leave it\r").unwrap();
    pty.wait_for_text("Not edited.", WAIT).unwrap();
    pty.wait_until("turn over", WAIT, |s| !s.contents().contains("Working"))
        .unwrap();

    // A slow turn interrupted with Esc.
    pty.send(b"be slow\r").unwrap();
    pty.wait_for_text("slowly", WAIT).unwrap();
    pty.send(keys::ESC).unwrap();
    pty.wait_for_text("Interrupted", WAIT).unwrap();

    // /resume opens the picker; Enter picks the first session.
    pty.send(b"/resume").unwrap();
    pty.wait_for_text("Resume a past session", WAIT).unwrap();
    // Esc closes the menu. (Esc and Enter in one write would read as Alt+Enter.)
    pty.send(keys::ESC).unwrap();
    pty.wait_until("the menu closed", WAIT, |s| {
        !s.contents().contains("Resume a past session")
    })
    .unwrap();
    pty.send(keys::ENTER).unwrap();
    pty.wait_for_text("Resume a session", WAIT).unwrap();
    pty.send(keys::ENTER).unwrap();
    pty.wait_for_text("11111111-1111-4111-8111-111111111111", WAIT)
        .unwrap();

    // Ctrl+D on an empty prompt exits; the live area is erased.
    pty.send(keys::CTRL_D).unwrap();
    let status = pty.wait_exit(WAIT).unwrap();
    assert!(status.success());

    let rows = pty.all_rows();
    println!("{}", rows.join("\n"));
    for prompt in [
        "> hello world",
        "> please edit it",
        "> edit again",
        "> be slow",
        "> /resume",
    ] {
        assert_eq!(count(&rows, prompt), 1, "{prompt} in\n{}", rows.join("\n"));
    }
    for line in [
        "You said: hello world.",
        "Done.",
        "Edited.",
        "Not edited.",
        "fn main() {",
    ] {
        assert_eq!(count(&rows, line), 1, "{line} in\n{}", rows.join("\n"));
    }
    assert_eq!(count(&rows, "Interrupted"), 1);
    // Nothing of the live area is left behind.
    assert_eq!(count(&rows, "? for shortcuts"), 0, "{}", rows.join("\n"));
    assert_eq!(count(&rows, "╭"), 0, "{}", rows.join("\n"));
}

#[test]
fn a_small_terminal_keeps_history_once() {
    let mut pty = demo(30, 10);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    pty.send(b"tiny\r").unwrap();
    pty.wait_until("the answer, turn over", WAIT, |s| {
        s.contents().contains("Done.") && !s.contents().contains("Working")
    })
    .unwrap();
    pty.send(keys::CTRL_D).unwrap();
    pty.wait_exit(WAIT).unwrap();
    let rows = pty.all_rows();
    for line in ["> tiny", "You said: tiny.", "Done.", "fn main() {"] {
        assert_eq!(count(&rows, line), 1, "{line} in\n{}", rows.join("\n"));
    }
    assert_eq!(count(&rows, "Working"), 0, "{}", rows.join("\n"));
}

/// Start-up to an input-ready prompt and keystroke-to-echo, through a real pty
/// (printed for BENCHMARKS.md; this is a debug build of the demo, so an upper
/// bound for the release binary).
#[test]
fn start_up_and_echo_latency() {
    let started = std::time::Instant::now();
    let mut pty = demo(80, 24);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    let ready = started.elapsed();
    let mut echoes = Vec::new();
    let text = "the quick brown fox";
    for (i, c) in text.char_indices() {
        let typed = format!("> {}", &text[..=i]);
        let t = std::time::Instant::now();
        pty.send(c.to_string().as_bytes()).unwrap();
        pty.wait_until("the echo", WAIT, |s| s.contents().contains(&typed))
            .unwrap();
        echoes.push(t.elapsed());
    }
    echoes.sort();
    println!(
        "ready after {ready:?}; keystroke echo median {:?}, max {:?}",
        echoes[echoes.len() / 2],
        echoes[echoes.len() - 1]
    );
    pty.send(keys::CTRL_C).unwrap();
    pty.wait_until("input cleared", WAIT, |s| {
        !s.contents().contains("> the quick")
    })
    .unwrap();
    pty.send(keys::CTRL_C).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());
}
