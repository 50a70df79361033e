//! The `/plugin` browser: `/plugin` asks the driver for the list; the list
//! opens the browser; Enter installs a plugin not installed and turns an
//! installed one off or on (each a `/plugin <verb> <id>` for the driver,
//! the browser staying open on the same row when the new list comes back);
//! typing filters; Esc closes.

use crate::common;

use common::{Clock, Screen, app, key, type_text};
use crossterm::event::KeyCode;
use pretty_assertions::assert_eq;
use tack_protocol::plugin_catalog::CatalogPlugin;
use tack_tui::{UiAction, UiEvent};

fn plugin(name: &str, installed: bool, enabled: bool) -> CatalogPlugin {
    CatalogPlugin {
        name: name.into(),
        marketplace: "m".into(),
        description: Some(format!("The {name} plugin")),
        version: None,
        installed,
        enabled,
    }
}

fn command(args: &str) -> Vec<UiAction> {
    vec![UiAction::Command {
        name: "plugin".into(),
        args: args.into(),
    }]
}

#[test]
fn the_plugin_browser_installs_disables_and_enables_through_the_driver() {
    let clock = Clock::new();
    let mut app = app(80, 24);
    type_text(&mut app, "/plugin", clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        command("")
    );

    app.handle_event(
        UiEvent::Plugins(vec![
            plugin("docs", false, false),
            plugin("lint", true, true),
        ]),
        clock.at(0),
    );
    let screen = Screen::new().render(&mut app, 80, 24).to_string();
    for row in [
        "❯   docs@m · The docs plugin",
        "  ✔ lint@m · The lint plugin",
        "↑/↓ select · enter install · esc close · ✔ enabled ○ disabled",
    ] {
        assert!(screen.contains(row), "{row:?} not in\n{screen}");
    }
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        command("install docs@m")
    );
    // The driver answers with the new list: the same row stays selected.
    app.handle_event(
        UiEvent::Plugins(vec![plugin("docs", true, true), plugin("lint", true, true)]),
        clock.at(1),
    );
    app.handle_key(key(KeyCode::Down), clock.at(1));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(1)),
        command("disable lint@m")
    );
    app.handle_event(
        UiEvent::Plugins(vec![
            plugin("docs", true, true),
            plugin("lint", true, false),
        ]),
        clock.at(2),
    );
    let screen = Screen::new().render(&mut app, 80, 24).to_string();
    assert!(screen.contains("❯ ○ lint@m"), "{screen}");
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(2)),
        command("enable lint@m")
    );
    // Typing filters; Esc closes and the input is back.
    type_text(&mut app, "docs", clock.at(3));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(3)),
        command("disable docs@m")
    );
    assert_eq!(app.handle_key(key(KeyCode::Esc), clock.at(3)), vec![]);
    type_text(&mut app, "hi", clock.at(4));
    assert_eq!(app.input(), "hi");
}
