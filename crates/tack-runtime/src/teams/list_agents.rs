//! The `ListAgents` tool: the session's teammates (from its team's
//! `config.json`) and the other live sessions on the machine (from the
//! registry, each one's socket checked), with what a `SendMessage` needs to
//! reach them.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};

use super::files::config;
use super::peer;
use super::route;
use super::session::Messaging;

pub const LIST_AGENTS_TOOL_NAME: &str = "ListAgents";

const DESCRIPTION: &str = "List the agents you can message with SendMessage: your teammates (when you are in a team) and the other Claude sessions running on this machine, with each one's name, session id and address.";

pub struct ListAgentsTool {
    messaging: Arc<Messaging>,
}

impl ListAgentsTool {
    pub fn new(messaging: Arc<Messaging>) -> Self {
        ListAgentsTool { messaging }
    }

    async fn list(&self) -> Value {
        let teammates: Vec<Value> = match self.messaging.member() {
            Some(member) => match config::read(&member.team) {
                Ok(Some(c)) => c
                    .members
                    .iter()
                    .filter(|m| m.name != member.agent)
                    .map(|m| {
                        let state = self.messaging.state(&m.name).map(|s| s.as_str());
                        json!({"name": m.name, "agentType": m.agent_type, "model": m.model, "color": m.color, "backendType": m.backend_type, "state": state})
                    })
                    .collect(),
                _ => Vec::new(),
            },
            None => Vec::new(),
        };
        let sessions: Vec<Value> = route::live_sessions(&self.messaging)
            .await
            .iter()
            .map(|(e, socket)| json!({"name": e.name, "sessionId": e.session_id, "cwd": e.cwd, "status": e.status, "address": peer::address(socket)}))
            .collect();
        json!({
            "team": self.messaging.member().map(|m| m.team.name().to_string()),
            "you": self.messaging.member().map(|m| m.agent.clone()).or_else(|| self.messaging.address()),
            "teammates": teammates,
            "sessions": sessions,
        })
    }
}

impl Tool for ListAgentsTool {
    fn name(&self) -> &str {
        LIST_AGENTS_TOOL_NAME
    }

    fn description(&self) -> String {
        DESCRIPTION.to_owned()
    }

    fn input_schema(&self) -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {},
            "additionalProperties": false
        })
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, _input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        Ok(())
    }

    fn call<'a>(&'a self, _input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let listed = self.list().await;
            let text = serde_json::to_string_pretty(&listed).unwrap_or_default();
            Ok(ToolOutput::text(text).with_structured(listed))
        })
    }
}
