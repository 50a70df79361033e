//! The shortcuts `?` shows and `/help` lists, with the keys the user's
//! `keybindings.json` gives each action (its own first; an action left
//! with no key is not listed).

use super::App;
use super::screen_keys::CHAT;
use crate::commands::MenuEntry;

/// What the help lists: a fixed key, or an action's keys.
enum Keys {
    Fixed(&'static str),
    Action(&'static str),
}

const SHORTCUTS: &[(Keys, &str)] = &[
    (Keys::Fixed("!"), "shell mode"),
    (Keys::Fixed("#"), "memory"),
    (Keys::Fixed("/"), "commands"),
    (Keys::Fixed("@"), "file paths"),
    (Keys::Action("chat:submit"), "send"),
    (Keys::Fixed("\\⏎"), "newline"),
    (Keys::Action("chat:newline"), "newline"),
    (Keys::Action("chat:cancel"), "interrupt, twice rewind"),
    (Keys::Fixed("Ctrl+C"), "clear, twice exit"),
    (Keys::Fixed("Ctrl+D"), "exit"),
    (Keys::Action("chat:cycleMode"), "permission mode"),
    (Keys::Action("history:search"), "history search"),
    (Keys::Action("app:toggleTranscript"), "transcript"),
    (Keys::Action("chat:externalEditor"), "$EDITOR"),
    (Keys::Action("app:toggleTodos"), "todos"),
    (Keys::Action("chat:modelPicker"), "model picker"),
];

/// Width of the help's first column.
const COLUMN: usize = 23;

impl App {
    /// Each shortcut as `keys what`, in the help's order.
    fn shortcut_items(&self) -> Vec<String> {
        SHORTCUTS
            .iter()
            .filter_map(|(keys, what)| {
                let keys = match keys {
                    Keys::Fixed(k) => (*k).to_owned(),
                    Keys::Action(action) => {
                        let chords = self.keymap.shortcuts(CHAT, action);
                        if chords.is_empty() {
                            return None;
                        }
                        let shown: Vec<String> = chords.iter().take(2).map(|c| shown(c)).collect();
                        shown.join("/")
                    }
                };
                Some(format!("{keys} {what}"))
            })
            .collect()
    }

    /// `?`'s rows: the shortcuts in two columns.
    pub(super) fn help_rows(&self) -> Vec<String> {
        self.shortcut_items()
            .chunks(2)
            .map(|pair| match pair {
                [left, right] => format!("{left:<COLUMN$} · {right}"),
                [left] => left.clone(),
                _ => String::new(),
            })
            .collect()
    }

    /// `/help`: the keys, then every command.
    pub(super) fn help_text(&self, menu: &[MenuEntry]) -> String {
        let mut text = format!("Keys: {}\nCommands:", self.shortcut_items().join(" · "));
        for e in menu {
            text.push_str(&format!("\n  /{} — {}", e.name, e.description));
        }
        text
    }
}

/// A chord as the help shows it: `ctrl+x ctrl+e` → `Ctrl+X Ctrl+E`,
/// `escape` → `Esc`, `shift+tab` → `Shift+Tab`; a lone letter stays as it is.
fn shown(chord: &str) -> String {
    chord
        .split(' ')
        .map(|stroke| {
            let parts: Vec<&str> = stroke.split('+').collect();
            let n = parts.len();
            parts
                .iter()
                .map(|part| match *part {
                    "escape" => "Esc".to_owned(),
                    "pageup" => "PgUp".to_owned(),
                    "pagedown" => "PgDn".to_owned(),
                    // A lone letter stays itself; after a modifier it is capital.
                    p if p.chars().count() == 1 && n > 1 => p.to_uppercase(),
                    p if p.chars().count() == 1 => p.to_owned(),
                    p => {
                        let mut c = p.chars();
                        c.next()
                            .map(|f| f.to_uppercase().chain(c).collect())
                            .unwrap_or_default()
                    }
                })
                .collect::<Vec<_>>()
                .join("+")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn chords_are_shown_as_the_help_writes_keys() {
        assert_eq!(shown("ctrl+x ctrl+e"), "Ctrl+X Ctrl+E");
        assert_eq!(shown("escape"), "Esc");
        assert_eq!(shown("shift+tab"), "Shift+Tab");
        assert_eq!(shown("meta+p"), "Meta+P");
        assert_eq!(shown("q"), "q");
        assert_eq!(shown("enter"), "Enter");
    }
}
