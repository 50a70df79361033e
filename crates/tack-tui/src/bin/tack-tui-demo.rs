//! A scripted session in the real terminal: the UI driven by a fake runtime.
//! Built with the `testing` feature, for the pty end-to-end tests and for
//! trying the UI by hand (`cargo run -p tack-tui --features testing --bin tack-tui-demo`).
//!
//! Prompts containing `edit` ask for a permission; `slow` streams slowly so Esc
//! can interrupt it; anything else gets a short markdown answer.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde_json::json;
use tack_protocol::SessionSummary;
use tack_tui::input::{FileIndex, PromptHistory};
use tack_tui::status::StatusInfo;
use tack_tui::{
    App, AppConfig, InlineTerminal, NoticeLevel, PermissionAnswer, PermissionRequest,
    TerminalGuard, Theme, ThemeKind, TurnSummary, UiAction, UiEvent, color_allowed, draw,
};

enum Msg {
    Term(crossterm::event::Event),
    Runtime(UiEvent),
}

/// The fake runtime's side: answers to permission requests, the cancel flag.
#[derive(Clone)]
struct Runtime {
    tx: Sender<Msg>,
    cancel: Arc<AtomicBool>,
    answers: Arc<Mutex<Option<Sender<PermissionAnswer>>>>,
}

impl Runtime {
    fn send(&self, ev: UiEvent) {
        let _ = self.tx.send(Msg::Runtime(ev));
    }

    fn stream(&self, text: &str, pace: Duration) -> bool {
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(3) {
            if self.cancel.load(Ordering::SeqCst) {
                return false;
            }
            self.send(UiEvent::TextDelta(piece.iter().collect()));
            if !pace.is_zero() {
                std::thread::sleep(pace);
            }
        }
        true
    }

    fn finish(&self, interrupted: bool) {
        self.send(UiEvent::AssistantMessageDone);
        self.send(UiEvent::TurnResult(TurnSummary {
            interrupted,
            error: None,
            cost_usd: 0.01,
            session_cost_usd: 0.01,
            input_tokens: 100,
            output_tokens: 50,
            duration: Duration::from_secs(1),
        }));
    }

    fn turn(&self, prompt: String) {
        self.cancel.store(false, Ordering::SeqCst);
        self.send(UiEvent::TurnStarted);
        if prompt.contains("slow") {
            let text = "Thinking about it slowly. ".repeat(200);
            let done = self.stream(&text, Duration::from_millis(30));
            self.finish(!done);
            return;
        }
        if prompt.contains("edit") {
            self.stream("I will edit the file.", Duration::ZERO);
            self.send(UiEvent::AssistantMessageDone);
            let input =
                json!({"file_path": "src/lib.rs", "old_string": "old()", "new_string": "new()"});
            self.send(UiEvent::ToolUseStarted {
                id: "t1".into(),
                name: "Edit".into(),
                input: input.clone(),
            });
            let (tx, rx) = mpsc::channel();
            if let Ok(mut slot) = self.answers.lock() {
                *slot = Some(tx);
            }
            self.send(UiEvent::PermissionRequest(PermissionRequest {
                id: "p1".into(),
                tool_name: "Edit".into(),
                input,
                reason: "Edit needs approval".into(),
                suggestions: vec!["Edit(src/**)".into()],
                original: Some("fn old() {}\n".into()),
                choices: Vec::new(),
            }));
            let allowed = matches!(
                rx.recv(),
                Ok(PermissionAnswer::Allow | PermissionAnswer::AllowAlways { .. })
            );
            let (is_error, content, text) = if allowed {
                (false, "ok", "Edited.")
            } else {
                (true, "The user said no", "Not edited.")
            };
            self.send(UiEvent::ToolUseFinished {
                id: "t1".into(),
                is_error,
                content: content.into(),
            });
            self.stream(text, Duration::ZERO);
            self.finish(false);
            return;
        }
        let answer = format!(
            "You said: **{prompt}**.\n\nHere is some code:\n\n```rust\nfn main() {{\n    println!(\"hi\");\n}}\n```\n\nDone."
        );
        self.stream(&answer, Duration::ZERO);
        self.finish(false);
    }
}

fn main() -> io::Result<()> {
    let (width, height) = crossterm::terminal::size()?;
    let color = color_allowed(std::env::var_os("NO_COLOR").as_deref());
    let mut app = App::new(AppConfig {
        theme: Theme::new(ThemeKind::Dark, color),
        width,
        height,
        history: PromptHistory::in_memory(Vec::new()),
        custom_commands: Vec::new(),
        files: FileIndex::from_paths(vec!["src/".into(), "src/lib.rs".into()]),
        status: StatusInfo {
            model: "demo-model".into(),
            context_window: 200_000,
            ..StatusInfo::default()
        },
    });
    let mut stdout = io::stdout();
    let _guard = TerminalGuard::enter(&mut stdout)?;
    let mut term = InlineTerminal::new(io::stdout(), width, height);
    let (tx, rx): (Sender<Msg>, Receiver<Msg>) = mpsc::channel();
    let keys = tx.clone();
    std::thread::spawn(move || {
        while let Ok(ev) = crossterm::event::read() {
            if keys.send(Msg::Term(ev)).is_err() {
                break;
            }
        }
    });
    let runtime = Runtime {
        tx,
        cancel: Arc::new(AtomicBool::new(false)),
        answers: Arc::new(Mutex::new(None)),
    };
    draw(&mut app, &mut term)?;
    loop {
        let msg = match app.next_tick() {
            Some(at) => match rx.recv_timeout(at.saturating_duration_since(Instant::now())) {
                Ok(msg) => Some(msg),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => break,
            },
            None => match rx.recv() {
                Ok(msg) => Some(msg),
                Err(_) => break,
            },
        };
        let now = Instant::now();
        let actions = match msg {
            None => {
                app.tick(now);
                Vec::new()
            }
            Some(Msg::Term(ev)) => app.handle_terminal_event(ev, now),
            Some(Msg::Runtime(ev)) => app.handle_event(ev, now),
        };
        for action in actions {
            match action {
                UiAction::Exit => {
                    draw(&mut app, &mut term)?;
                    term.erase_live()?;
                    return Ok(());
                }
                UiAction::Submit(prompt) => {
                    let rt = runtime.clone();
                    std::thread::spawn(move || rt.turn(prompt.text));
                }
                UiAction::Interrupt => runtime.cancel.store(true, Ordering::SeqCst),
                UiAction::AnswerPermission { answer, .. } => {
                    if let Ok(mut slot) = runtime.answers.lock()
                        && let Some(tx) = slot.take()
                    {
                        let _ = tx.send(answer);
                    }
                }
                UiAction::ListSessions => runtime.send(UiEvent::Sessions {
                    clock: tack_tui::WallClock::system(),
                    sessions: vec![
                        SessionSummary {
                            session_id: "11111111-1111-4111-8111-111111111111".into(),
                            path: "/tmp/a.jsonl".into(),
                            modified: SystemTime::UNIX_EPOCH,
                            first_prompt: Some("an older session".into()),
                        },
                        SessionSummary {
                            session_id: "22222222-2222-4222-8222-222222222222".into(),
                            path: "/tmp/b.jsonl".into(),
                            modified: SystemTime::UNIX_EPOCH,
                            first_prompt: Some("another one".into()),
                        },
                    ],
                }),
                other => runtime.send(UiEvent::Notice {
                    level: NoticeLevel::Info,
                    text: format!("demo: {other:?}"),
                }),
            }
        }
        draw(&mut app, &mut term)?;
        io::stdout().flush()?;
    }
    term.erase_live()
}
