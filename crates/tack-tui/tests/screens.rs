//! Snapshots of every screen: what a terminal shows (history above, live area
//! below), rendered through ratatui's TestBackend.

use crate::common;

use std::time::Duration;

use common::{Clock, Screen, app, app_with, key, type_text};
use crossterm::event::KeyCode;
use insta::assert_snapshot;
use serde_json::json;
use tack_protocol::SessionSummary;
use tack_protocol::{TodoItem, TodoStatus};
use tack_tui::paths::ShownPaths;
use tack_tui::{
    CodeChanges, NoticeLevel, PermissionRequest, RewindChoice, Theme, ThemeKind, TurnSummary,
    UiEvent, WallClock,
};

const ANSWER: &str = "I looked at the parser. The bug is in `parse_list`: it drops the last item when the \
input has no trailing newline.\n\nHere is the fix:\n\n```rust\nfn parse_list(s: &str) -> Vec<&str> {\n    s.lines().collect()\n}\n```\n\nAnd then:\n\n1. run the tests\n2. commit";

fn stream(app: &mut tack_tui::App, text: &str, now: std::time::Instant) {
    for chunk in text.as_bytes().chunks(7) {
        let chunk = std::str::from_utf8(chunk).unwrap_or("");
        app.handle_event(UiEvent::TextDelta(chunk.to_string()), now);
    }
}

fn submit(app: &mut tack_tui::App, text: &str, now: std::time::Instant) {
    type_text(app, text, now);
    app.handle_key(key(KeyCode::Enter), now);
}

fn done() -> UiEvent {
    UiEvent::TurnResult(TurnSummary {
        interrupted: false,
        error: None,
        cost_usd: 0.02,
        session_cost_usd: 0.14,
        input_tokens: 1200,
        output_tokens: 300,
        duration: Duration::from_secs(4),
    })
}

#[test]
fn empty() {
    let mut app = app(60, 12);
    assert_snapshot!(Screen::new().render(&mut app, 60, 12));
}

#[test]
fn streaming() {
    let clock = Clock::new();
    let mut app = app(60, 24);
    submit(&mut app, "why does parse_list drop items?", clock.at(0));
    app.handle_event(
        UiEvent::ThinkingDelta("The user asks about parse_list. ".into()),
        clock.at(100),
    );
    app.handle_event(
        UiEvent::ThinkingDelta("Let me look at the loop.\n\n".into()),
        clock.at(200),
    );
    // Half of the answer: the code block is still open.
    stream(
        &mut app,
        &ANSWER[..ANSWER.find("collect").unwrap()],
        clock.at(3400),
    );
    app.tick(clock.at(3400));
    assert_snapshot!(Screen::new().render(&mut app, 60, 24));
}

#[test]
fn finished_answer() {
    let clock = Clock::new();
    let mut app = app(60, 30);
    submit(&mut app, "why does parse_list drop items?", clock.at(0));
    stream(&mut app, ANSWER, clock.at(100));
    app.handle_event(UiEvent::AssistantMessageDone, clock.at(200));
    app.handle_event(done(), clock.at(200));
    assert_snapshot!(Screen::new().render(&mut app, 60, 30));
}

fn tool_session(app: &mut tack_tui::App, clock: &Clock) {
    submit(app, "run the tests and fix what fails", clock.at(0));
    stream(app, "Running the tests first.", clock.at(100));
    app.handle_event(UiEvent::AssistantMessageDone, clock.at(150));
    let started = |id: &str, name: &str, input: serde_json::Value| UiEvent::ToolUseStarted {
        id: id.into(),
        name: name.into(),
        input,
    };
    let finished = |id: &str, is_error: bool, content: &str| UiEvent::ToolUseFinished {
        id: id.into(),
        is_error,
        content: content.into(),
    };
    app.handle_event(
        started(
            "t1",
            "Bash",
            json!({"command": "cargo test", "description": "Run tests"}),
        ),
        clock.at(200),
    );
    app.handle_event(
        finished(
            "t1",
            false,
            "running 12 tests\ntest a ... ok\ntest b ... FAILED\ntest c ... ok\n\nfailures: b",
        ),
        clock.at(900),
    );
    app.handle_event(
        started("t2", "Read", json!({"file_path": "src/parser.rs"})),
        clock.at(1000),
    );
    app.handle_event(
        UiEvent::ToolProgress {
            id: "t2".into(),
            text: "reading 1.2 MB".into(),
        },
        clock.at(1050),
    );
    app.handle_event(
        started(
            "t3",
            "Grep",
            json!({"pattern": "parse_list", "path": "src"}),
        ),
        clock.at(1000),
    );
    // The Grep finishes first but waits for the Read, which is still running.
    app.handle_event(
        finished("t3", false, "src/parser.rs\nsrc/lib.rs"),
        clock.at(1100),
    );
    app.tick(clock.at(1200));
}

#[test]
fn tool_calls() {
    let clock = Clock::new();
    let mut app = app(70, 30);
    tool_session(&mut app, &clock);
    assert_snapshot!(Screen::new().render(&mut app, 70, 30));
}

#[test]
fn diff_of_an_edit() {
    let clock = Clock::new();
    let mut app = app(70, 30);
    submit(&mut app, "fix it", clock.at(0));
    app.handle_event(
        UiEvent::ToolUseStarted {
            id: "e1".into(),
            name: "Edit".into(),
            input: json!({
                "file_path": "src/parser.rs",
                "old_string": "fn parse_list(s: &str) -> Vec<&str> {\n    s.split('\\n').collect()\n}",
                "new_string": "fn parse_list(s: &str) -> Vec<&str> {\n    s.lines().collect()\n}"
            }),
        },
        clock.at(100),
    );
    app.handle_event(
        UiEvent::ToolUseFinished {
            id: "e1".into(),
            is_error: false,
            content: "ok".into(),
        },
        clock.at(200),
    );
    app.handle_event(done(), clock.at(300));
    assert_snapshot!(Screen::new().render(&mut app, 70, 30));
}

#[test]
fn todos_while_working() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    submit(&mut app, "refactor the parser", clock.at(0));
    let item = |content: &str, status| TodoItem {
        content: content.into(),
        status,
        active_form: content.into(),
    };
    app.handle_event(
        UiEvent::Todos(vec![
            item("Read the parser", TodoStatus::Completed),
            item("Split parse_list", TodoStatus::InProgress),
            item("Run the tests", TodoStatus::Pending),
        ]),
        clock.at(100),
    );
    app.tick(clock.at(12_000));
    assert_snapshot!(Screen::new().render(&mut app, 60, 20));
}

fn bash_request() -> PermissionRequest {
    PermissionRequest {
        id: "p1".into(),
        tool_name: "Bash".into(),
        input: json!({"command": "npm run build && npm test", "description": "Build and test"}),
        reason: "Bash command needs approval".into(),
        suggestions: vec!["Bash(npm run build:*)".into()],
        original: None,
        choices: Vec::new(),
    }
}

/// In auto mode a person is asked when the classifier cannot decide: the
/// dialog says why, under the command too.
#[test]
fn permission_dialog_in_auto_mode_says_why() {
    let clock = Clock::new();
    let mut app = app(70, 24);
    for _ in 0..3 {
        app.handle_key(key(KeyCode::BackTab), clock.at(0));
    }
    submit(&mut app, "build it", clock.at(0));
    let request = PermissionRequest {
        reason: "3 consecutive actions were blocked by auto mode".into(),
        ..bash_request()
    };
    app.handle_event(UiEvent::PermissionRequest(request), clock.at(100));
    assert_snapshot!(Screen::new().render(&mut app, 70, 24));
}

#[test]
fn permission_dialog_for_a_command() {
    let clock = Clock::new();
    let mut app = app(70, 24);
    submit(&mut app, "build it", clock.at(0));
    app.handle_event(UiEvent::PermissionRequest(bash_request()), clock.at(100));
    assert_snapshot!(Screen::new().render(&mut app, 70, 24));
}

#[test]
fn permission_dialog_for_an_edit_shows_the_diff() {
    let clock = Clock::new();
    let mut app = app(70, 30);
    submit(&mut app, "rename it", clock.at(0));
    app.handle_event(
        UiEvent::PermissionRequest(PermissionRequest {
            id: "p2".into(),
            tool_name: "Edit".into(),
            input: json!({"file_path": "src/lib.rs", "old_string": "pub fn old_name() {}", "new_string": "pub fn new_name() {}"}),
            reason: "Edit needs approval".into(),
            suggestions: vec!["Edit(src/**)".into()],
            original: Some("//! lib\n\nuse std::io;\n\npub fn old_name() {}\n\npub fn other() {}\n".into()),
            choices: Vec::new(),
        }),
        clock.at(100),
    );
    app.handle_key(key(KeyCode::Char('3')), clock.at(200));
    type_text(&mut app, "keep the old name", clock.at(200));
    assert_snapshot!(Screen::new().render(&mut app, 70, 30));
}

#[test]
fn slash_command_menu() {
    let clock = Clock::new();
    let mut app = app(70, 20);
    type_text(&mut app, "/c", clock.at(0));
    app.handle_key(key(KeyCode::Down), clock.at(0));
    assert_snapshot!(Screen::new().render(&mut app, 70, 20));
}

#[test]
fn file_mention_completion() {
    let clock = Clock::new();
    let mut app = app(60, 16);
    type_text(&mut app, "explain @mark", clock.at(0));
    assert_snapshot!(Screen::new().render(&mut app, 60, 16));
}

#[test]
fn resume_picker() {
    let clock = Clock::new();
    let mut app = app(80, 20);
    let session = |id: &str, secs: u64, prompt: &str| SessionSummary {
        session_id: id.into(),
        path: format!("/tmp/{id}.jsonl").into(),
        modified: std::time::UNIX_EPOCH + Duration::from_secs(secs),
        first_prompt: Some(prompt.into()),
    };
    // Times said from three minutes after the newest, an hour east of UTC.
    app.handle_event(
        UiEvent::Sessions {
            sessions: vec![
                session(
                    "3f1e2d4c-aaaa-4000-8000-000000000001",
                    1_763_900_000,
                    "fix the flaky test in the store",
                ),
                session(
                    "9b8a7c6d-bbbb-4000-8000-000000000002",
                    1_763_800_000,
                    "write the README",
                ),
                session(
                    "0c1d2e3f-cccc-4000-8000-000000000003",
                    1_763_700_000,
                    "why is start-up slow?",
                ),
            ],
            clock: WallClock {
                now: std::time::UNIX_EPOCH + Duration::from_secs(1_763_900_180),
                utc_offset: Some(3600),
            },
        },
        clock.at(0),
    );
    app.handle_key(key(KeyCode::Down), clock.at(0));
    assert_snapshot!(Screen::new().render(&mut app, 80, 20));
}

/// Three prompts: two whose turns changed files (the model's absolute
/// paths, shown relative), the last one changed none; a code restore to the
/// first two would change files.
fn rewind_points() -> UiEvent {
    let files = |files: &[&str]| -> Vec<String> {
        files
            .iter()
            .map(|f| format!("/home/ana/shop/{f}"))
            .collect()
    };
    let point = |id: &str, text: &str, changed: &[&str], restored: &[&str]| RewindChoice {
        id: id.into(),
        text: text.into(),
        files: files(changed),
        code: Some(CodeChanges {
            files: restored.iter().map(|f| f.to_string()).collect(),
            insertions: 4,
            deletions: 30,
        }),
    };
    UiEvent::RewindPoints(vec![
        point(
            "p1",
            "add a parser for the config file",
            &["src/parser.rs", "src/lib.rs"],
            &["src/parser.rs", "src/lib.rs", "tests/parser.rs"],
        ),
        point(
            "p2",
            "now write its tests\nand run them",
            &["tests/a.rs", "tests/b.rs", "tests/c.rs", "tests/d.rs"],
            &["tests/parser.rs"],
        ),
        RewindChoice {
            id: "p3".into(),
            text: "explain the error".into(),
            files: Vec::new(),
            code: None,
        },
    ])
}

fn in_shop(app: &mut tack_tui::App) {
    app.set_paths(ShownPaths::new(
        Some("/home/ana/shop".into()),
        Some("/home/ana".into()),
    ));
}

#[test]
fn rewind_picker() {
    let clock = Clock::new();
    let mut app = app(80, 20);
    in_shop(&mut app);
    app.handle_event(rewind_points(), clock.at(0));
    app.handle_key(key(KeyCode::Up), clock.at(0));
    assert_snapshot!(Screen::new().render(&mut app, 80, 20));
}

#[test]
fn rewind_picker_options() {
    let clock = Clock::new();
    let mut app = app(80, 20);
    app.handle_event(rewind_points(), clock.at(0));
    app.handle_key(key(KeyCode::Up), clock.at(0));
    app.handle_key(key(KeyCode::Up), clock.at(0));
    app.handle_key(key(KeyCode::Enter), clock.at(0));
    app.handle_key(key(KeyCode::Down), clock.at(0));
    assert_snapshot!(Screen::new().render(&mut app, 80, 20));
}

#[test]
fn trust_dialog() {
    let clock = Clock::new();
    let mut app = app(70, 20);
    app.handle_event(
        UiEvent::TrustRequest {
            dir: "/home/me/src/project".into(),
        },
        clock.at(0),
    );
    assert_snapshot!(Screen::new().render(&mut app, 70, 20));
}

#[test]
fn narrow_40_columns() {
    let clock = Clock::new();
    let mut app = app(40, 30);
    submit(
        &mut app,
        "why does parse_list drop items when the input is long?",
        clock.at(0),
    );
    stream(&mut app, ANSWER, clock.at(100));
    app.tick(clock.at(2000));
    assert_snapshot!(Screen::new().render(&mut app, 40, 30));
}

#[test]
fn wide_120_columns() {
    let clock = Clock::new();
    let mut app = app(120, 24);
    tool_session(&mut app, &clock);
    assert_snapshot!(Screen::new().render(&mut app, 120, 24));
}

#[test]
fn queued_prompt_shell_mode_and_accept_edits() {
    let clock = Clock::new();
    let mut app = app(70, 16);
    submit(&mut app, "long task", clock.at(0));
    submit(&mut app, "then this", clock.at(100));
    app.handle_key(key(KeyCode::BackTab), clock.at(200));
    type_text(&mut app, "!git status", clock.at(300));
    assert_snapshot!("queued_shell", Screen::new().render(&mut app, 70, 16));
    let mut app = common::app(70, 10);
    app.handle_key(key(KeyCode::BackTab), clock.at(0));
    assert_snapshot!("accept_edits", Screen::new().render(&mut app, 70, 10));
}

#[test]
fn auto_mode_footer_and_its_intro() {
    let clock = Clock::new();
    let mut app = app(70, 16);
    for _ in 0..3 {
        app.handle_key(key(KeyCode::BackTab), clock.at(0));
    }
    app.handle_event(
        UiEvent::ModeSet(tack_protocol::PermissionMode::Auto),
        clock.at(10),
    );
    assert_snapshot!(Screen::new().render(&mut app, 70, 16));
}

#[test]
fn auto_decisions_view() {
    let clock = Clock::new();
    let mut app = app(80, 24);
    app.handle_event(crate::keys::auto_decisions(), clock.at(0));
    app.handle_key(key(KeyCode::Up), clock.at(0));
    assert_snapshot!(Screen::new().render(&mut app, 80, 24));
    app.handle_key(key(KeyCode::Char('a')), clock.at(0));
    app.handle_event(
        UiEvent::RuleAdded {
            rule: "Bash(npm install:*)".into(),
            saved: Ok("/p/.claude/settings.local.json".into()),
        },
        clock.at(0),
    );
    assert_snapshot!(
        "auto_decisions_view_rule_added",
        Screen::new().render(&mut app, 80, 24)
    );
}

#[test]
fn transcript_view_expands_tool_results() {
    let clock = Clock::new();
    let mut app = app(70, 30);
    tool_session(&mut app, &clock);
    app.handle_event(
        UiEvent::ToolUseFinished {
            id: "t2".into(),
            is_error: false,
            content: "fn a() {}\nfn b() {}".into(),
        },
        clock.at(1300),
    );
    app.handle_event(done(), clock.at(1400));
    app.handle_key(common::ctrl('o'), clock.at(1500));
    assert_snapshot!(Screen::new().render(&mut app, 70, 30));
}

#[test]
fn notices_and_interrupts() {
    let clock = Clock::new();
    let mut app = app(60, 16);
    submit(&mut app, "do it", clock.at(0));
    app.handle_event(
        UiEvent::Notice {
            level: NoticeLevel::Warning,
            text: "API overloaded, retrying in 2s (1/10)".into(),
        },
        clock.at(10),
    );
    app.handle_event(
        UiEvent::TurnResult(TurnSummary {
            interrupted: true,
            error: None,
            cost_usd: 0.0,
            session_cost_usd: 0.1,
            input_tokens: 0,
            output_tokens: 0,
            duration: Duration::from_secs(1),
        }),
        clock.at(20),
    );
    assert_snapshot!(Screen::new().render(&mut app, 60, 16));
}

/// Styles, not just text: the dark and light themes and NO_COLOR differ.
#[test]
fn themes_differ_in_style_only() {
    let clock = Clock::new();
    let mut rendered = Vec::new();
    for theme in [
        Theme::new(ThemeKind::Dark, true),
        Theme::new(ThemeKind::Light, true),
        Theme::new(ThemeKind::Dark, false),
    ] {
        let mut app = app_with(50, 12, theme, Vec::new());
        submit(&mut app, "hi", clock.at(0));
        stream(
            &mut app,
            "Some `code` and a [link](https://x.y).\n\nmore",
            clock.at(10),
        );
        let backend = Screen::new().render(&mut app, 50, 12);
        rendered.push((backend.to_string(), backend.buffer().clone()));
    }
    // Same text everywhere...
    assert_eq!(rendered[0].0, rendered[1].0);
    assert_eq!(rendered[0].0, rendered[2].0);
    // ...different colours between dark and light, none at all without colour.
    assert_ne!(rendered[0].1, rendered[1].1);
    let colored = |b: &ratatui::buffer::Buffer| {
        b.content()
            .iter()
            .any(|c| c.fg != ratatui::style::Color::Reset || c.bg != ratatui::style::Color::Reset)
    };
    assert!(colored(&rendered[0].1));
    assert!(!colored(&rendered[2].1));
}

/// While a statusLine command is set its rows replace the built-in line,
/// and the `? for shortcuts` hint is hidden, as in Claude Code (none of
/// its rows until it first answers).
#[test]
fn a_status_line_command_hides_the_shortcuts_hint() {
    let clock = Clock::new();
    let rows = |app: &tack_tui::App| common::live_rows(app, 40, 12);
    let mut app = app(40, 12);
    let custom = |line: &str| {
        UiEvent::Status(tack_tui::StatusPatch {
            custom_line: Some(Some(line.to_owned())),
            ..tack_tui::StatusPatch::default()
        })
    };
    let input = |rest: &[&str]| -> Vec<String> {
        let mut out = vec![
            format!("╭{}╮", "─".repeat(38)),
            "│ > Try \"explain this codebase\" · / f… │".to_owned(),
            format!("╰{}╯", "─".repeat(38)),
        ];
        out.extend(rest.iter().map(|r| r.to_string()));
        out
    };
    assert_eq!(
        rows(&app),
        input(&[
            "  ? for shortcuts",
            "  claude-sonnet-4-5 · 12% context (176k…"
        ])
    );
    app.handle_event(custom(""), clock.at(0));
    assert_eq!(rows(&app), input(&[]));
    app.handle_event(custom("my line"), clock.at(0));
    assert_eq!(rows(&app), input(&["  my line"]));
}
