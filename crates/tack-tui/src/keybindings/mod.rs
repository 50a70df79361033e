//! Keybindings as Claude Code's `~/.claude/keybindings.json` sets them:
//! contexts, `namespace:action` actions and chords over tack's defaults.
//! The terminal UI asks [`Keymap::resolve`] which action a key press is, in
//! the contexts active at the time (the completion popup's first); keys no
//! action claims are the editor's.

pub(crate) mod actions;
mod file;
mod keystroke;

use std::path::Path;

pub use actions::{ACTIONS, CONTEXTS, DEFAULTS, NOT_APPLICABLE};
pub use file::{Binding, TEMPLATE};
pub use keystroke::{Chord, Key, Keystroke, parse_chord};

/// The bindings in force: the defaults with the user's file over them.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    bindings: Vec<Binding>,
}

/// What a key press is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// The action bound to the keys pressed.
    Action(String),
    /// The start of a chord: wait for the next key.
    Pending,
    /// The user unbound these keys (`null`): they do nothing.
    Unbound,
    /// A chord was started and this key ends no binding: both are dropped.
    Cancelled,
    /// No binding: the key is the editor's.
    Unclaimed,
}

impl Default for Keymap {
    fn default() -> Self {
        let bindings = actions::DEFAULTS
            .iter()
            .filter_map(|(context, chord, action)| {
                Some(Binding {
                    context: (*context).to_owned(),
                    chord: parse_chord(chord).ok()?,
                    action: Some((*action).to_owned()),
                })
            })
            .collect();
        Keymap { bindings }
    }
}

impl Keymap {
    /// The defaults with `overrides` applied in order (each replaces what
    /// its context bound to the same chord).
    pub fn with(overrides: Vec<Binding>) -> Keymap {
        let mut map = Keymap::default();
        for b in overrides {
            map.bindings
                .retain(|d| !(d.context == b.context && d.chord == b.chord));
            map.bindings.push(b);
        }
        map
    }

    /// The defaults with the file at `path` over them, and what was wrong
    /// in it.
    pub fn load(path: &Path) -> (Keymap, Vec<String>) {
        let (overrides, warnings) = file::read(path);
        (Keymap::with(overrides), warnings)
    }

    /// The press of `key` after the chord keys `pending`, in `contexts`
    /// (most specific first).
    pub fn resolve(&self, contexts: &[&str], pending: &[Keystroke], key: Keystroke) -> Resolved {
        let mut keys = pending.to_vec();
        keys.push(key);
        let active = |b: &&Binding| contexts.contains(&b.context.as_str());
        // A longer chord still bound on these keys waits for its next key.
        if self
            .bindings
            .iter()
            .filter(active)
            .any(|b| b.action.is_some() && b.chord.len() > keys.len() && b.chord.starts_with(&keys))
        {
            return Resolved::Pending;
        }
        for context in contexts {
            if let Some(b) = self
                .bindings
                .iter()
                .rev()
                .find(|b| b.context == *context && b.chord == keys)
            {
                return match &b.action {
                    Some(action) => Resolved::Action(action.clone()),
                    None => Resolved::Unbound,
                };
            }
        }
        if pending.is_empty() {
            Resolved::Unclaimed
        } else {
            Resolved::Cancelled
        }
    }

    /// Every chord that does `action` in `contexts` (most specific first),
    /// as written: the user's own bindings first, then the defaults left
    /// bound; a chord a more specific context takes for something else is
    /// left out. For the help.
    pub fn shortcuts(&self, contexts: &[&str], action: &str) -> Vec<String> {
        let mut found: Vec<(bool, String)> = Vec::new();
        for b in &self.bindings {
            if !contexts.contains(&b.context.as_str()) || b.action.as_deref() != Some(action) {
                continue;
            }
            let Some((last, pending)) = b.chord.split_last() else {
                continue;
            };
            if self.resolve(contexts, pending, *last) != Resolved::Action(action.to_owned()) {
                continue;
            }
            let written = b
                .chord
                .iter()
                .map(keystroke::written)
                .collect::<Vec<_>>()
                .join(" ");
            let default = actions::DEFAULTS.iter().any(|(c, chord, a)| {
                *c == b.context && *a == action && parse_chord(chord).ok() == Some(b.chord.clone())
            });
            if !found.iter().any(|(_, w)| *w == written) {
                found.push((default, written));
            }
        }
        // Stable: the user's first, each group in the file's order.
        found.sort_by_key(|(default, _)| *default);
        found.into_iter().map(|(_, w)| w).collect()
    }

    /// The first chord bound to `action` in `context`, as written
    /// (`ctrl+x ctrl+e`), for help texts.
    pub fn shortcut(&self, context: &str, action: &str) -> Option<String> {
        let b = self
            .bindings
            .iter()
            .find(|b| b.context == context && b.action.as_deref() == Some(action))?;
        Some(
            b.chord
                .iter()
                .map(keystroke::written)
                .collect::<Vec<_>>()
                .join(" "),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn key(text: &str) -> Keystroke {
        Keystroke::parse(text).unwrap()
    }

    const CHAT: &[&str] = &["Chat", "Global"];
    const POPUP: &[&str] = &["Autocomplete", "Chat", "Global"];

    #[test]
    fn defaults_and_the_popup_first() {
        let map = Keymap::default();
        let action = |ctx: &[&str], k: &str| map.resolve(ctx, &[], key(k));
        assert_eq!(
            action(CHAT, "ctrl+t"),
            Resolved::Action("app:toggleTodos".into())
        );
        assert_eq!(
            action(CHAT, "up"),
            Resolved::Action("history:previous".into())
        );
        assert_eq!(
            action(POPUP, "up"),
            Resolved::Action("autocomplete:previous".into())
        );
        assert_eq!(
            action(POPUP, "enter"),
            Resolved::Action("chat:submit".into())
        );
        assert_eq!(action(CHAT, "a"), Resolved::Unclaimed);
        // `ctrl+x` starts `ctrl+x ctrl+e`.
        assert_eq!(action(CHAT, "ctrl+x"), Resolved::Pending);
        assert_eq!(
            map.resolve(CHAT, &[key("ctrl+x")], key("ctrl+e")),
            Resolved::Action("chat:externalEditor".into())
        );
        assert_eq!(
            map.resolve(CHAT, &[key("ctrl+x")], key("q")),
            Resolved::Cancelled
        );
        assert_eq!(
            map.shortcut("Chat", "chat:externalEditor"),
            Some("ctrl+g".into())
        );
    }

    #[test]
    fn the_file_rebinds_unbinds_and_frees_a_prefix() {
        let (overrides, warnings) = file::parse(
            r#"{"bindings": [{"context": "Chat", "bindings": {
                "ctrl+g": null,
                "ctrl+e": "chat:externalEditor",
                "ctrl+x ctrl+e": null,
                "ctrl+x": "chat:newline"
            }}, {"context": "Global", "bindings": {"ctrl+k ctrl+t": "app:toggleTodos"}}]}"#,
            "kb.json",
        );
        assert_eq!(warnings, Vec::<String>::new());
        let map = Keymap::with(overrides);
        assert_eq!(map.resolve(CHAT, &[], key("ctrl+g")), Resolved::Unbound);
        assert_eq!(
            map.resolve(CHAT, &[], key("ctrl+e")),
            Resolved::Action("chat:externalEditor".into())
        );
        // Every chord on `ctrl+x` unbound: the prefix is free.
        assert_eq!(
            map.resolve(CHAT, &[], key("ctrl+x")),
            Resolved::Action("chat:newline".into())
        );
        assert_eq!(map.resolve(CHAT, &[], key("ctrl+k")), Resolved::Pending);
        assert_eq!(
            map.resolve(CHAT, &[key("ctrl+k")], key("ctrl+t")),
            Resolved::Action("app:toggleTodos".into())
        );
        // The default on ctrl+t stays (a new binding adds, it does not move).
        assert_eq!(
            map.resolve(CHAT, &[], key("ctrl+t")),
            Resolved::Action("app:toggleTodos".into())
        );
        assert_eq!(
            map.shortcut("Chat", "chat:externalEditor"),
            Some("ctrl+e".into())
        );
    }
}
