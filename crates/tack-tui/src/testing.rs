//! A pty harness for end-to-end tests of terminal programs: run a binary in a
//! pseudo-terminal, type keys, and read what a terminal would show — the
//! screen and the scrollback — through a terminal emulator (`vt100`).
//!
//! The harness answers the two queries programs make at start-up (cursor
//! position, device attributes) as a terminal would, so crossterm does not
//! wait for a timeout. Waiting is always for a condition on the screen or on
//! the process, with a deadline; never a fixed sleep.

use std::io::{Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use portable_pty::{Child, ExitStatus, MasterPty, PtySize, native_pty_system};

pub use portable_pty::CommandBuilder;

/// Lines of scrollback the emulator keeps.
const SCROLLBACK: usize = 100_000;

#[derive(Debug, thiserror::Error)]
pub enum PtyError {
    #[error("pty: {0}")]
    Pty(String),
    #[error("pty io: {0}")]
    Io(#[from] std::io::Error),
    #[error("timed out after {timeout:?} waiting for {what}; screen:\n{screen}")]
    Timeout {
        what: String,
        timeout: Duration,
        screen: String,
    },
}

fn pty_err(e: impl std::fmt::Display) -> PtyError {
    PtyError::Pty(e.to_string())
}

/// A terminal emulator fed with bytes: screen and scrollback as text.
pub struct Emulator {
    parser: vt100::Parser,
}

impl std::fmt::Debug for Emulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Emulator")
            .field("size", &self.parser.screen().size())
            .finish()
    }
}

impl Emulator {
    pub fn new(cols: u16, rows: u16) -> Emulator {
        Emulator {
            parser: vt100::Parser::new(rows, cols, SCROLLBACK),
        }
    }

    pub fn process(&mut self, bytes: &[u8]) {
        self.parser.process(bytes);
    }

    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.parser.screen_mut().set_size(rows, cols);
    }

    pub fn screen(&self) -> &vt100::Screen {
        self.parser.screen()
    }

    /// The visible rows, trailing spaces trimmed.
    pub fn screen_rows(&self) -> Vec<String> {
        let (_, cols) = self.parser.screen().size();
        self.parser
            .screen()
            .rows(0, cols)
            .map(|r| r.trim_end().to_string())
            .collect()
    }

    /// The visible screen as one string.
    pub fn screen_text(&self) -> String {
        self.screen_rows().join("\n")
    }

    /// Rows scrolled off the top, oldest first.
    pub fn scrollback_rows(&mut self) -> Vec<String> {
        let (_, cols) = self.parser.screen().size();
        let screen = self.parser.screen_mut();
        screen.set_scrollback(usize::MAX);
        let len = screen.scrollback();
        let mut rows = Vec::with_capacity(len);
        for k in (1..=len).rev() {
            screen.set_scrollback(k);
            if let Some(row) = screen.rows(0, cols).next() {
                rows.push(row.trim_end().to_string());
            }
        }
        screen.set_scrollback(0);
        rows
    }

    /// Every row the terminal holds: the scrollback, oldest first, then the screen.
    pub fn all_rows(&mut self) -> Vec<String> {
        let mut rows = self.scrollback_rows();
        rows.extend(self.screen_rows());
        rows
    }
}

/// A program running in a pseudo-terminal.
pub struct PtySession {
    emu: Emulator,
    output: Receiver<Vec<u8>>,
    eof: bool,
    writer: Box<dyn Write + Send>,
    master: Box<dyn MasterPty + Send>,
    child: Box<dyn Child + Send + Sync>,
    bytes: usize,
}

impl std::fmt::Debug for PtySession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PtySession")
            .field("bytes", &self.bytes)
            .finish_non_exhaustive()
    }
}

/// Keys as a terminal sends them.
pub mod keys {
    pub const ENTER: &[u8] = b"\r";
    pub const ESC: &[u8] = b"\x1b";
    pub const CTRL_C: &[u8] = b"\x03";
    pub const CTRL_D: &[u8] = b"\x04";
    pub const BACKSPACE: &[u8] = b"\x7f";
    pub const UP: &[u8] = b"\x1b[A";
    pub const DOWN: &[u8] = b"\x1b[B";
    pub const LEFT: &[u8] = b"\x1b[D";
    pub const SHIFT_TAB: &[u8] = b"\x1b[Z";
    pub const TAB: &[u8] = b"\t";

    /// A bracketed paste of `text`.
    pub fn paste(text: &str) -> Vec<u8> {
        format!("\x1b[200~{text}\x1b[201~").into_bytes()
    }
}

impl PtySession {
    /// Starts `cmd` in a `cols` x `rows` pseudo-terminal.
    pub fn spawn(cmd: CommandBuilder, cols: u16, rows: u16) -> Result<PtySession, PtyError> {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(pty_err)?;
        let child = pair.slave.spawn_command(cmd).map_err(pty_err)?;
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().map_err(pty_err)?;
        let writer = pair.master.take_writer().map_err(pty_err)?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 16 * 1024];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if tx.send(buf[..n].to_vec()).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Ok(PtySession {
            emu: Emulator::new(cols, rows),
            output: rx,
            eof: false,
            writer,
            master: pair.master,
            child,
            bytes: 0,
        })
    }

    /// Types `bytes`.
    pub fn send(&mut self, bytes: &[u8]) -> Result<(), PtyError> {
        self.writer.write_all(bytes)?;
        self.writer.flush()?;
        Ok(())
    }

    /// Feeds output to the emulator, answering terminal queries.
    fn absorb(&mut self, chunk: &[u8]) -> Result<(), PtyError> {
        self.bytes += chunk.len();
        self.emu.process(chunk);
        let text = String::from_utf8_lossy(chunk);
        if text.contains("\x1b[6n") {
            let (row, col) = self.emu.screen().cursor_position();
            let reply = format!("\x1b[{};{}R", row + 1, col + 1);
            self.send(reply.as_bytes())?;
        }
        if text.contains("\x1b[c") || text.contains("\x1b[0c") {
            self.send(b"\x1b[?1;2c")?;
        }
        Ok(())
    }

    /// Takes whatever output is there, waiting at most `wait` for the first chunk.
    fn pump(&mut self, wait: Duration) -> Result<(), PtyError> {
        match self.output.recv_timeout(wait) {
            Ok(chunk) => self.absorb(&chunk)?,
            Err(RecvTimeoutError::Timeout) => return Ok(()),
            Err(RecvTimeoutError::Disconnected) => {
                self.eof = true;
                return Ok(());
            }
        }
        while let Ok(chunk) = self.output.try_recv() {
            self.absorb(&chunk)?;
        }
        Ok(())
    }

    /// Waits until `done(screen)` holds, reading output as it comes.
    pub fn wait_until(
        &mut self,
        what: &str,
        timeout: Duration,
        done: impl Fn(&vt100::Screen) -> bool,
    ) -> Result<(), PtyError> {
        let deadline = Instant::now() + timeout;
        loop {
            if done(self.emu.screen()) {
                return Ok(());
            }
            let now = Instant::now();
            if now >= deadline || self.eof {
                return Err(PtyError::Timeout {
                    what: what.to_string(),
                    timeout,
                    screen: self.screen_text(),
                });
            }
            self.pump(deadline - now)?;
        }
    }

    /// Waits until `text` is on the screen.
    pub fn wait_for_text(&mut self, text: &str, timeout: Duration) -> Result<(), PtyError> {
        let needle = text.to_string();
        self.wait_until(&format!("`{text}` on screen"), timeout, move |s| {
            s.contents().contains(&needle)
        })
    }

    /// Waits for the program to exit (its side of the pty closes).
    pub fn wait_exit(&mut self, timeout: Duration) -> Result<ExitStatus, PtyError> {
        let deadline = Instant::now() + timeout;
        while !self.eof {
            let now = Instant::now();
            if now >= deadline {
                return Err(PtyError::Timeout {
                    what: "exit".into(),
                    timeout,
                    screen: self.screen_text(),
                });
            }
            self.pump(deadline - now)?;
        }
        Ok(self.child.wait()?)
    }

    /// Resizes the terminal (the program gets SIGWINCH).
    pub fn resize(&mut self, cols: u16, rows: u16) -> Result<(), PtyError> {
        self.emu.resize(cols, rows);
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(pty_err)
    }

    /// The visible screen, one string per row, trailing spaces trimmed.
    pub fn screen_text(&self) -> String {
        self.emu.screen_text()
    }

    /// Every row the terminal holds: the scrollback, oldest first, then the screen.
    pub fn all_rows(&mut self) -> Vec<String> {
        self.emu.all_rows()
    }

    /// The program's process id.
    pub fn pid(&self) -> Option<u32> {
        self.child.process_id()
    }

    /// Bytes the program has written so far.
    pub fn bytes_received(&self) -> usize {
        self.bytes
    }

    pub fn screen(&self) -> &vt100::Screen {
        self.emu.screen()
    }
}

/// An answer of `n` lines of prose joined by single newlines (no blank line,
/// so one markdown paragraph), each line unique and under 100 columns:
/// what a model writes for a list, a poem or a log.
pub fn single_newline_answer(n: usize) -> String {
    const WORDS: &[&str] = &[
        "the parser keeps every item it has seen",
        "and the last one is no longer dropped",
        "when the input ends without a newline",
    ];
    (1..=n)
        .map(|i| {
            let tail: Vec<&str> = (0..1 + i % 2)
                .map(|k| WORDS[(i + k) % WORDS.len()])
                .collect();
            format!("Line {i} of {n}: {}.", tail.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// How many of `lines` the terminal holds on a row of their own exactly once
/// (`rows`: [`PtySession::all_rows`], scrollback and screen).
pub fn lines_on_own_row_once(rows: &[String], lines: &[&str]) -> usize {
    lines
        .iter()
        .filter(|line| rows.iter().filter(|r| r.trim_end() == **line).count() == 1)
        .count()
}

impl Drop for PtySession {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}
