//! Keystrokes as `keybindings.json` writes them (`ctrl+k`, `shift+tab`, `K`,
//! `esc`), chords (`ctrl+k ctrl+s`), and the same from a terminal's key
//! event, so the two compare equal.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// One key with its modifiers. Letters are lower case; Shift on a letter is
/// the `shift` flag (`K` is `shift+k`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Keystroke {
    pub key: Key,
    pub ctrl: bool,
    pub alt: bool,
    pub shift: bool,
    pub meta: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    Char(char),
    Escape,
    Enter,
    Tab,
    Space,
    Up,
    Down,
    Left,
    Right,
    Backspace,
    Delete,
    Home,
    End,
    PageUp,
    PageDown,
    F(u8),
}

/// A sequence of keystrokes pressed one after the other.
pub type Chord = Vec<Keystroke>;

impl Keystroke {
    pub fn plain(key: Key) -> Keystroke {
        Keystroke {
            key,
            ctrl: false,
            alt: false,
            shift: false,
            meta: false,
        }
    }

    /// `ctrl+k`, `Shift+Tab`, `K`, `meta+p`. `Err`: what is wrong.
    pub fn parse(text: &str) -> Result<Keystroke, String> {
        let parts: Vec<&str> = text.split('+').collect();
        // `ctrl++` / `+`: the last part is the key even if it is `+`.
        let (mods, key) = match parts.as_slice() {
            [.., "", ""] => (&parts[..parts.len() - 2], "+"),
            [mods @ .., key] => (mods, *key),
            [] => return Err("an empty keystroke".into()),
        };
        let mut k = Keystroke::plain(Key::Space);
        for m in mods {
            match m.to_ascii_lowercase().as_str() {
                "ctrl" | "control" => k.ctrl = true,
                "alt" | "opt" | "option" => k.alt = true,
                "shift" => k.shift = true,
                "meta" | "cmd" | "command" => k.meta = true,
                other => return Err(format!("unknown modifier `{other}` in `{text}`")),
            }
        }
        let mut chars = key.chars();
        k.key = match (chars.next(), chars.next()) {
            (Some(c), None) => {
                // A lone capital letter means Shift; with another modifier
                // the case is style only (`ctrl+K` is `ctrl+k`).
                if c.is_ascii_uppercase() && mods.is_empty() {
                    k.shift = true;
                }
                if c == ' ' {
                    Key::Space
                } else {
                    Key::Char(c.to_ascii_lowercase())
                }
            }
            _ => named(&key.to_ascii_lowercase())
                .ok_or_else(|| format!("unknown key `{key}` in `{text}`"))?,
        };
        Ok(k)
    }

    /// The keystroke a terminal's key event is.
    pub fn from_event(event: &KeyEvent) -> Option<Keystroke> {
        let m = event.modifiers;
        let mut k = Keystroke {
            key: Key::Space,
            ctrl: m.contains(KeyModifiers::CONTROL),
            alt: m.contains(KeyModifiers::ALT),
            shift: m.contains(KeyModifiers::SHIFT),
            meta: m.contains(KeyModifiers::META) || m.contains(KeyModifiers::SUPER),
        };
        k.key = match event.code {
            KeyCode::Char(' ') => Key::Space,
            KeyCode::Char(c) => {
                if c.is_uppercase() {
                    k.shift = true;
                } else if !c.is_alphanumeric() {
                    // `?`, `_`: the character already says Shift.
                    k.shift = false;
                }
                Key::Char(c.to_ascii_lowercase())
            }
            KeyCode::Esc => Key::Escape,
            KeyCode::Enter => Key::Enter,
            KeyCode::Tab => Key::Tab,
            KeyCode::BackTab => {
                k.shift = true;
                Key::Tab
            }
            KeyCode::Up => Key::Up,
            KeyCode::Down => Key::Down,
            KeyCode::Left => Key::Left,
            KeyCode::Right => Key::Right,
            KeyCode::Backspace => Key::Backspace,
            KeyCode::Delete => Key::Delete,
            KeyCode::Home => Key::Home,
            KeyCode::End => Key::End,
            KeyCode::PageUp => Key::PageUp,
            KeyCode::PageDown => Key::PageDown,
            KeyCode::F(n) => Key::F(n),
            _ => return None,
        };
        Some(k)
    }
}

fn named(key: &str) -> Option<Key> {
    Some(match key {
        "escape" | "esc" => Key::Escape,
        "enter" | "return" => Key::Enter,
        "tab" => Key::Tab,
        "space" => Key::Space,
        "up" => Key::Up,
        "down" => Key::Down,
        "left" => Key::Left,
        "right" => Key::Right,
        "backspace" => Key::Backspace,
        "delete" => Key::Delete,
        "home" => Key::Home,
        "end" => Key::End,
        "pageup" => Key::PageUp,
        "pagedown" => Key::PageDown,
        f if f.starts_with('f') => Key::F(f[1..].parse().ok().filter(|n| (1..=24).contains(n))?),
        _ => return None,
    })
}

/// A keystroke as a file writes it (`ctrl+shift+k`, `escape`).
pub fn written(k: &Keystroke) -> String {
    let mut out = String::new();
    for (on, name) in [
        (k.ctrl, "ctrl+"),
        (k.alt, "alt+"),
        (k.shift, "shift+"),
        (k.meta, "meta+"),
    ] {
        if on {
            out.push_str(name);
        }
    }
    let key = match k.key {
        Key::Char(c) => c.to_string(),
        Key::F(n) => format!("f{n}"),
        Key::Escape => "escape".into(),
        Key::Enter => "enter".into(),
        Key::Tab => "tab".into(),
        Key::Space => "space".into(),
        Key::Up => "up".into(),
        Key::Down => "down".into(),
        Key::Left => "left".into(),
        Key::Right => "right".into(),
        Key::Backspace => "backspace".into(),
        Key::Delete => "delete".into(),
        Key::Home => "home".into(),
        Key::End => "end".into(),
        Key::PageUp => "pageup".into(),
        Key::PageDown => "pagedown".into(),
    };
    out + &key
}

/// `ctrl+k ctrl+s`: keystrokes separated by spaces.
pub fn parse_chord(text: &str) -> Result<Chord, String> {
    let chord = text
        .split_whitespace()
        .map(Keystroke::parse)
        .collect::<Result<Chord, String>>()?;
    if chord.is_empty() {
        return Err("an empty keystroke".into());
    }
    Ok(chord)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn k(key: Key, ctrl: bool, shift: bool) -> Keystroke {
        Keystroke {
            ctrl,
            shift,
            ..Keystroke::plain(key)
        }
    }

    #[test]
    fn the_documented_syntax() {
        assert_eq!(
            Keystroke::parse("ctrl+k"),
            Ok(k(Key::Char('k'), true, false))
        );
        assert_eq!(
            Keystroke::parse("control+K"),
            Ok(k(Key::Char('k'), true, false))
        );
        assert_eq!(Keystroke::parse("K"), Ok(k(Key::Char('k'), false, true)));
        assert_eq!(Keystroke::parse("shift+tab"), Ok(k(Key::Tab, false, true)));
        assert_eq!(Keystroke::parse("esc"), Ok(Keystroke::plain(Key::Escape)));
        assert_eq!(Keystroke::parse("return"), Ok(Keystroke::plain(Key::Enter)));
        assert_eq!(
            Keystroke::parse("cmd+p").map(|k| (k.meta, k.key)),
            Ok((true, Key::Char('p')))
        );
        assert_eq!(
            Keystroke::parse("opt+shift+c").map(|k| (k.alt, k.shift, k.key)),
            Ok((true, true, Key::Char('c')))
        );
        assert_eq!(
            parse_chord("ctrl+k  ctrl+s"),
            Ok(vec![
                k(Key::Char('k'), true, false),
                k(Key::Char('s'), true, false)
            ])
        );
        assert_eq!(
            Keystroke::parse("hyper+k"),
            Err("unknown modifier `hyper` in `hyper+k`".into())
        );
        assert_eq!(
            Keystroke::parse("ctrl+banana"),
            Err("unknown key `banana` in `ctrl+banana`".into())
        );
        assert_eq!(parse_chord("  "), Err("an empty keystroke".into()));
    }

    #[test]
    fn terminal_events_compare_equal_to_the_written_form() {
        let ev = |code, mods| Keystroke::from_event(&KeyEvent::new(code, mods));
        assert_eq!(
            ev(KeyCode::BackTab, KeyModifiers::SHIFT),
            Keystroke::parse("shift+tab").ok()
        );
        assert_eq!(
            ev(KeyCode::Char('K'), KeyModifiers::SHIFT),
            Keystroke::parse("K").ok()
        );
        assert_eq!(
            ev(KeyCode::Char('t'), KeyModifiers::CONTROL),
            Keystroke::parse("ctrl+t").ok()
        );
        assert_eq!(
            ev(KeyCode::Char('?'), KeyModifiers::SHIFT),
            Keystroke::parse("?").ok()
        );
        assert_eq!(
            ev(KeyCode::Char(' '), KeyModifiers::NONE),
            Keystroke::parse("space").ok()
        );
        assert_eq!(
            ev(KeyCode::Esc, KeyModifiers::NONE),
            Keystroke::parse("escape").ok()
        );
    }
}
