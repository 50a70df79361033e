//! Keys on the screens that take the place of the prompt (the permission
//! and trust dialogs, the pickers, the transcript view) through the
//! keybindings. Each screen has its contexts (Claude Code's names); each
//! dialog's handler reads one key per action (its canonical key: Enter
//! accepts, Esc cancels, ↑/↓ move), so a key bound to an action reaches the
//! handler as that key, an unbound one does not reach it, and a key no
//! binding claims reaches it as it is (typing into a picker's filter, a
//! dialog's own `1`/`y`/`n`).

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{App, Overlay};
use crate::keybindings::{Keystroke, Resolved};

/// The contexts of each screen tack has, most specific first.
pub(crate) const PERMISSION: &[&str] = &["Confirmation"];
pub(crate) const TRANSCRIPT: &[&str] = &["Transcript", "Global"];
pub(crate) const LIST: &[&str] = &["Select"];
pub(crate) const MODEL_PICKER: &[&str] = &["ModelPicker", "Select"];
pub(crate) const PLUGINS: &[&str] = &["Plugin", "Select"];
pub(crate) const REWIND: &[&str] = &["MessageSelector", "Select"];
pub(crate) const HISTORY_SEARCH: &[&str] = &["HistorySearch"];
pub(crate) const HELP: &[&str] = &["Help", "Chat", "Global"];
pub(crate) const CHAT: &[&str] = &["Chat", "Global"];
pub(crate) const POPUP: &[&str] = &["Autocomplete", "Chat", "Global"];

/// What the keybindings make of a key press on a screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ScreenKey {
    /// An action bound to it (or to the chord it ends).
    Action(String),
    /// No binding claims it: the screen's own key.
    Own(KeyEvent),
    /// Nothing happens (unbound, a chord begun or broken).
    Dropped,
}

impl App {
    /// `key` through the bindings of `contexts`, with the chord begun.
    pub(super) fn bound_key(&mut self, contexts: &[&str], key: KeyEvent) -> ScreenKey {
        let Some(stroke) = Keystroke::from_event(&key) else {
            return ScreenKey::Own(key);
        };
        let pending = std::mem::take(&mut self.chord);
        match self.keymap.resolve(contexts, &pending, stroke) {
            Resolved::Action(action) => ScreenKey::Action(action),
            Resolved::Pending => {
                self.chord = pending;
                self.chord.push(stroke);
                ScreenKey::Dropped
            }
            Resolved::Unbound | Resolved::Cancelled => ScreenKey::Dropped,
            Resolved::Unclaimed => ScreenKey::Own(key),
        }
    }

    /// The key the open screen's handler reads for `key`, or `None` when
    /// nothing is to happen. Ctrl+C cancels whatever the bindings say (it
    /// is reserved); a text field being typed into takes every key.
    pub(super) fn screen_key(&mut self, key: KeyEvent, now: Instant) -> Option<KeyEvent> {
        let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            return Some(esc);
        }
        let contexts = match &self.overlay {
            Some(Overlay::Permission(d)) if d.typing() => return Some(key),
            Some(Overlay::Permission(_) | Overlay::Trust(_)) => PERMISSION,
            Some(Overlay::Transcript { .. }) => TRANSCRIPT,
            Some(Overlay::Rewind(p)) if p.choosing_restore() => LIST,
            Some(Overlay::Resume(_) | Overlay::Decisions(_)) => LIST,
            Some(Overlay::Model(_)) => MODEL_PICKER,
            Some(Overlay::Plugins(_)) => PLUGINS,
            Some(Overlay::Rewind(_)) => REWIND,
            None => return Some(key),
        };
        match self.bound_key(contexts, key) {
            ScreenKey::Own(key) => Some(key),
            ScreenKey::Dropped => None,
            ScreenKey::Action(action) => {
                let code = canonical(&action);
                if code.is_none() && !action.starts_with("app:") {
                    // Global's other actions do nothing on a screen, as
                    // before; an action tack lacks is said.
                    self.set_hint(&format!("{action} is not available in tack"), now);
                }
                code.map(|code| KeyEvent::new(code, KeyModifiers::NONE))
            }
        }
    }
}

/// The key a screen's handler reads for `action`, for the actions tack's
/// screens have.
fn canonical(action: &str) -> Option<KeyCode> {
    Some(match action {
        "confirm:yes" | "select:accept" | "messageSelector:select" => KeyCode::Enter,
        "confirm:no" | "select:cancel" | "transcript:exit" | "app:toggleTranscript" => KeyCode::Esc,
        "confirm:previous" | "select:previous" | "messageSelector:up" => KeyCode::Up,
        "confirm:next" | "select:next" | "messageSelector:down" => KeyCode::Down,
        "messageSelector:top" | "select:first" => KeyCode::Home,
        "messageSelector:bottom" | "select:last" => KeyCode::End,
        "confirm:nextField" => KeyCode::Tab,
        "confirm:cycleMode" => KeyCode::BackTab,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keybindings::{CONTEXTS, DEFAULTS, NOT_APPLICABLE};

    /// Every context Claude Code documents is a screen of tack's or listed
    /// as one tack does not have; every default tack binds on a screen
    /// does something there.
    #[test]
    fn every_context_is_wired_or_not_applicable() {
        let wired = [
            PERMISSION,
            TRANSCRIPT,
            LIST,
            MODEL_PICKER,
            PLUGINS,
            REWIND,
            HISTORY_SEARCH,
            HELP,
            CHAT,
            POPUP,
        ]
        .concat();
        let unplaced: Vec<&str> = CONTEXTS
            .iter()
            .copied()
            .filter(|c| !wired.contains(c) && !NOT_APPLICABLE.contains(c))
            .collect();
        assert_eq!(unplaced, Vec::<&str>::new());
        let both: Vec<&str> = NOT_APPLICABLE
            .iter()
            .copied()
            .filter(|c| wired.contains(c))
            .collect();
        assert_eq!(both, Vec::<&str>::new());
        let screens = ["Confirmation", "Transcript", "Select", "MessageSelector"];
        let dead: Vec<&str> = DEFAULTS
            .iter()
            .filter(|(context, _, action)| screens.contains(context) && canonical(action).is_none())
            .map(|(_, _, action)| *action)
            .collect();
        assert_eq!(dead, Vec::<&str>::new());
    }
}
