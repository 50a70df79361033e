//! Progress on a terminal (text mode, stderr is a TTY): a spinner with elapsed
//! time and tokens while the model works, one line per tool call, retries.
//! Never used on a pipe.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;
use tack_protocol::{Delta, SseEvent};
use tack_runtime::LoopEvent;

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
}

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Progress {
    /// Starts the spinner thread (it draws only while a request is in flight).
    pub fn start() -> Progress {
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
                    let tokens = state.output_chars / 4;
                    let status = if state.status.is_empty() {
                        "Working"
                    } else {
                        &state.status
                    };
                    let mut err = std::io::stderr().lock();
                    let _ = write!(
                        err,
                        "\r\x1b[2K{} {status}… {}s · ↓ {tokens} tokens",
                        FRAMES[frame],
                        since.elapsed().as_secs()
                    );
                    let _ = err.flush();
                }
            }
        });
        Progress { state, stop }
    }

    /// One line of progress. Its text comes from the model (tool inputs) or
    /// the API: escape sequences in it are shown, not run.
    fn line(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "\r\x1b[2K{}", tack_sys::terminal_text::visible(text));
    }

    pub fn clear(&mut self) {
        lock(&self.state).waiting_since = None;
        let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
    }

    pub fn event(&mut self, event: &LoopEvent) {
        match event {
            LoopEvent::RequestStart { .. } => {
                let mut s = lock(&self.state);
                s.waiting_since = Some(Instant::now());
                s.output_chars = 0;
                s.status = "Thinking".into();
            }
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
                lock(&self.state).waiting_since = None;
                for (_, name, input) in a.message.tool_uses() {
                    self.line(&format!("● {name}({})", tool_summary(input)));
                }
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
            LoopEvent::ToolResults(_) | LoopEvent::MetaMessage { .. } => {}
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

/// The most telling input field of a tool call, shortened to one line.
pub fn tool_summary(input: &Value) -> String {
    let keys = [
        "command",
        "file_path",
        "pattern",
        "path",
        "url",
        "description",
    ];
    let text = keys
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
        .unwrap_or_else(|| input.to_string());
    let one_line = text.lines().next().unwrap_or("").to_owned();
    if one_line.chars().count() > 80 {
        format!("{}…", one_line.chars().take(79).collect::<String>())
    } else {
        one_line
    }
}
