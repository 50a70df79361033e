//! Progress on a terminal (text mode, stderr is a TTY): a spinner with elapsed
//! time and tokens while the model works (and naming the calls while tools
//! run), then each call with its result under it (`crate::tool_lines`), the
//! text that introduced them, retries. The spinner line is erased before any
//! other line is written, under the lock the spinner draws with, so nothing
//! is ever glued to it; the answer itself goes to stdout after `clear`.
//! Never used on a pipe.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tack_protocol::{Delta, SseEvent};
use tack_runtime::LoopEvent;

use crate::tool_lines::ToolLines;

const FRAMES: &[&str] = &["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

#[derive(Default)]
struct State {
    /// Set while a model request is in flight.
    waiting_since: Option<Instant>,
    output_chars: usize,
    status: String,
}

pub struct Progress {
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    calls: ToolLines,
}

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Progress {
    /// Starts the spinner thread (it draws only while a request is in flight).
    /// `cwd`: paths under it are shown relative to it.
    pub fn start(cwd: &std::path::Path) -> Progress {
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (state.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut frame = 0usize;
            while !st.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                let state = lock(&s);
                if let Some(since) = state.waiting_since {
                    frame = (frame + 1) % FRAMES.len();
                    let tokens = match state.output_chars / 4 {
                        0 => String::new(),
                        n => format!(" · ↓ {n} tokens"),
                    };
                    let status = if state.status.is_empty() {
                        "Working"
                    } else {
                        &state.status
                    };
                    let mut err = std::io::stderr().lock();
                    let _ = write!(
                        err,
                        "\r\x1b[2K{} {}… {}s{tokens}",
                        FRAMES[frame],
                        tack_sys::terminal_text::visible(status),
                        since.elapsed().as_secs()
                    );
                    let _ = err.flush();
                }
            }
        });
        Progress {
            state,
            stop,
            calls: ToolLines::new(cwd),
        }
    }

    /// One line of progress. Its text comes from the model (tool inputs) or
    /// the API: escape sequences in it are shown, not run.
    fn line(&self, text: &str) {
        self.lines(&[text.to_owned()]);
    }

    /// Lines of progress, the spinner's line erased first, under its lock
    /// (it cannot draw in between; if it is running, it draws again below
    /// them on its next frame).
    fn lines(&self, lines: &[String]) {
        let _drawing = lock(&self.state);
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K");
        for text in lines {
            let _ = writeln!(err, "{}", tack_sys::terminal_text::visible(text));
        }
        let _ = err.flush();
    }

    /// Stops the spinner and erases its line (before the answer is printed).
    pub fn clear(&mut self) {
        lock(&self.state).waiting_since = None;
        self.lines(&[]);
    }

    /// The spinner runs again, saying `status`.
    fn spin(&self, status: String) {
        let mut s = lock(&self.state);
        s.waiting_since = Some(Instant::now());
        s.output_chars = 0;
        s.status = status;
    }

    pub fn event(&mut self, event: &LoopEvent) {
        match event {
            LoopEvent::RequestStart { .. } => self.spin("Thinking".into()),
            LoopEvent::Stream(SseEvent::ContentBlockDelta { delta, .. }) => {
                let n = match delta {
                    Delta::TextDelta { text } => text.len(),
                    Delta::InputJsonDelta { partial_json } => partial_json.len(),
                    Delta::ThinkingDelta { thinking } => thinking.len(),
                    Delta::SignatureDelta { .. }
                    | Delta::CitationsDelta { .. }
                    | Delta::Unknown(_) => 0,
                };
                lock(&self.state).output_chars += n;
            }
            LoopEvent::Retry {
                attempt,
                max_retries,
                delay,
                error,
            } => {
                let what = match error {
                    tack_api::ApiError::Overloaded { .. } => "API overloaded".to_owned(),
                    other => format!("API error ({other})"),
                };
                self.line(&format!(
                    "{what}, retrying in {} s, attempt {}/{max_retries}",
                    delay.as_secs_f64().ceil() as u64,
                    attempt + 1
                ));
            }
            LoopEvent::AssistantMessage(a) => {
                // The text that introduces calls; the last message's text is
                // the answer, printed once, on stdout.
                let texts = self.calls.assistant(&a.message);
                match self.calls.running() {
                    Some(running) => {
                        let lines: Vec<String> = texts.into_iter().map(|t| t + "\n").collect();
                        self.clear();
                        self.lines(&lines);
                        self.spin(running);
                    }
                    None => self.clear(),
                }
            }
            LoopEvent::ToolResults(r) => {
                self.clear();
                let mut lines = Vec::new();
                for call in self.calls.results(&r.message) {
                    lines.extend(call);
                    lines.push(String::new());
                }
                self.lines(&lines);
            }
            LoopEvent::ModelFallback { from, to } => {
                self.line(&format!("{from} is overloaded, switched to {to}"));
            }
            LoopEvent::Compacted(c) => {
                self.line(&format!(
                    "Conversation compacted ({} tokens summarised)",
                    c.pre_tokens
                ));
            }
            LoopEvent::CompactFailed { error, .. } => {
                self.line(&format!("Automatic compaction failed: {error}"));
            }
            LoopEvent::MetaMessage { .. } => {}
            LoopEvent::Stream(_)
            | LoopEvent::ToolProgress(_)
            | LoopEvent::Tombstone { .. }
            | LoopEvent::Terminal(_) => {}
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
