//! `/model`'s picker: what it shows (alias, description, price, the model
//! in use marked) and its keys (arrows move, Enter switches, Esc leaves).

use crate::common;

use common::{Clock, Screen, app, key, type_text};
use crossterm::event::KeyCode;
use insta::assert_snapshot;
use pretty_assertions::assert_eq;
use tack_tui::event::ModelOption;
use tack_tui::{UiAction, UiEvent};

pub(crate) fn models(current: &str) -> UiEvent {
    let option = |alias: &str, model: &str, description: &str, input_usd, output_usd| ModelOption {
        alias: alias.into(),
        model: model.into(),
        description: description.into(),
        input_usd,
        output_usd,
    };
    UiEvent::Models {
        options: vec![
            option(
                "default",
                "claude-opus-5-5",
                "Opus 5.5 (recommended)",
                4.0,
                20.0,
            ),
            option(
                "sonnet",
                "claude-sonnet-5-5",
                "Sonnet 5.5, everyday",
                2.0,
                10.0,
            ),
            option("haiku", "claude-haiku-5-5", "Haiku 5.5, fastest", 0.1, 0.5),
        ],
        current: current.into(),
    }
}

#[test]
fn the_picker_shows_prices_and_marks_the_model_in_use() {
    let clock = Clock::new();
    let mut app = app(80, 20);
    app.handle_event(models("claude-sonnet-5-5"), clock.at(0));
    assert_snapshot!(Screen::new().render(&mut app, 80, 20));
}

#[test]
fn enter_switches_to_the_selected_alias_and_esc_leaves() {
    let clock = Clock::new();
    let mut app = app(80, 20);
    type_text(&mut app, "/model", clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::Command {
            name: "model".into(),
            args: String::new()
        }]
    );
    // The selection starts on the model in use (sonnet), one down is haiku.
    app.handle_event(models("claude-sonnet-5-5"), clock.at(0));
    app.handle_key(key(KeyCode::Down), clock.at(0));
    app.handle_key(key(KeyCode::Down), clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::SetModel("haiku".into())]
    );
    assert_eq!(app.status().model, "haiku");
    // Esc leaves without a switch; the keys go to the input again.
    app.handle_event(models("haiku"), clock.at(0));
    app.handle_key(key(KeyCode::Up), clock.at(0));
    assert_eq!(app.handle_key(key(KeyCode::Esc), clock.at(0)), vec![]);
    type_text(&mut app, "hi", clock.at(0));
    assert_eq!(
        app.handle_key(key(KeyCode::Enter), clock.at(0)),
        vec![UiAction::Submit(tack_tui::Prompt::text("hi"))]
    );
}
