//! The details a user coming from Claude Code looks for: the welcome lines,
//! paths relative to the project, the permission dialog's options, a spinner
//! that stands still while a dialog waits.

use crate::common;

use common::{Clock, Screen, app, key, type_text};
use crossterm::event::KeyCode;
use insta::assert_snapshot;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_protocol::PermissionMode;
use tack_tui::paths::ShownPaths;
use tack_tui::{App, PermissionAnswer, PermissionRequest, TurnSummary, UiAction, UiEvent};

fn in_shop(app: &mut App) {
    app.set_paths(ShownPaths::new(
        Some("/home/ana/shop".into()),
        Some("/home/ana".into()),
    ));
}

fn submit(app: &mut App, text: &str, clock: &Clock, ms: u64) {
    type_text(app, text, clock.at(ms));
    app.handle_key(key(KeyCode::Enter), clock.at(ms));
}

fn done() -> UiEvent {
    UiEvent::TurnResult(TurnSummary {
        interrupted: false,
        error: None,
        cost_usd: 0.01,
        session_cost_usd: 0.01,
        input_tokens: 100,
        output_tokens: 20,
        duration: std::time::Duration::from_secs(1),
    })
}

/// The rows of what the terminal shows, right-trimmed.
fn rows(screen: &mut Screen, app: &mut App, width: u16, height: u16) -> Vec<String> {
    let backend = screen.render(app, width, height);
    let buffer = backend.buffer();
    (0..height)
        .map(|y| {
            let row: String = (0..width).map(|x| buffer[(x, y)].symbol()).collect();
            row.trim_end().to_owned()
        })
        .collect()
}

fn request(tool: &str, input: serde_json::Value, suggestion: &str) -> PermissionRequest {
    PermissionRequest {
        id: "p1".into(),
        tool_name: tool.into(),
        input,
        reason: "needs approval".into(),
        suggestions: vec![suggestion.into()],
        original: None,
        choices: Vec::new(),
    }
}

#[test]
fn welcome_lines_then_tool_lines_relative_to_the_project() {
    let clock = Clock::new();
    let mut app = app(70, 30);
    in_shop(&mut app);
    app.handle_event(
        UiEvent::Welcome {
            version: "0.1.0".into(),
            model: "claude-opus-5-5".into(),
            cwd: "/home/ana/shop".into(),
        },
        clock.at(0),
    );
    submit(&mut app, "look around", &clock, 0);
    let calls = [
        (
            "t1",
            "Read",
            json!({"file_path": "/home/ana/shop/src/main.rs"}),
            "fn main() {}\n",
        ),
        (
            "t2",
            "Read",
            json!({"file_path": "/home/ana/notes.txt"}),
            "a\nb\n",
        ),
        (
            "t3",
            "Read",
            json!({"file_path": "/etc/hosts"}),
            "127.0.0.1 localhost\n",
        ),
        (
            "t4",
            "Grep",
            json!({"pattern": "main", "path": "/home/ana/shop/src", "output_mode": "content"}),
            "/home/ana/shop/src/main.rs:1:fn main() {}",
        ),
        (
            "t5",
            "Edit",
            json!({"file_path": "/home/ana/shop/src/lib.rs", "old_string": "a", "new_string": "b"}),
            "ok",
        ),
    ];
    for (i, (id, name, input, result)) in calls.into_iter().enumerate() {
        let at = 100 * (i as u64 + 1);
        let started = UiEvent::ToolUseStarted {
            id: id.into(),
            name: name.into(),
            input,
        };
        app.handle_event(started, clock.at(at));
        let finished = UiEvent::ToolUseFinished {
            id: id.into(),
            is_error: false,
            content: result.into(),
        };
        app.handle_event(finished, clock.at(at + 50));
    }
    app.handle_event(done(), clock.at(1000));
    // Ctrl+O: the transcript shows Grep's result lines relative too.
    assert_snapshot!(Screen::new().render(&mut app, 70, 30));
    app.handle_key(common::ctrl('o'), clock.at(1100));
    let transcript = rows(&mut Screen::new(), &mut app, 70, 40);
    assert!(
        transcript
            .iter()
            .any(|r| r == "  ⎿  src/main.rs:1:fn main() {}"),
        "{transcript:#?}"
    );
}

#[test]
fn a_bash_dialog_offers_its_prefix_in_the_project_and_saves_the_rule_it_shows() {
    let clock = Clock::new();
    let mut app = app(80, 20);
    in_shop(&mut app);
    submit(&mut app, "test it", &clock, 0);
    app.handle_event(
        UiEvent::PermissionRequest(request(
            "Bash",
            json!({"command": "npm run test -- --watch=false"}),
            "Bash(npm run *)",
        )),
        clock.at(100),
    );
    assert_snapshot!(Screen::new().render(&mut app, 80, 20));
    assert_eq!(
        app.handle_key(key(KeyCode::Char('2')), clock.at(200)),
        vec![UiAction::AnswerPermission {
            id: "p1".into(),
            answer: PermissionAnswer::AllowAlways {
                rule: "Bash(npm run *)".into()
            }
        }]
    );
}

#[test]
fn an_edit_dialog_switches_to_accept_edits_then_allows() {
    let clock = Clock::new();
    let mut app = app(80, 30);
    in_shop(&mut app);
    submit(&mut app, "rename it", &clock, 0);
    let edit =
        json!({"file_path": "/home/ana/shop/src/lib.rs", "old_string": "old", "new_string": "new"});
    app.handle_event(
        UiEvent::PermissionRequest(request("Edit", edit, "Edit(//home/ana/shop/**)")),
        clock.at(100),
    );
    let shown = rows(&mut Screen::new(), &mut app, 80, 30);
    let options: Vec<&str> = shown
        .iter()
        .map(|r| {
            r.trim_start_matches(['│', ' ', '❯'])
                .trim_end_matches(['│', ' '])
        })
        .filter(|r| ["1. ", "2. ", "3. "].iter().any(|n| r.starts_with(n)) || r.contains("lib.rs"))
        .collect();
    assert_eq!(
        options,
        [
            "src/lib.rs",
            "1. Yes",
            "2. Yes, and switch to accept edits (shift+tab)",
            "3. No, and tell tack what to do differently (esc)",
        ]
    );
    assert_eq!(
        app.handle_key(key(KeyCode::BackTab), clock.at(200)),
        vec![
            UiAction::SetPermissionMode(PermissionMode::AcceptEdits),
            UiAction::AnswerPermission {
                id: "p1".into(),
                answer: PermissionAnswer::Allow
            }
        ]
    );
    assert_eq!(app.permission_mode(), PermissionMode::AcceptEdits);
}

/// The spinner line of what the terminal shows.
fn spinner(app: &mut App) -> String {
    let shown = rows(&mut Screen::new(), app, 80, 30);
    shown
        .into_iter()
        .find(|r| r.contains("esc to interrupt"))
        .unwrap_or_default()
}

#[test]
fn the_spinner_stands_still_while_a_dialog_waits() {
    let clock = Clock::new();
    let mut app = app(80, 30);
    submit(&mut app, "build it", &clock, 0);
    app.tick(clock.at(1300));
    assert_eq!(spinner(&mut app), "✻ Working… (1s · esc to interrupt)");
    app.handle_event(
        UiEvent::PermissionRequest(request("Bash", json!({"command": "make"}), "Bash(make *)")),
        clock.at(1500),
    );
    // No timer while it waits: nothing to animate, no CPU.
    assert_eq!(app.next_tick(), None);
    // Whatever wakes the UI meanwhile, the clock and the frame stay.
    app.tick(clock.at(9_000));
    assert_eq!(spinner(&mut app), "✶ Working… (1s · esc to interrupt)");
    app.handle_key(key(KeyCode::Char('1')), clock.at(60_000));
    assert_eq!(app.next_tick(), Some(clock.at(60_200)));
    // 1.5 s before the dialog, 0.7 s after it: 2 s.
    app.tick(clock.at(60_700));
    assert_eq!(spinner(&mut app), "✢ Working… (2s · esc to interrupt)");
}
