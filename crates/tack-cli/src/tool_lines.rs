//! Tool calls and their results as plain lines, as print mode's terminal
//! progress (stderr) and `tack demo`'s piped transcript (stdout) show them:
//! `● Name(summary)` with `  ⎿ …` under it. Each result is printed under its
//! own call (paired by tool_use id, so parallel calls stay paired), drawn by
//! the terminal UI's own cell (`tack_tui::cells::render_call`: an edit as its
//! diff, a Read as `Read N lines`), paths under the project relative to it.
//! The lines may carry the model's text: the writer makes escapes visible.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tack_protocol::{ContentBlock, Message};
use tack_tui::cells::{ToolCall, ToolResult, render_call, summary};
use tack_tui::{Theme, ThemeKind};

/// Wide enough that no line is wrapped here (the terminal wraps).
const NO_WRAP: u16 = 1000;

/// The calls of the last assistant message, waiting for their results.
pub struct ToolLines {
    /// Paths under it are shown relative to it.
    cwd: PathBuf,
    /// (tool_use id, name, input), in call order.
    pending: Vec<(String, String, Value)>,
}

impl ToolLines {
    pub fn new(cwd: &Path) -> ToolLines {
        ToolLines {
            cwd: cwd.to_path_buf(),
            pending: Vec::new(),
        }
    }

    /// Remembers `message`'s tool calls; returns its text blocks.
    pub fn assistant(&mut self, message: &Message) -> Vec<String> {
        let mut texts = Vec::new();
        for block in &message.content {
            match block {
                ContentBlock::Text { text, .. } if !text.trim().is_empty() => {
                    texts.push(text.trim_end().to_owned());
                }
                ContentBlock::ToolUse {
                    id, name, input, ..
                } => self.pending.push((id.clone(), name.clone(), input.clone())),
                _ => {}
            }
        }
        texts
    }

    /// One line naming the calls still waiting (the spinner's status).
    pub fn running(&self) -> Option<String> {
        match self.pending.as_slice() {
            [] => None,
            [(_, name, input)] => Some(format!("Running {}", self.call(name, input))),
            many => Some(format!("Running {} tools", many.len())),
        }
    }

    /// Each call `message` answers, with its result under it: one block of
    /// lines per call.
    pub fn results(&mut self, message: &Message) -> Vec<Vec<String>> {
        let mut blocks = Vec::new();
        for block in &message.content {
            let ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                ..
            } = block
            else {
                continue;
            };
            let Some(at) = self.pending.iter().position(|(id, ..)| id == tool_use_id) else {
                continue;
            };
            let (id, name, input) = self.pending.remove(at);
            let call = ToolCall {
                id,
                name,
                input: self.relative(input),
                result: Some(ToolResult {
                    is_error: *is_error,
                    content: content.as_ref().map(|c| c.to_text()).unwrap_or_default(),
                }),
            };
            let theme = Theme::new(ThemeKind::Dark, false);
            let lines = render_call(&call, &theme, NO_WRAP, false)
                .iter()
                .map(|line| {
                    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
                    // There is no transcript view to expand into here.
                    text.replace(" (ctrl+o to expand)", "")
                        .trim_end()
                        .to_owned()
                })
                .collect();
            blocks.push(lines);
        }
        blocks
    }

    /// `Name(summary)` as the terminal UI shows it.
    fn call(&self, name: &str, input: &Value) -> String {
        summary(name, &self.relative(input.clone()))
    }

    /// The input with a path under the project made relative to it.
    fn relative(&self, mut input: Value) -> Value {
        for key in ["file_path", "path"] {
            let Some(path) = input.get(key).and_then(Value::as_str) else {
                continue;
            };
            if let Ok(rest) = Path::new(path).strip_prefix(&self.cwd)
                && !rest.as_os_str().is_empty()
            {
                input[key] = Value::String(rest.display().to_string());
            }
        }
        input
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;
    use tack_protocol::Role;

    fn message(role: Role, content: Vec<ContentBlock>) -> Message {
        Message { role, content }
    }

    fn result(id: &str, text: &str, is_error: bool) -> ContentBlock {
        ContentBlock::ToolResult {
            tool_use_id: id.into(),
            content: Some(text.to_owned().into()),
            is_error,
            cache_control: None,
        }
    }

    #[test]
    fn each_result_goes_under_its_own_call_whatever_the_order() {
        let mut lines = ToolLines::new(Path::new("/p"));
        let call = |id: &str, command: &str| ContentBlock::ToolUse {
            id: id.into(),
            name: "Bash".into(),
            input: json!({"command": command}),
            cache_control: None,
        };
        let text = ContentBlock::Text {
            text: "Running both.\n".into(),
            citations: None,
            cache_control: None,
        };
        let asked = message(
            Role::Assistant,
            vec![text, call("a", "echo a"), call("b", "false")],
        );
        assert_eq!(lines.assistant(&asked), ["Running both."]);
        assert_eq!(lines.running().as_deref(), Some("Running 2 tools"));
        let answered = message(
            Role::User,
            vec![result("b", "Exit code 1", true), result("a", "a", false)],
        );
        assert_eq!(
            lines.results(&answered),
            [
                vec!["● Bash(false)", "  ⎿  Exit code 1"],
                vec!["● Bash(echo a)", "  ⎿  a"],
            ]
        );
        assert_eq!(lines.running(), None);
    }

    #[test]
    fn a_path_under_the_project_is_shown_relative_to_it() {
        let mut lines = ToolLines::new(Path::new("/p"));
        let read = ContentBlock::ToolUse {
            id: "r".into(),
            name: "Read".into(),
            input: json!({"file_path": "/p/src/a.rs"}),
            cache_control: None,
        };
        lines.assistant(&message(Role::Assistant, vec![read]));
        assert_eq!(lines.running().as_deref(), Some("Running Read(src/a.rs)"));
        let answered = message(Role::User, vec![result("r", "1\tfn a() {}\n", false)]);
        assert_eq!(
            lines.results(&answered),
            [vec!["● Read(src/a.rs)", "  ⎿  Read 1 line"]]
        );
    }
}
