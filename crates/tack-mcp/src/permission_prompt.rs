//! `--permission-prompt-tool mcp__server__tool`: in print mode, an MCP tool
//! answers the permission prompts, with Claude Code's protocol.
//!
//! The tool is called with `{"tool_name", "input", "tool_use_id"}` and answers
//! one text block holding JSON:
//!
//! ```json
//! {"behavior": "allow", "updatedInput": {...}}
//! {"behavior": "deny", "message": "why"}
//! ```
//!
//! `updatedInput` may be left out (the call runs with its original input);
//! `updatedPermissions` (allow) and `interrupt` (deny) are optional.

use serde_json::{Value, json};
use tack_tool::ProgressSink;
use tokio_util::sync::CancellationToken;

use crate::manager::McpManager;
use crate::names::split_tool_name;
use crate::result::result_text;

/// The prompt tool's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum PromptDecision {
    Allow {
        /// The input to run the tool with.
        updated_input: Value,
        /// Permission updates to apply (`PermissionUpdate` objects, as sent).
        updated_permissions: Vec<Value>,
    },
    Deny {
        /// Shown to the model as the tool result.
        message: String,
        /// Stop the whole turn, not just this call.
        interrupt: bool,
    },
}

/// Why no decision came back.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PermissionPromptError {
    #[error("--permission-prompt-tool `{0}` is not an MCP tool name (mcp__<server>__<tool>)")]
    NotAnMcpTool(String),
    #[error("--permission-prompt-tool `{tool}` is not offered by any connected MCP server")]
    NotFound { tool: String },
    #[error("permission prompt tool {tool} failed: {message}")]
    Failed { tool: String, message: String },
    #[error(
        "permission prompt tool {tool} gave an invalid answer: {problem}. Expected {{\"behavior\":\"allow\",\"updatedInput\":{{...}}}} or {{\"behavior\":\"deny\",\"message\":\"...\"}}; got: {answer}"
    )]
    Malformed {
        tool: String,
        problem: String,
        answer: String,
    },
}

/// The tool named by `--permission-prompt-tool`.
#[derive(Debug, Clone)]
pub struct PermissionPromptTool {
    manager: McpManager,
    name: String,
}

impl PermissionPromptTool {
    /// Checks the name's form; the tool is looked up when asked (its server
    /// may still be starting).
    pub fn new(
        manager: &McpManager,
        name: &str,
    ) -> Result<PermissionPromptTool, PermissionPromptError> {
        if split_tool_name(name).is_none() {
            return Err(PermissionPromptError::NotAnMcpTool(name.to_string()));
        }
        Ok(PermissionPromptTool {
            manager: manager.clone(),
            name: name.to_string(),
        })
    }

    /// Asks about one tool call.
    pub async fn ask(
        &self,
        tool_name: &str,
        input: &Value,
        tool_use_id: &str,
        cancel: &CancellationToken,
    ) -> Result<PromptDecision, PermissionPromptError> {
        let tool = self
            .manager
            .mcp_tools()
            .into_iter()
            .find(|t| t.name == self.name)
            .ok_or_else(|| PermissionPromptError::NotFound {
                tool: self.name.clone(),
            })?;
        let mut arguments = serde_json::Map::new();
        arguments.insert("tool_name".into(), json!(tool_name));
        arguments.insert("input".into(), input.clone());
        arguments.insert("tool_use_id".into(), json!(tool_use_id));
        let failed = |message: String| PermissionPromptError::Failed {
            tool: self.name.clone(),
            message,
        };
        let result = tool
            .target
            .call_tool(
                &tool.tool,
                &self.name,
                arguments,
                tool.timeout,
                &ProgressSink::discard(tool_use_id.to_string()),
                cancel,
            )
            .await
            .map_err(|e| failed(e.message))?;
        let text = result_text(&result);
        if result.is_error == Some(true) {
            return Err(failed(text));
        }
        parse_answer(&text, input).map_err(|problem| PermissionPromptError::Malformed {
            tool: self.name.clone(),
            problem,
            answer: text.chars().take(500).collect(),
        })
    }
}

/// Reads the tool's JSON answer; the error says what is wrong with it.
pub fn parse_answer(text: &str, original_input: &Value) -> Result<PromptDecision, String> {
    let value: Value = serde_json::from_str(text.trim()).map_err(|e| format!("not JSON ({e})"))?;
    let Some(obj) = value.as_object() else {
        return Err("not a JSON object".into());
    };
    match obj.get("behavior").and_then(Value::as_str) {
        Some("allow") => {
            let updated_input = match obj.get("updatedInput") {
                None | Some(Value::Null) => original_input.clone(),
                Some(v @ Value::Object(_)) => v.clone(),
                Some(_) => return Err("`updatedInput` must be an object".into()),
            };
            let updated_permissions = match obj.get("updatedPermissions") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items.clone(),
                Some(_) => return Err("`updatedPermissions` must be an array".into()),
            };
            Ok(PromptDecision::Allow {
                updated_input,
                updated_permissions,
            })
        }
        Some("deny") => {
            let Some(message) = obj.get("message").and_then(Value::as_str) else {
                return Err("a deny needs a `message` string".into());
            };
            let interrupt = match obj.get("interrupt") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err("`interrupt` must be a boolean".into()),
            };
            Ok(PromptDecision::Deny {
                message: message.to_string(),
                interrupt,
            })
        }
        Some(other) => Err(format!(
            "`behavior` is \"{other}\", not \"allow\" or \"deny\""
        )),
        None => Err("missing `behavior`".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn parses_allow_and_deny() {
        let input = json!({"command": "ls"});
        assert_eq!(
            parse_answer(
                r#"{"behavior":"allow","updatedInput":{"command":"ls -a"}}"#,
                &input
            ),
            Ok(PromptDecision::Allow {
                updated_input: json!({"command": "ls -a"}),
                updated_permissions: vec![],
            })
        );
        assert_eq!(
            parse_answer(r#"{"behavior":"allow"}"#, &input),
            Ok(PromptDecision::Allow {
                updated_input: input.clone(),
                updated_permissions: vec![],
            })
        );
        assert_eq!(
            parse_answer(
                r#" {"behavior":"deny","message":"no","interrupt":true} "#,
                &input
            ),
            Ok(PromptDecision::Deny {
                message: "no".into(),
                interrupt: true,
            })
        );
    }

    #[test]
    fn malformed_answers_say_what_is_wrong() {
        let input = json!({});
        let err = |text: &str| parse_answer(text, &input).unwrap_err();
        assert_eq!(err("yes"), "not JSON (expected value at line 1 column 1)");
        assert_eq!(err("[]"), "not a JSON object");
        assert_eq!(
            err(r#"{"behavior":"maybe"}"#),
            "`behavior` is \"maybe\", not \"allow\" or \"deny\""
        );
        assert_eq!(err(r#"{"message":"x"}"#), "missing `behavior`");
        assert_eq!(
            err(r#"{"behavior":"deny"}"#),
            "a deny needs a `message` string"
        );
        assert_eq!(
            err(r#"{"behavior":"allow","updatedInput":"x"}"#),
            "`updatedInput` must be an object"
        );
    }
}
