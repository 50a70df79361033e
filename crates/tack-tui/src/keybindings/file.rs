//! `~/.claude/keybindings.json`: `{"$schema"?, "$docs"?, "bindings": [{"context",
//! "bindings": {"<chord>": "<action>" | null}}]}`. Everything wrong in it is a
//! warning naming what and where; what is right still applies, and a file
//! that cannot be read at all leaves the defaults.

use std::io::ErrorKind;
use std::path::Path;

use serde_json::Value;

use super::actions::{ACTIONS, CONFLICTS, CONTEXTS, RESERVED};
use super::keystroke::{Chord, Keystroke, parse_chord};

/// One binding the file asks for: `action` `None` unbinds the chord.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub context: String,
    pub chord: Chord,
    pub action: Option<String>,
}

/// A file larger than this is not a keybindings file.
const MAX_BYTES: u64 = 1 << 20;

/// Reads the file at `path`: no file is no bindings and no warning. Read
/// as a file others may have put there is (a regular file, opened so that a
/// FIFO swapped in cannot block, at most 1 MiB however it grows meanwhile).
pub fn read(path: &Path) -> (Vec<Binding>, Vec<String>) {
    let shown = path.display();
    match tack_sys::read_config_file(path, MAX_BYTES) {
        Ok(text) => parse(&text, &shown.to_string()),
        Err(e) if tack_sys::config_file::is_missing(&e) => (Vec::new(), Vec::new()),
        Err(e) if matches!(e.kind(), ErrorKind::InvalidInput | ErrorKind::InvalidData) => (
            Vec::new(),
            vec![format!(
                "{shown}: not a keybindings file ({e}); the default shortcuts apply"
            )],
        ),
        Err(e) => (
            Vec::new(),
            vec![format!("{shown}: {e}; the default shortcuts apply")],
        ),
    }
}

/// Parses the file's text (`name` is how warnings call the file).
pub fn parse(text: &str, name: &str) -> (Vec<Binding>, Vec<String>) {
    let mut warnings = Vec::new();
    let root: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return (
                Vec::new(),
                vec![format!(
                    "{name}: invalid JSON ({e}); the default shortcuts apply"
                )],
            );
        }
    };
    let Some(blocks) = root.get("bindings").and_then(Value::as_array) else {
        return (
            Vec::new(),
            vec![format!(
                "{name}: no `bindings` array; the default shortcuts apply"
            )],
        );
    };
    let mut out: Vec<Binding> = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let Some(context) = block.get("context").and_then(Value::as_str) else {
            warnings.push(format!("{name}: bindings[{i}] has no `context`"));
            continue;
        };
        if !CONTEXTS.contains(&context) {
            warnings.push(format!(
                "{name}: bindings[{i}]: unknown context `{context}` (one of {})",
                CONTEXTS.join(", ")
            ));
            continue;
        }
        let Some(map) = block.get("bindings").and_then(Value::as_object) else {
            warnings.push(format!(
                "{name}: bindings[{i}] ({context}) has no `bindings` object"
            ));
            continue;
        };
        for (keys, action) in map {
            let at = format!("{name}: {context} `{keys}`");
            let chord = match parse_chord(keys) {
                Ok(c) => c,
                Err(e) => {
                    warnings.push(format!("{at}: {e}"));
                    continue;
                }
            };
            let action = match action {
                Value::Null => None,
                Value::String(a) if ACTIONS.contains(&a.as_str()) => Some(a.clone()),
                Value::String(a) => {
                    warnings.push(format!("{at}: unknown action `{a}`"));
                    continue;
                }
                _ => {
                    warnings.push(format!("{at}: an action is a string, or null to unbind"));
                    continue;
                }
            };
            if let Some(why) = lookup(RESERVED, &chord) {
                warnings.push(format!("{at}: reserved, {why}; not rebound"));
                continue;
            }
            if let Some(what) = lookup(CONFLICTS, &chord) {
                warnings.push(format!("{at}: may not reach tack: it is {what}"));
            }
            if out.iter().any(|b| b.context == context && b.chord == chord) {
                warnings.push(format!(
                    "{at}: bound twice in {context}; the last one applies"
                ));
                out.retain(|b| !(b.context == context && b.chord == chord));
            }
            out.push(Binding {
                context: context.to_owned(),
                chord,
                action,
            });
        }
    }
    (out, warnings)
}

/// The note for a one-key chord listed in `table`.
fn lookup(table: &[(&str, &'static str)], chord: &Chord) -> Option<&'static str> {
    let [stroke] = chord.as_slice() else {
        return None;
    };
    table
        .iter()
        .find(|(k, _)| Keystroke::parse(k).as_ref() == Ok(stroke))
        .map(|(_, why)| *why)
}

/// The file `/keybindings` creates: Claude Code's template, no bindings.
pub const TEMPLATE: &str = r#"{
  "$schema": "https://www.schemastore.org/claude-code-keybindings.json",
  "$docs": "https://code.claude.com/docs/en/keybindings",
  "bindings": []
}
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn chord(text: &str) -> Chord {
        parse_chord(text).unwrap()
    }

    #[test]
    fn the_documented_example_binds_and_unbinds() {
        let (bindings, warnings) = parse(
            r#"{"$schema": "x", "$docs": "y", "bindings": [
                {"context": "Chat", "bindings": {"ctrl+e": "chat:externalEditor", "ctrl+u": null}},
                {"context": "Global", "bindings": {"ctrl+k ctrl+t": "app:toggleTodos"}}
            ]}"#,
            "kb.json",
        );
        assert_eq!(warnings, Vec::<String>::new());
        assert_eq!(
            bindings,
            vec![
                Binding {
                    context: "Chat".into(),
                    chord: chord("ctrl+e"),
                    action: Some("chat:externalEditor".into())
                },
                Binding {
                    context: "Chat".into(),
                    chord: chord("ctrl+u"),
                    action: None
                },
                Binding {
                    context: "Global".into(),
                    chord: chord("ctrl+k ctrl+t"),
                    action: Some("app:toggleTodos".into())
                },
            ]
        );
    }

    #[test]
    fn each_mistake_is_a_warning_and_the_rest_applies() {
        let (bindings, mut warnings) = parse(
            r#"{"bindings": [
                {"context": "Chatt", "bindings": {"ctrl+e": "chat:externalEditor"}},
                {"bindings": {}},
                {"context": "Chat", "bindings": {
                    "ctrl+b": "chat:stash",
                    "ctrl+c": "chat:submit",
                    "ctrl+k": "chat:stash",
                    "ctrl+w": 3,
                    "ctrl+y": "chat:frobnicate",
                    "hyper+q": "chat:stash"
                }},
                {"context": "Chat", "bindings": {"control+k": "chat:undo"}}
            ]}"#,
            "kb.json",
        );
        // serde_json's map may be sorted or in file order: compare sorted.
        warnings.sort();
        assert_eq!(
            warnings,
            vec![
                "kb.json: Chat `control+k`: bound twice in Chat; the last one applies".to_string(),
                "kb.json: Chat `ctrl+b`: may not reach tack: it is tmux's prefix (press it twice to send it)".into(),
                "kb.json: Chat `ctrl+c`: reserved, it interrupts and cancels; not rebound".into(),
                "kb.json: Chat `ctrl+w`: an action is a string, or null to unbind".into(),
                "kb.json: Chat `ctrl+y`: unknown action `chat:frobnicate`".into(),
                "kb.json: Chat `hyper+q`: unknown modifier `hyper` in `hyper+q`".into(),
                format!("kb.json: bindings[0]: unknown context `Chatt` (one of {})", CONTEXTS.join(", ")),
                "kb.json: bindings[1] has no `context`".to_string(),
            ]
        );
        let bound: Vec<(&str, Option<&str>)> = bindings
            .iter()
            .map(|b| (b.context.as_str(), b.action.as_deref()))
            .collect();
        assert_eq!(
            bound,
            vec![("Chat", Some("chat:stash")), ("Chat", Some("chat:undo"))]
        );
        assert_eq!(bindings[1].chord, chord("ctrl+k"));
    }

    #[test]
    fn a_broken_or_missing_file() {
        assert_eq!(
            parse("{ not json", "kb.json").1,
            vec!["kb.json: invalid JSON (key must be a string at line 1 column 3); the default shortcuts apply".to_string()]
        );
        assert_eq!(
            parse(r#"{"bindings": {}}"#, "kb.json").1,
            vec!["kb.json: no `bindings` array; the default shortcuts apply".to_string()]
        );
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            read(&dir.path().join("none.json")),
            (Vec::new(), Vec::new())
        );
        assert_eq!(
            read(dir.path()).1,
            vec![format!(
                "{}: not a keybindings file (it is a directory, not a regular file); the default shortcuts apply",
                dir.path().display()
            )]
        );
        // A FIFO is refused, not waited on; a file over 1 MiB is not read.
        let fifo = dir.path().join("fifo.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let huge = dir.path().join("huge.json");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(MAX_BYTES + 1)
            .unwrap();
        assert_eq!(
            [read(&fifo).1, read(&huge).1],
            [
                vec![format!(
                    "{}: not a keybindings file (it is a FIFO (named pipe), not a regular file); the default shortcuts apply",
                    fifo.display()
                )],
                vec![format!(
                    "{}: not a keybindings file (it is larger than 1 MB); the default shortcuts apply",
                    huge.display()
                )]
            ]
        );
        let (bindings, warnings) = parse(TEMPLATE, "t");
        assert_eq!((bindings, warnings), (Vec::new(), Vec::new()));
    }
}
