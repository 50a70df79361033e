//! The session's events as ACP `session/update`s: text and thinking as
//! message and thought chunks while they stream, each tool call once
//! (`tool_call`, pending) and its end (`tool_call_update`, completed or
//! failed, with its output), a TodoWrite list as the `plan`; a call and its
//! end name their tool as the adapter's do (`_meta.claudeCode.toolName`).
//! A sub-agent's calls and results are sent as the main thread's, marked
//! with the Agent call they belong to as the adapter marks them
//! (`_meta.claudeCode.parentToolUseId`); its text is not (stream-json shows
//! none of it either). A conversation read back (`session/load`) goes
//! through the same translation.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use agent_client_protocol::v1::schema::{Cost, SessionUpdate, UsageUpdate};
use serde_json::{Value, json};
use tack_protocol::sse::Delta;
use tack_protocol::stream_json::ResultRecord;
use tack_protocol::{ContentBlock, Message, Role, SseEvent};
use tack_runtime::{LoopEvent, PermissionRequest, RuntimeEvent, SubagentEvent, ToolResultsEvent};

use crate::tool_call;

/// One session's translation state: the calls announced so far.
#[derive(Debug)]
pub struct Translator {
    cwd: PathBuf,
    /// Tool calls announced, by id, and their tool's name.
    calls: HashMap<String, String>,
    /// Calls shown as a terminal of the editor's: their end keeps it.
    terminals: HashSet<String>,
    /// Sub-agents seen, by id: the Agent call each belongs to.
    subagents: HashMap<String, String>,
    /// The context the last assistant message of the main thread used
    /// (its input, cache and output tokens).
    used: Option<u64>,
}

impl Translator {
    pub fn new(cwd: PathBuf) -> Translator {
        Translator {
            cwd,
            calls: HashMap::new(),
            terminals: HashSet::new(),
            subagents: HashMap::new(),
            used: None,
        }
    }

    /// The updates `event` makes (permission requests and turn ends are the
    /// session's to handle: none here).
    pub fn event(&mut self, event: &RuntimeEvent) -> Vec<Value> {
        let event = match event {
            RuntimeEvent::Loop(event) => event,
            RuntimeEvent::Subagent(sub) => return self.subagent(sub),
            _ => return Vec::new(),
        };
        match event {
            LoopEvent::Stream(SseEvent::ContentBlockDelta { delta, .. }) => match delta {
                Delta::TextDelta { text } => vec![chunk("agent_message_chunk", text)],
                Delta::ThinkingDelta { thinking } => vec![chunk("agent_thought_chunk", thinking)],
                _ => Vec::new(),
            },
            LoopEvent::AssistantMessage(message) => {
                let u = &message.usage;
                self.used = Some(
                    u.input_tokens
                        + u.output_tokens
                        + u.cache_read_input_tokens
                        + u.cache_creation_input_tokens,
                );
                self.message(&message.message, true)
            }
            LoopEvent::ToolResults(results) => self.results(results),
            _ => Vec::new(),
        }
    }

    /// The ends of the calls `results` answers. A notebook edit shows the
    /// notebook before and after as its diff (its result carries both).
    fn results(&mut self, results: &ToolResultsEvent) -> Vec<Value> {
        let mut updates = self.message(&results.message, true);
        for info in &results.results {
            let diff = (info.structured.as_ref())
                .filter(|_| info.tool_name == "NotebookEdit" && !info.is_error)
                .and_then(tool_call::notebook_diff);
            let ended = updates.iter_mut().find(|u| {
                u["sessionUpdate"] == "tool_call_update" && u["toolCallId"] == info.tool_use_id
            });
            if let (Some(diff), Some(ended)) = (diff, ended) {
                ended["content"] = json!([diff]);
            }
        }
        updates
    }

    /// A sub-agent's calls and their results, marked with its Agent call;
    /// its text and usage are the sub-agent's own (the adapter shows
    /// neither).
    fn subagent(&mut self, sub: &SubagentEvent) -> Vec<Value> {
        let parent = &sub.parent_tool_use_id;
        (self.subagents).insert(sub.agent_id.clone(), parent.clone());
        let updates = match &sub.event {
            LoopEvent::AssistantMessage(message) => self.message(&message.message, true),
            LoopEvent::ToolResults(results) => self.results(results),
            _ => Vec::new(),
        };
        updates.into_iter().map(|u| under(u, parent)).collect()
    }

    /// The `usage_update` at a turn's end, as Claude Code's adapter sends
    /// it: the context the last answer used, the smallest context window
    /// of the models the turn used (200k when it used none), the session's
    /// cost. None when no answer came.
    pub fn usage(&mut self, record: &ResultRecord) -> Option<SessionUpdate> {
        let used = self.used?;
        let windows = record.model_usage.values().map(|m| m.context_window);
        let size = windows.min().unwrap_or(200_000);
        let cost = Cost::new(record.total_cost_usd, "USD");
        Some(SessionUpdate::UsageUpdate(
            UsageUpdate::new(used, size).cost(cost),
        ))
    }

    /// The `tool_call` for a call about to ask permission, if it was not
    /// announced yet (tools start while the message still streams).
    pub fn before_permission(&mut self, request: &PermissionRequest) -> Option<Value> {
        let call = self.announce(&request.tool_use_id, &request.tool_name, &request.input)?;
        let agent = request.agent.as_ref().map(|a| &a.id);
        Some(match agent.and_then(|id| self.subagents.get(id)) {
            Some(parent) => under(call, parent),
            None => call,
        })
    }

    /// The ACP `ToolCallUpdate` a permission request carries.
    pub fn permission_tool_call(&self, request: &PermissionRequest) -> Value {
        let mut call = tool_call::info(&request.tool_name, &request.input, &self.cwd);
        call["toolCallId"] = json!(request.tool_use_id);
        call["rawInput"] = request.input.clone();
        call
    }

    /// The updates that show call `id` running in the editor's terminal
    /// `terminal`: its announcement if it was not made yet (tools start
    /// while the message still streams), then the terminal as its content.
    pub fn terminal(&mut self, id: &str, name: &str, input: &Value, terminal: &str) -> Vec<Value> {
        let mut updates: Vec<Value> = self.announce(id, name, input).into_iter().collect();
        self.terminals.insert(id.to_owned());
        updates.push(json!({
            "sessionUpdate": "tool_call_update",
            "toolCallId": id,
            "status": "in_progress",
            "content": [{"type": "terminal", "terminalId": terminal}],
        }));
        updates
    }

    /// The updates of one message of the conversation. `streamed`: its text
    /// and thinking were sent as they streamed already.
    pub fn message(&mut self, message: &Message, streamed: bool) -> Vec<Value> {
        let mut updates = Vec::new();
        for block in &message.content {
            match (block, message.role) {
                (ContentBlock::Text { text, .. }, Role::User) => {
                    updates.push(chunk("user_message_chunk", text));
                }
                (ContentBlock::Text { text, .. }, Role::Assistant) if !streamed => {
                    updates.push(chunk("agent_message_chunk", text));
                }
                (ContentBlock::Thinking { thinking, .. }, Role::Assistant) if !streamed => {
                    updates.push(chunk("agent_thought_chunk", thinking));
                }
                (
                    ContentBlock::ToolUse {
                        id, name, input, ..
                    },
                    _,
                ) => {
                    updates.extend(self.announce(id, name, input));
                    if name == "TodoWrite" {
                        let entries = tool_call::plan_entries(input);
                        updates.push(json!({"sessionUpdate": "plan", "entries": entries}));
                    }
                }
                (
                    ContentBlock::ToolResult {
                        tool_use_id,
                        content,
                        is_error,
                        ..
                    },
                    _,
                ) => {
                    let output = content.as_ref().map(|c| c.to_text()).unwrap_or_default();
                    updates.push(self.finished(tool_use_id, &output, *is_error));
                }
                _ => {}
            }
        }
        updates
    }

    fn announce(&mut self, id: &str, name: &str, input: &Value) -> Option<Value> {
        if self.calls.contains_key(id) {
            return None;
        }
        self.calls.insert(id.to_owned(), name.to_owned());
        let mut call = tool_call::info(name, input, &self.cwd);
        call["sessionUpdate"] = json!("tool_call");
        call["toolCallId"] = json!(id);
        call["status"] = json!("pending");
        call["rawInput"] = input.clone();
        call["_meta"] = json!({"claudeCode": {"toolName": name}});
        Some(call)
    }

    /// A call's end: an edit keeps its diff; others show their output.
    fn finished(&mut self, id: &str, output: &str, is_error: bool) -> Value {
        let name = self.calls.get(id).map(String::as_str);
        let edit = matches!(name, Some("Edit" | "Write" | "MultiEdit" | "NotebookEdit"));
        let mut update = json!({
            "sessionUpdate": "tool_call_update",
            "toolCallId": id,
            "status": if is_error { "failed" } else { "completed" },
            "rawOutput": output,
        });
        if let Some(name) = name {
            update["_meta"] = json!({"claudeCode": {"toolName": name}});
        }
        // As the adapter retitles it.
        if name == Some("ExitPlanMode") && !is_error {
            update["title"] = json!("Exited Plan Mode");
        }
        // A terminal stays the call's content: the output is in it.
        let terminal = self.terminals.remove(id);
        if (!edit || is_error) && !terminal {
            update["content"] =
                json!([{"type": "content", "content": {"type": "text", "text": output}}]);
        }
        update
    }
}

/// `update` marked as a sub-agent's, of Agent call `parent`.
fn under(mut update: Value, parent: &str) -> Value {
    if !update["_meta"]["claudeCode"].is_object() {
        update["_meta"] = json!({"claudeCode": {}});
    }
    update["_meta"]["claudeCode"]["parentToolUseId"] = json!(parent);
    update
}

fn chunk(kind: &str, text: &str) -> Value {
    json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}})
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_conversation_read_back_is_chunks_calls_and_results() {
        let mut t = Translator::new(PathBuf::from("/repo"));
        let conversation = [
            Message::user(vec![ContentBlock::text("hi")]),
            Message::assistant(vec![
                ContentBlock::text("running"),
                ContentBlock::tool_use("t1", "Bash", json!({"command": "ls"})),
            ]),
            Message::user(vec![ContentBlock::tool_result("t1", "a.txt", false)]),
        ];
        let updates: Vec<Value> = conversation
            .iter()
            .flat_map(|m| t.message(m, false))
            .collect();
        assert_eq!(
            updates,
            vec![
                json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "hi"}}),
                json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "running"}}),
                json!({
                    "sessionUpdate": "tool_call", "toolCallId": "t1", "status": "pending",
                    "title": "ls", "kind": "execute", "locations": [], "content": [],
                    "rawInput": {"command": "ls"}, "_meta": {"claudeCode": {"toolName": "Bash"}},
                }),
                json!({
                    "sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed",
                    "rawOutput": "a.txt", "_meta": {"claudeCode": {"toolName": "Bash"}},
                    "content": [{"type": "content", "content": {"type": "text", "text": "a.txt"}}],
                }),
            ]
        );
        // Announced once, however often it is seen.
        assert_eq!(t.message(&conversation[1], true), Vec::<Value>::new());
    }
}
