//! Large pastes shown as `[Pasted text #1 +120 lines]`, expanded on submit.

use std::collections::BTreeMap;

/// Pastes with more lines than this are collapsed.
const COLLAPSE_LINES: usize = 10;
/// Pastes longer than this (bytes) are collapsed whatever their line count.
const COLLAPSE_BYTES: usize = 2_000;

const PREFIX: &str = "[Pasted text #";

/// The collapsed pastes of the prompt being typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pastes {
    next_id: u32,
    texts: BTreeMap<u32, String>,
}

impl Pastes {
    pub fn new() -> Pastes {
        Pastes::default()
    }

    /// What a paste of `text` puts into the editor: the text itself (CR LF made
    /// LF), or a placeholder for a large one.
    pub fn insert(&mut self, text: &str) -> String {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let lines = text.lines().count();
        if lines <= COLLAPSE_LINES && text.len() <= COLLAPSE_BYTES {
            return text;
        }
        self.next_id += 1;
        let id = self.next_id;
        self.texts.insert(id, text);
        format!("{PREFIX}{id} +{lines} lines]")
    }

    /// `input` with every placeholder still present replaced by its text.
    pub fn expand(&self, input: &str) -> String {
        let mut out = String::with_capacity(input.len());
        let mut rest = input;
        while let Some(at) = rest.find(PREFIX) {
            out.push_str(&rest[..at]);
            let candidate = &rest[at..];
            match parse_placeholder(candidate)
                .and_then(|(id, len)| Some((self.texts.get(&id)?, len)))
            {
                Some((text, len)) => {
                    out.push_str(text);
                    rest = &candidate[len..];
                }
                None => {
                    out.push_str(PREFIX);
                    rest = &candidate[PREFIX.len()..];
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// Forgets the pastes (after submit or clear); numbering goes on.
    pub fn clear(&mut self) {
        self.texts.clear();
    }
}

/// `[Pasted text #<id> +<n> lines]` at the start of `s`: (id, byte length).
fn parse_placeholder(s: &str) -> Option<(u32, usize)> {
    let rest = s.strip_prefix(PREFIX)?;
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    let id: u32 = rest[..digits].parse().ok()?;
    let rest2 = rest[digits..].strip_prefix(" +")?;
    let n_digits = rest2.find(|c: char| !c.is_ascii_digit())?;
    if n_digits == 0 {
        return None;
    }
    let tail = &rest2[n_digits..];
    let end = if tail.starts_with(" lines]") {
        " lines]".len()
    } else {
        return None;
    };
    Some((id, PREFIX.len() + digits + 2 + n_digits + end))
}

/// If `before` (the text before the cursor) ends with a placeholder, where it starts.
pub(crate) fn placeholder_before(before: &str) -> Option<usize> {
    let at = before.rfind(PREFIX)?;
    let (_, len) = parse_placeholder(&before[at..])?;
    (at + len == before.len()).then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::editor::Editor;
    use pretty_assertions::assert_eq;

    fn lines(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn small_pastes_stay_inline() {
        let mut p = Pastes::new();
        assert_eq!(p.insert("a\r\nb"), "a\nb");
        assert_eq!(p, Pastes::new());
    }

    #[test]
    fn large_pastes_collapse_and_expand_on_submit() {
        let mut p = Pastes::new();
        let big = lines(120);
        let placeholder = p.insert(&big);
        assert_eq!(placeholder, "[Pasted text #1 +120 lines]");
        let second = p.insert(&lines(11));
        assert_eq!(second, "[Pasted text #2 +11 lines]");
        let typed = format!("fix this:\n{placeholder}\nand {second}");
        assert_eq!(
            p.expand(&typed),
            format!("fix this:\n{big}\nand {}", lines(11))
        );
        // Text that only looks like a placeholder stays as typed.
        assert_eq!(
            p.expand("[Pasted text #9 +1 lines]"),
            "[Pasted text #9 +1 lines]"
        );
    }

    #[test]
    fn backspace_removes_a_placeholder_whole() {
        let mut p = Pastes::new();
        let mut e = Editor::new();
        e.insert_str("see ");
        e.insert_str(&p.insert(&lines(30)));
        e.backspace();
        assert_eq!(e.text(), "see ");
        e.backspace();
        assert_eq!(e.text(), "see");
    }
}
