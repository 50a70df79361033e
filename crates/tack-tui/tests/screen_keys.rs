//! keybindings.json on the screens besides the prompt: for each context
//! tack has a screen for, a rebind and a `null` unbind change what a key
//! does there, and an action tack lacks is said.

use crate::common;
use crate::keys::rewind_points;
use crate::model_picker::models;

use common::{Clock, app, ctrl, key, type_text, with};
use crossterm::event::{KeyCode, KeyModifiers};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_protocol::SessionSummary;
use tack_tui::keybindings::Keymap;
use tack_tui::{
    App, PermissionAnswer, PermissionRequest, Prompt, Restore, UiAction, UiEvent, WallClock,
};

/// An app with `bindings` (one block per context) over the defaults.
fn bound(bindings: Value) -> App {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keybindings.json");
    std::fs::write(&path, json!({ "bindings": bindings }).to_string()).unwrap();
    let (keymap, warnings) = Keymap::load(&path);
    assert_eq!(warnings, Vec::<String>::new());
    let mut app = app(60, 30);
    app.set_keymap(keymap);
    app
}

/// What the live area shows, one string.
fn shown(app: &App) -> String {
    let buffer = app.render_live(60, 30);
    let area = buffer.area;
    (0..area.height)
        .map(|y| {
            let row: String = (0..area.width).map(|x| buffer[(x, y)].symbol()).collect();
            row.trim_end().to_owned() + "\n"
        })
        .collect()
}

fn bash_request(id: &str) -> UiEvent {
    UiEvent::PermissionRequest(PermissionRequest {
        id: id.into(),
        tool_name: "Bash".into(),
        input: json!({"command": "npm test"}),
        reason: "Bash needs approval".into(),
        suggestions: vec!["Bash(npm test *)".into()],
        original: None,
        choices: Vec::new(),
    })
}

fn answer(id: &str, answer: PermissionAnswer) -> Vec<UiAction> {
    vec![UiAction::AnswerPermission {
        id: id.into(),
        answer,
    }]
}

#[test]
fn confirmation_keys_answer_permission_and_trust_dialogs() {
    let clock = Clock::new();
    let t = clock.at(0);
    let mut app = bound(json!([{"context": "Confirmation", "bindings": {
        "enter": null,
        "escape": null,
        "ctrl+y": "confirm:yes",
        "ctrl+n": "confirm:no",
        "ctrl+j": "confirm:next",
        "space": "confirm:toggle"
    }}]));
    app.handle_event(bash_request("p1"), t);
    // Enter and Esc unbound: the dialog stays.
    assert_eq!(app.handle_key(key(KeyCode::Enter), t), vec![]);
    assert_eq!(app.handle_key(key(KeyCode::Esc), t), vec![]);
    assert!(app.is_waiting_for_user());
    // An action tack lacks is said.
    assert_eq!(app.handle_key(key(KeyCode::Char(' ')), t), vec![]);
    assert!(
        shown(&app).contains("confirm:toggle is not available in tack"),
        "{}",
        shown(&app)
    );
    // The rebound keys move and accept; the dialog's own `1`..`3` stay.
    app.handle_key(ctrl('j'), t);
    assert_eq!(
        app.handle_key(ctrl('y'), t),
        answer(
            "p1",
            PermissionAnswer::AllowAlways {
                rule: "Bash(npm test *)".into()
            }
        )
    );
    app.handle_event(bash_request("p2"), t);
    assert_eq!(
        app.handle_key(ctrl('n'), t),
        answer("p2", PermissionAnswer::Deny { feedback: None })
    );
    // Ctrl+C is reserved: it still declines.
    app.handle_event(bash_request("p3"), t);
    assert_eq!(
        app.handle_key(ctrl('c'), t),
        answer("p3", PermissionAnswer::Deny { feedback: None })
    );
    // Typing what to do instead takes every key (space and Enter too).
    app.handle_event(bash_request("p4"), t);
    app.handle_key(key(KeyCode::Char('3')), t);
    type_text(&mut app, "use make", t);
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), t),
        answer(
            "p4",
            PermissionAnswer::Deny {
                feedback: Some("use make".into())
            }
        )
    );
    // The trust dialog is a Confirmation too.
    app.handle_event(
        UiEvent::TrustRequest {
            dir: "/home/me/project".into(),
        },
        t,
    );
    assert_eq!(app.handle_key(key(KeyCode::Enter), t), vec![]);
    assert_eq!(app.handle_key(ctrl('y'), t), vec![UiAction::Trust(true)]);
}

#[test]
fn transcript_keys_leave_the_view() {
    let clock = Clock::new();
    let t = clock.at(0);
    let mut app = bound(json!([
        {"context": "Transcript", "bindings": {"q": null, "x": "transcript:exit"}},
        {"context": "Global", "bindings": {"ctrl+o": null, "ctrl+k": "app:toggleTranscript"}}
    ]));
    app.handle_key(ctrl('k'), t);
    assert!(app.is_fullscreen());
    app.handle_key(key(KeyCode::Char('q')), t);
    app.handle_key(ctrl('o'), t);
    assert!(app.is_fullscreen());
    app.handle_key(key(KeyCode::Char('x')), t);
    assert!(!app.is_fullscreen());
    // The Global chord leaves it too, and Esc (still bound) does.
    app.handle_key(ctrl('k'), t);
    app.handle_key(ctrl('k'), t);
    assert!(!app.is_fullscreen());
    app.handle_key(ctrl('k'), t);
    app.handle_key(key(KeyCode::Esc), t);
    assert!(!app.is_fullscreen());
}

#[test]
fn history_search_keys_accept_cancel_and_execute() {
    let clock = Clock::new();
    let t = clock.at(0);
    let mut app = bound(json!([{"context": "HistorySearch", "bindings": {
        "enter": null,
        "ctrl+r": null,
        "ctrl+s": "historySearch:next",
        "ctrl+e": "historySearch:execute"
    }}]));
    type_text(&mut app, "draft", t);
    app.handle_key(ctrl('r'), t);
    type_text(&mut app, "e", t);
    // Ctrl+R unbound in the search: no older match; Enter unbound: nothing.
    app.handle_key(ctrl('r'), t);
    assert_eq!(app.handle_key(key(KeyCode::Enter), t), vec![]);
    // Esc accepts the newest match (Claude Code's default) without
    // sending it.
    assert_eq!(app.handle_key(key(KeyCode::Esc), t), vec![]);
    assert_eq!(app.input(), "earlier prompt");
    // Ctrl+C cancels: the draft comes back.
    app.set_input("draft");
    app.handle_key(ctrl('r'), t);
    type_text(&mut app, "e", t);
    app.handle_key(ctrl('c'), t);
    assert_eq!(app.input(), "draft");
    // The rebound next match (an older one), then execute: sent.
    app.handle_key(ctrl('r'), t);
    type_text(&mut app, "e", t);
    app.handle_key(ctrl('s'), t);
    assert_eq!(
        app.handle_key(ctrl('e'), t),
        vec![UiAction::Submit(Prompt::text("run the tests"))]
    );
}

fn sessions() -> UiEvent {
    let session = |id: &str, prompt: &str| SessionSummary {
        session_id: id.into(),
        path: format!("/tmp/{id}.jsonl").into(),
        modified: std::time::UNIX_EPOCH,
        first_prompt: Some(prompt.into()),
    };
    UiEvent::Sessions {
        sessions: vec![session("aaaa", "fix the parser"), session("bbbb", "docs")],
        clock: WallClock {
            now: std::time::UNIX_EPOCH,
            utc_offset: Some(0),
        },
    }
}

fn resumed(id: &str) -> Vec<UiAction> {
    vec![UiAction::Resume {
        session_id: id.into(),
    }]
}

#[test]
fn select_keys_move_pick_and_cancel_in_the_pickers() {
    let clock = Clock::new();
    let t = clock.at(0);
    let mut app = bound(json!([
        {"context": "Select", "bindings": {
            "down": null,
            "escape": null,
            "ctrl+f": "select:next",
            "ctrl+q": "select:cancel"
        }},
        {"context": "ModelPicker", "bindings": {"right": "modelPicker:increaseEffort"}}
    ]));
    app.handle_event(sessions(), t);
    // Down unbound: the first stays selected; Esc unbound: still open.
    app.handle_key(key(KeyCode::Down), t);
    app.handle_key(key(KeyCode::Esc), t);
    assert_eq!(app.handle_key(key(KeyCode::Enter), t), resumed("aaaa"));
    app.handle_event(sessions(), t);
    app.handle_key(ctrl('f'), t);
    assert_eq!(app.handle_key(key(KeyCode::Enter), t), resumed("bbbb"));
    // The model picker is a Select too, with its own context first.
    app.handle_event(models("default"), t);
    app.handle_key(key(KeyCode::Right), t);
    assert!(
        shown(&app).contains("modelPicker:increaseEffort is not available in tack"),
        "{}",
        shown(&app)
    );
    app.handle_key(ctrl('f'), t);
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), t),
        vec![UiAction::SetModel("sonnet".into())]
    );
    app.handle_event(models("default"), t);
    app.handle_key(ctrl('q'), t);
    type_text(&mut app, "x", t);
    assert_eq!(app.input(), "x");
}

#[test]
fn message_selector_keys_pick_the_rewind_point() {
    let clock = Clock::new();
    let t = clock.at(0);
    let mut app = bound(json!([{"context": "MessageSelector", "bindings": {
        "enter": null,
        "space": "messageSelector:select"
    }}]));
    app.handle_event(rewind_points(), t);
    // Enter unbound among the prompts (MessageSelector comes before
    // Select): nothing; what to restore is a plain list (Select's Enter).
    app.handle_key(key(KeyCode::Enter), t);
    // `k` is a default (up), `shift+j` the bottom: the newest prompt.
    app.handle_key(key(KeyCode::Char('k')), t);
    app.handle_key(with(KeyCode::Char('J'), KeyModifiers::SHIFT), t);
    app.handle_key(key(KeyCode::Char(' ')), t);
    // The newest prompt has no checkpoint: conversation first.
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), t),
        vec![UiAction::Rewind {
            id: "p2".into(),
            restore: Restore::Conversation
        }]
    );
    // `shift+k`: the top (the oldest prompt, with its code).
    app.handle_event(rewind_points(), t);
    app.handle_key(with(KeyCode::Char('K'), KeyModifiers::SHIFT), t);
    app.handle_key(key(KeyCode::Char(' ')), t);
    app.handle_key(key(KeyCode::Down), t);
    app.handle_key(key(KeyCode::Down), t);
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), t),
        vec![UiAction::Rewind {
            id: "p1".into(),
            restore: Restore::Code
        }]
    );
}

#[test]
fn help_keys_dismiss_the_shortcuts() {
    let clock = Clock::new();
    let t = clock.at(0);
    let mut app = bound(json!([{"context": "Help", "bindings": {
        "escape": null,
        "ctrl+q": "help:dismiss"
    }}]));
    let help = "Ctrl+R history search";
    app.handle_key(key(KeyCode::Char('?')), t);
    assert!(shown(&app).contains(help));
    // Esc unbound in Help: the help stays (and Chat's Esc does not run).
    assert_eq!(app.handle_key(key(KeyCode::Esc), t), vec![]);
    assert!(shown(&app).contains(help));
    app.handle_key(ctrl('q'), t);
    assert!(!shown(&app).contains(help));
    // With the defaults, Esc dismisses it.
    let mut app = bound(json!([]));
    app.handle_key(key(KeyCode::Char('?')), t);
    app.handle_key(key(KeyCode::Esc), t);
    assert!(!shown(&app).contains(help));
}

/// Actions and contexts Claude Code added later are accepted (no warning):
/// `select:first`/`select:last` (Home/End) move in the lists, and
/// `chat:queueSubmit` sends the draft even past a completion (not bound by
/// default: Claude Code's Ctrl+X Enter would keep the `ctrl+x` prefix its
/// page shows how to free);
/// the ones tack lacks are said, the contexts it has no screen for read by
/// nothing.
#[test]
fn later_actions_and_contexts() {
    let clock = Clock::new();
    let t = clock.at(0);
    let mut app = bound(json!([
        {"context": "Select", "bindings": {"end": null, "ctrl+e": "select:last"}},
        {"context": "Chat", "bindings": {
            "ctrl+s": "chat:sendNow",
            "ctrl+x enter": "chat:queueSubmit"
        }},
        {"context": "Agents", "bindings": {"ctrl+t": "agents:togglePin"}},
        {"context": "EffortSlider", "bindings": {"s": "effortSlider:thisSessionOnly"}}
    ]));
    app.handle_event(sessions(), t);
    app.handle_key(key(KeyCode::End), t);
    assert_eq!(app.handle_key(key(KeyCode::Enter), t), resumed("aaaa"));
    app.handle_event(sessions(), t);
    app.handle_key(ctrl('e'), t);
    app.handle_key(key(KeyCode::Home), t);
    app.handle_key(ctrl('e'), t);
    assert_eq!(app.handle_key(key(KeyCode::Enter), t), resumed("bbbb"));
    // `/he` opens the completion popup: Enter would complete, Ctrl+X Enter
    // sends what is typed.
    type_text(&mut app, "/he", t);
    assert_eq!(app.handle_key(ctrl('x'), t), vec![]);
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), t),
        vec![UiAction::Submit(Prompt::text("/he"))]
    );
    app.handle_key(ctrl('s'), t);
    assert!(
        shown(&app).contains("chat:sendNow is not available in tack"),
        "{}",
        shown(&app)
    );
    // Agents is no screen of tack's: Ctrl+T still toggles the todos.
    assert_eq!(app.handle_key(ctrl('t'), t), vec![]);
    assert!(!shown(&app).contains("agents:togglePin"), "{}", shown(&app));
}
