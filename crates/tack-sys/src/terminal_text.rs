//! Text from a model, a tool, a file or a configuration, made safe to write to
//! a terminal. Escape sequences in such text can retitle the window, write the
//! clipboard (OSC 52) or hide part of a line, and bidi overrides (U+202E) can
//! show a line in an order other than the one it has. What is shown must be
//! what the text is, so nothing is dropped: every control character is made
//! visible and every bidi control is replaced by a visible name.

use std::borrow::Cow;

/// `text` with each control character but `\n` and `\t` shown as its Unicode
/// control picture (ESC as `␛`, BEL as `␇`, DEL as `␡`), C1 controls and bidi
/// controls as `<U+XXXX>`. Borrowed when there is nothing to replace.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_replacing) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            '\0'..='\x1f' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?')),
            '\x7f' => out.push('\u{2421}'),
            c if needs_replacing(c) => out.push_str(&format!("<U+{:04X}>", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether `text` has a character [`visible`] would replace (`\n` and `\t`
/// included when `strict`: a single-line value such as a file path or a rule).
pub fn has_control(text: &str, strict: bool) -> bool {
    text.chars()
        .any(|c| needs_replacing(c) || (strict && matches!(c, '\n' | '\t')))
}

fn needs_replacing(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\0'..='\x1f' | '\x7f'..='\u{9f}' => true,
        // Bidi embeddings, overrides, isolates and marks.
        '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{061c}' => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn control_characters_and_bidi_overrides_are_made_visible() {
        assert_eq!(
            visible("echo hello\x1b]0; touch PWNED; true\x07\n\tok\x7f\u{9b}2J \u{202e}fdp.exe"),
            "echo hello␛]0; touch PWNED; true␇\n\tok␡<U+009B>2J <U+202E>fdp.exe"
        );
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(visible("ls -la\n\té"), Cow::Borrowed(_)));
        assert_eq!(
            (has_control("a\tb", false), has_control("a\tb", true)),
            (false, true)
        );
    }
}
