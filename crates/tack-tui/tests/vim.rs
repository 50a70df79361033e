//! Vim mode in the prompt (`/vim`), and the help naming the user's keys.

use crate::common;

use common::{Clock, app, ctrl, key, notices, type_text};
use crossterm::event::KeyCode;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_tui::input::VimMode;
use tack_tui::keybindings::Keymap;
use tack_tui::{App, Prompt, UiAction};

fn bound(app: &mut App, bindings: Value) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keybindings.json");
    std::fs::write(&path, json!({ "bindings": bindings }).to_string()).unwrap();
    let (keymap, warnings) = Keymap::load(&path);
    assert_eq!(warnings, Vec::<String>::new());
    app.set_keymap(keymap);
}

/// The live area's rows, trimmed.
fn rows(app: &App) -> Vec<String> {
    common::live_rows(app, 60, 30)
}

fn footer(app: &App) -> String {
    rows(app)
        .into_iter()
        .skip_while(|r| !r.starts_with('╰'))
        .nth(1)
        .unwrap_or_default()
}

fn press(app: &mut App, keys: &str, clock: &Clock) -> Vec<UiAction> {
    let mut actions = Vec::new();
    for c in keys.chars() {
        let code = if c == '\u{1b}' {
            KeyCode::Esc
        } else {
            KeyCode::Char(c)
        };
        actions.extend(app.handle_key(key(code), clock.at(0)));
    }
    actions
}

#[test]
fn slash_vim_toggles_it_and_says_so() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    assert_eq!(app.vim_mode(), None);
    type_text(&mut app, "/vim", clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::SetEditorMode { vim: true }]
    );
    assert_eq!(app.vim_mode(), Some(VimMode::Insert));
    type_text(&mut app, "/vim", clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::SetEditorMode { vim: false }]
    );
    assert_eq!(app.vim_mode(), None);
    assert_eq!(
        notices(&app),
        vec![
            "Editor mode set to vim. Use Escape key to toggle between INSERT and NORMAL modes.",
            "Editor mode set to normal. Using standard (readline) keyboard bindings.",
        ]
    );
}

#[test]
fn normal_mode_edits_and_enter_submits_from_it() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    app.set_vim(true);
    type_text(&mut app, "fix the tests now", clock.at(0));
    // Esc is NORMAL, not `chat:cancel` (no "Esc again" hint, no rewind).
    assert_eq!(press(&mut app, "\u{1b}", &clock), vec![]);
    assert_eq!(app.vim_mode(), Some(VimMode::Normal));
    assert!(!footer(&app).contains("Esc again"), "{}", footer(&app));
    press(&mut app, "bdb0cwmend\u{1b}", &clock);
    assert_eq!(app.input(), "mend the now");
    press(&mut app, "$ciwbuild\u{1b}", &clock);
    assert_eq!(app.input(), "mend the build");
    press(&mut app, "u", &clock);
    assert_eq!(app.input(), "mend the now");
    // Enter sends the prompt from NORMAL; the mode stays.
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::Submit(Prompt::text("mend the now"))]
    );
    assert_eq!(app.vim_mode(), Some(VimMode::Normal));
}

#[test]
fn insert_mode_keeps_the_keybindings_and_the_editor_keys() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    app.set_vim(true);
    bound(
        &mut app,
        json!([{"context": "Chat", "bindings": {"ctrl+s": "chat:submit"}}]),
    );
    type_text(&mut app, "one two", clock.at(0));
    // The editor's Ctrl+W, and a Chat binding, in INSERT.
    app.handle_key(ctrl('w'), clock.at(0));
    assert_eq!(app.input(), "one ");
    assert_eq!(
        app.handle_key(ctrl('s'), clock.at(0)),
        vec![UiAction::Submit(Prompt::text("one "))]
    );
    // Ctrl keys are the keybindings' in NORMAL too.
    press(&mut app, "\u{1b}", &clock);
    assert_eq!(
        app.handle_key(ctrl('g'), clock.at(0)),
        vec![UiAction::OpenExternalEditor {
            text: String::new()
        }]
    );
}

#[test]
fn normal_mode_keys_reach_history_search_and_help() {
    let clock = Clock::new();
    let mut app = app(60, 30);
    app.set_vim(true);
    press(&mut app, "\u{1b}", &clock);
    // `k` on the first line is ↑: the history.
    press(&mut app, "k", &clock);
    assert_eq!(app.input(), "earlier prompt");
    press(&mut app, "k", &clock);
    assert_eq!(app.input(), "run the tests");
    press(&mut app, "j", &clock);
    assert_eq!(app.input(), "earlier prompt");
    // `/` is Ctrl+R's search.
    press(&mut app, "/", &clock);
    assert!(
        rows(&app).iter().any(|r| r.contains("(reverse-i-search)")),
        "{:?}",
        rows(&app)
    );
    app.handle_key(ctrl('c'), clock.at(0));
    press(&mut app, "?", &clock);
    assert!(
        rows(&app)
            .iter()
            .any(|r| r.contains("Ctrl+R history search"))
    );
    // Esc with nothing pending in NORMAL is `chat:cancel` again.
    press(&mut app, "\u{1b}", &clock);
    assert!(
        !rows(&app)
            .iter()
            .any(|r| r.contains("Ctrl+R history search"))
    );
}

#[test]
fn the_insert_indicator_shows_unless_hidden() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    assert_eq!(footer(&app), "  ? for shortcuts");
    app.set_vim(true);
    assert_eq!(footer(&app), "  -- INSERT --");
    press(&mut app, "\u{1b}", &clock);
    // NORMAL shows no indicator, as in Claude Code.
    assert_eq!(footer(&app), "  ? for shortcuts");
    press(&mut app, "i", &clock);
    assert_eq!(footer(&app), "  -- INSERT --");
    app.handle_key(
        common::with(KeyCode::BackTab, crossterm::event::KeyModifiers::SHIFT),
        clock.at(0),
    );
    app.handle_event(
        tack_tui::UiEvent::ModeSet(tack_protocol::PermissionMode::AcceptEdits),
        clock.at(0),
    );
    assert_eq!(
        footer(&app),
        "  -- INSERT -- ⏵⏵ accept edits on (shift+tab to cycle)"
    );
    app.hide_vim_indicator(true);
    assert_eq!(footer(&app), "  ⏵⏵ accept edits on (shift+tab to cycle)");
}

#[test]
fn the_help_names_the_users_keys() {
    let clock = Clock::new();
    let mut app = app(60, 30);
    bound(
        &mut app,
        json!([
            {"context": "Chat", "bindings": {
                "ctrl+g": null,
                "ctrl+x ctrl+e": null,
                "ctrl+e": "chat:externalEditor",
                "meta+p": null
            }},
            {"context": "Global", "bindings": {"ctrl+t": null, "ctrl+k": "app:toggleTodos"}}
        ]),
    );
    press(&mut app, "?", &clock);
    // The rows between the prompt and the footer.
    let help: Vec<String> = rows(&app)
        .into_iter()
        .skip_while(|r| !r.starts_with('╰'))
        .skip(1)
        .take(7)
        .collect();
    assert_eq!(
        help,
        vec![
            "  ! shell mode            · # memory",
            "  / commands              · @ file paths",
            "  Enter send              · \\⏎ newline",
            "  Esc interrupt, twice rewind · Ctrl+C clear, twice exit",
            "  Ctrl+D exit             · Shift+Tab permission mode",
            "  Ctrl+R history search   · Ctrl+O transcript",
            "  Ctrl+E $EDITOR          · Ctrl+K todos",
        ]
    );
    // `/help` says the same keys.
    press(&mut app, "\u{1b}", &clock);
    type_text(&mut app, "/help", clock.at(0));
    app.handle_key(key(KeyCode::Enter), clock.at(0));
    let text = notices(&app).pop().unwrap();
    let keys = text.lines().next().unwrap();
    assert_eq!(
        keys,
        "Keys: ! shell mode · # memory · / commands · @ file paths · Enter send · \\⏎ newline · \
         Esc interrupt, twice rewind · Ctrl+C clear, twice exit · Ctrl+D exit · \
         Shift+Tab permission mode · Ctrl+R history search · Ctrl+O transcript · \
         Ctrl+E $EDITOR · Ctrl+K todos"
    );
}

#[test]
fn visual_mode_shows_its_indicator_and_deletes_the_selection() {
    let clock = Clock::new();
    let mut app = app(60, 20);
    app.set_vim(true);
    type_text(&mut app, "one two", clock.at(0));
    press(&mut app, "\u{1b}0v", &clock);
    assert_eq!(app.vim_mode(), Some(VimMode::Visual));
    assert_eq!(footer(&app), "  -- VISUAL --");
    press(&mut app, "\u{1b}V", &clock);
    assert_eq!(footer(&app), "  -- VISUAL LINE --");
    press(&mut app, "v", &clock);
    assert_eq!(footer(&app), "  -- VISUAL --");
    press(&mut app, "ed", &clock);
    assert_eq!(app.vim_mode(), Some(VimMode::Normal));
    assert_eq!(footer(&app), "  ? for shortcuts");
    assert!(
        rows(&app).iter().any(|r| r.starts_with("│ >  two")),
        "{:#?}",
        rows(&app)
    );
}
