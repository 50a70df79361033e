//! The calls print mode refused, said at the end of a text-mode run (stderr)
//! with how to allow those refused for want of someone to ask. Print mode asks
//! no questions: a call that needs a "yes" is refused, the model is told so
//! and carries on, and the answer it prints may read as if all went well.
//!
//! Exit code: Claude Code's `claude -p` exits 0 here and reports the calls
//! only in `permission_denials` (its users ask for more: anthropics/claude-code
//! issues 76867 and 90578). tack, in text mode (a person or a shell script
//! reading the answer), lists every refused call and exits 1 when one was
//! refused for want of a prompt: the run did not do what it was asked, and a
//! flag would have let it. A call a deny rule or a hook refused is the
//! configuration's decision: listed, exit 0. json and stream-json keep
//! Claude Code's silence and exit 0: their readers have `permission_denials`
//! in the result record, and tools built on Claude Code's exit codes (`tack
//! batch` included) read them that way.

use std::collections::HashMap;

use serde_json::Value;
use tack_protocol::stream_json::PermissionDenial;
use tack_protocol::{ContentBlock, Message};
use tack_runtime::PermissionDenied;

/// Tools whose calls `--permission-mode acceptEdits` allows in the project.
const EDIT_TOOLS: &[&str] = &["Edit", "MultiEdit", "Write", "NotebookEdit"];

/// Why a call was refused.
#[derive(Debug, Clone, PartialEq)]
enum Why {
    /// Nobody could be asked: a flag would allow it.
    NoPrompt,
    /// A deny rule: no flag allows it.
    Rule,
    /// A hook, the mode, the classifier: what the model was told.
    Told(String),
}

/// Every turn's refused calls, once each, and why.
#[derive(Debug, Default)]
pub struct Refusals {
    calls: Vec<PermissionDenial>,
    why: HashMap<String, Why>,
}

impl Refusals {
    /// A turn's `permission_denials`.
    pub fn turn(&mut self, denials: &[PermissionDenial]) {
        for denial in denials {
            if !self
                .calls
                .iter()
                .any(|c| c.tool_use_id == denial.tool_use_id)
            {
                self.calls.push(denial.clone());
            }
        }
    }

    /// The runtime's word on a denial (a sub-agent's too).
    pub fn denied(&mut self, denied: &PermissionDenied) {
        let why = if denied.reason_type == "rule" {
            Why::Rule
        } else if denied.nobody_to_ask {
            Why::NoPrompt
        } else {
            Why::Told(denied.message.clone())
        };
        self.why.insert(denied.tool_use_id.clone(), why);
    }

    /// A turn's tool results: what each refused call's model was told.
    pub fn results(&mut self, message: &Message) {
        for block in &message.content {
            let ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error: true,
                ..
            } = block
            else {
                continue;
            };
            // The runtime's own word ([`Refusals::denied`]) comes first and
            // is kept; a refusal it did not report is what the model was told.
            let text = content.as_ref().map(|c| c.to_text()).unwrap_or_default();
            self.why
                .entry(tool_use_id.clone())
                .or_insert(Why::Told(text));
        }
    }

    /// A call was refused that a flag would have allowed.
    pub fn for_want_of_a_prompt(&self) -> bool {
        self.calls
            .iter()
            .any(|c| self.why.get(&c.tool_use_id) == Some(&Why::NoPrompt))
    }

    /// What the end of the run says: the refused calls, then the flags that
    /// would allow those refused for want of a prompt. Empty when none was
    /// refused.
    pub fn summary(&self) -> Vec<String> {
        if self.calls.is_empty() {
            return Vec::new();
        }
        let n = self.calls.len();
        let mut lines = vec![if n == 1 {
            "tack: 1 tool call was refused:".to_owned()
        } else {
            format!("tack: {n} tool calls were refused:")
        }];
        let mut rules = Vec::new();
        let (mut edits, mut allowable) = (false, false);
        for call in &self.calls {
            let shown = shown(call);
            match self.why.get(&call.tool_use_id) {
                Some(Why::Rule) => {
                    lines.push(format!("  {shown}: a deny rule in the settings refuses it"));
                    continue;
                }
                Some(Why::Told(told)) => {
                    let first = told.lines().next().unwrap_or("");
                    lines.push(format!("  {shown}: {first}"));
                    continue;
                }
                Some(Why::NoPrompt) | None => {}
            }
            lines.push(format!("  {shown}"));
            allowable = true;
            if EDIT_TOOLS.contains(&call.tool_name.as_str()) {
                edits = true;
            } else if let Some(rule) = rule(call).filter(|r| !rules.contains(r)) {
                rules.push(rule);
            }
        }
        let mut ways = Vec::new();
        if !rules.is_empty() {
            ways.push(format!("--allowedTools {}", shell_quote(&rules.join(","))));
        }
        if edits {
            ways.push("--permission-mode acceptEdits (file edits in the project)".to_owned());
        }
        if allowable {
            ways.push("--permission-mode auto (a classifier decides each call)".to_owned());
            lines.push(format!(
                "Print mode cannot ask for permission. To allow them, run again with {}.",
                ways.join(", or ")
            ));
        }
        lines
    }
}

/// `Bash(npm test)`, `Write(/path/a.txt)`, `WebFetch`.
fn shown(call: &PermissionDenial) -> String {
    let arg = ["command", "file_path", "url", "pattern", "path"]
        .iter()
        .find_map(|k| call.tool_input.get(*k).and_then(Value::as_str));
    match arg {
        Some(arg) => {
            let first = arg.lines().next().unwrap_or("");
            let more = if arg.lines().nth(1).is_some() {
                " …"
            } else {
                ""
            };
            format!("{}({first}{more})", call.tool_name)
        }
        None => call.tool_name.clone(),
    }
}

/// The `--allowedTools` rule that allows exactly this call, if one does:
/// `Bash(<the command>)` for a one-line command, the tool's name for a tool
/// with no command.
fn rule(call: &PermissionDenial) -> Option<String> {
    match call.tool_input.get("command").and_then(Value::as_str) {
        Some(command) if command.lines().count() == 1 => {
            Some(format!("{}({command})", call.tool_name))
        }
        Some(_) => None,
        None => Some(call.tool_name.clone()),
    }
}

/// One shell word: as is when it is plain, else in single quotes.
pub fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;
    use tack_protocol::Role;

    fn denial(id: &str, tool: &str, input: Value) -> PermissionDenial {
        PermissionDenial {
            tool_name: tool.into(),
            tool_use_id: id.into(),
            tool_input: input,
        }
    }

    #[test]
    fn the_summary_lists_each_call_once_and_the_flags_that_allow_them() {
        let mut refusals = Refusals::default();
        let bash = denial("t1", "Bash", json!({"command": "npm test"}));
        let write = denial(
            "t2",
            "Write",
            json!({"file_path": "/p/a.txt", "content": ""}),
        );
        let rm = denial("t3", "Bash", json!({"command": "rm -rf /"}));
        let fetch = denial(
            "t4",
            "WebFetch",
            json!({"url": "https://x.test", "prompt": "p"}),
        );
        let hooked = denial("t5", "Bash", json!({"command": "git push"}));
        refusals.turn(&[bash.clone(), write]);
        refusals.turn(&[bash, rm, fetch, hooked]);
        refusals.denied(&PermissionDenied {
            tool_name: "Bash".into(),
            tool_use_id: "t1".into(),
            message: "Claude requested permissions (no permission prompt available)".into(),
            reason_type: "mode".into(),
            nobody_to_ask: true,
            agent_id: None,
        });
        refusals.results(&Message {
            role: Role::User,
            content: vec![
                ContentBlock::tool_result("t1", "what the model was told".to_owned(), true),
                ContentBlock::tool_result(
                    "t5",
                    "Blocked by hook: not on Fridays\nmore".to_owned(),
                    true,
                ),
            ],
        });
        assert!(refusals.for_want_of_a_prompt());
        refusals.denied(&PermissionDenied {
            tool_name: "Bash".into(),
            tool_use_id: "t3".into(),
            message: String::new(),
            reason_type: "rule".into(),
            nobody_to_ask: false,
            agent_id: None,
        });
        assert_eq!(
            refusals.summary(),
            [
                "tack: 5 tool calls were refused:",
                "  Bash(npm test)",
                "  Write(/p/a.txt)",
                "  Bash(rm -rf /): a deny rule in the settings refuses it",
                "  WebFetch(https://x.test)",
                "  Bash(git push): Blocked by hook: not on Fridays",
                "Print mode cannot ask for permission. To allow them, run again with \
                 --allowedTools 'Bash(npm test),WebFetch', \
                 or --permission-mode acceptEdits (file edits in the project), \
                 or --permission-mode auto (a classifier decides each call).",
            ]
        );
    }

    #[test]
    fn calls_only_a_deny_rule_refused_get_no_advice() {
        let mut refusals = Refusals::default();
        refusals.turn(&[denial("t1", "Bash", json!({"command": "a\nb"}))]);
        assert_eq!(
            refusals.summary(),
            [
                "tack: 1 tool call was refused:",
                "  Bash(a …)",
                "Print mode cannot ask for permission. To allow them, run again with \
                 --permission-mode auto (a classifier decides each call).",
            ]
        );
        refusals.denied(&PermissionDenied {
            tool_name: "Bash".into(),
            tool_use_id: "t1".into(),
            message: String::new(),
            reason_type: "rule".into(),
            nobody_to_ask: false,
            agent_id: None,
        });
        assert_eq!(
            refusals.summary(),
            [
                "tack: 1 tool call was refused:",
                "  Bash(a …): a deny rule in the settings refuses it",
            ]
        );
        assert!(!refusals.for_want_of_a_prompt());
        assert!(Refusals::default().summary().is_empty());
    }
}
