//! Helpers shared by the test files.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use tack_protocol::PermissionMode;
use tack_tui::commands::MenuEntry;
use tack_tui::input::{FileIndex, PromptHistory};
use tack_tui::status::StatusInfo;
use tack_tui::{App, AppConfig, ModeOptions, Theme, ThemeKind, UiAction};

pub fn status() -> StatusInfo {
    StatusInfo {
        model: "claude-sonnet-4-5".into(),
        context_used: 24_000,
        context_window: 200_000,
        session_cost_usd: 0.12,
        permission_mode: PermissionMode::Default,
        git_branch: Some("main".into()),
        custom_line: None,
        session_id: "0d9c1f3e-0000-4000-8000-000000000000".into(),
    }
}

pub fn app_with(width: u16, height: u16, theme: Theme, custom: Vec<MenuEntry>) -> App {
    App::new(AppConfig {
        theme,
        width,
        height,
        history: PromptHistory::in_memory(vec!["run the tests".into(), "earlier prompt".into()]),
        custom_commands: custom,
        files: FileIndex::from_paths(
            [
                "Cargo.toml",
                "README.md",
                "src/",
                "src/main.rs",
                "src/markdown.rs",
                "tests/main_test.rs",
            ]
            .map(String::from)
            .to_vec(),
        ),
        status: status(),
    })
}

/// An app whose Shift+Tab offers `modes`.
pub fn app_modes(modes: ModeOptions) -> App {
    let mut app = app(60, 20);
    app.set_mode_options(modes);
    app
}

/// The notices history shows, oldest first.
pub fn notices(app: &App) -> Vec<String> {
    app.cells()
        .iter()
        .filter_map(|c| match c {
            tack_tui::cells::HistoryCell::Notice { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

pub fn app(width: u16, height: u16) -> App {
    app_with(
        width,
        height,
        Theme::new(ThemeKind::Dark, false),
        Vec::new(),
    )
}

/// A clock the tests move by hand.
pub struct Clock(pub Instant);

impl Clock {
    pub fn new() -> Clock {
        Clock(Instant::now())
    }
    pub fn at(&self, ms: u64) -> Instant {
        self.0 + Duration::from_millis(ms)
    }
}

pub fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

pub fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

pub fn with(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, modifiers)
}

/// The live area's rows at `width` x `height`, trailing blanks trimmed.
pub fn live_rows(app: &App, width: u16, height: u16) -> Vec<String> {
    let buffer = app.render_live(width, height);
    let area = buffer.area;
    (0..area.height)
        .map(|y| {
            let row: String = (0..area.width).map(|x| buffer[(x, y)].symbol()).collect();
            row.trim_end().to_owned()
        })
        .collect()
}

/// Types `text` (no actions expected).
pub fn type_text(app: &mut App, text: &str, now: Instant) {
    for c in text.chars() {
        let actions = app.handle_key(key(KeyCode::Char(c)), now);
        assert_eq!(actions, Vec::<UiAction>::new(), "typing {c:?}");
    }
}

/// What a terminal of `width` x `height` shows: the history written so far
/// (taken from the app), then the live area, bottom rows kept.
pub struct Screen {
    history: Vec<ratatui::text::Line<'static>>,
}

impl Screen {
    pub fn new() -> Screen {
        Screen {
            history: Vec::new(),
        }
    }

    pub fn render(&mut self, app: &mut App, width: u16, height: u16) -> TestBackend {
        // A full-screen view is on the alternate screen: nothing else shows.
        let history: &[ratatui::text::Line<'static>] = if app.is_fullscreen() {
            &[]
        } else {
            self.history.extend(app.take_history());
            &self.history
        };
        let live = app.render_live(width, height);
        let total = history.len() + usize::from(live.area.height);
        let rows = total.min(usize::from(height));
        let skip = total - rows;
        let mut all = Buffer::empty(Rect::new(0, 0, width, total as u16));
        for (y, line) in history.iter().enumerate() {
            all.set_line(0, y as u16, line, width);
        }
        let top = history.len() as u16;
        for y in 0..live.area.height {
            for x in 0..width {
                all[(x, top + y)] = live[(x, y)].clone();
            }
        }
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        terminal
            .draw(|f| {
                let buf = f.buffer_mut();
                for y in 0..rows as u16 {
                    for x in 0..width {
                        buf[(x, y)] = all[(x, y + skip as u16)].clone();
                    }
                }
            })
            .unwrap();
        terminal.backend().clone()
    }
}
