//! The runtime's permission asks as `session/request_permission`, with the
//! options Claude Code's adapter offers (`claude-agent-acp`: "Always Allow",
//! "Allow", "Reject"), and the editor's choice as the ask's answer.

use serde_json::{Value, json};
use tack_runtime::{PermissionAnswer, PermissionRequest};

use crate::rpc::RpcError;

/// What the model reads when the editor's user rejects a call (the
/// adapter's words); the turn goes on.
pub const REFUSED: &str = "User refused permission to run tool";

/// The options every request offers, as the adapter spells them.
pub fn options() -> Value {
    json!([
        {"kind": "allow_always", "name": "Always Allow", "optionId": "allow_always"},
        {"kind": "allow_once", "name": "Allow", "optionId": "allow"},
        {"kind": "reject_once", "name": "Reject", "optionId": "reject"},
    ])
}

/// The answer to `request` for the client's `outcome` (the request's
/// result, or the error it answered with).
pub fn answer(request: &PermissionRequest, outcome: &Result<Value, RpcError>) -> PermissionAnswer {
    let outcome = outcome.as_ref().ok().map(|result| &result["outcome"]);
    let chosen = outcome
        .filter(|o| o["outcome"] == "selected")
        .and_then(|o| o["optionId"].as_str());
    match chosen {
        Some("allow") => PermissionAnswer::allow(),
        // The engine's own suggestion when it has one (`Bash(npm test:*)`),
        // else the whole tool, as the adapter does.
        Some("allow_always") => PermissionAnswer::allow_always(
            request
                .suggestions
                .first()
                .map_or(request.tool_name.as_str(), String::as_str),
        ),
        Some(_) => PermissionAnswer::Deny {
            message: REFUSED.to_owned(),
            interrupt: false,
        },
        // Cancelled (the prompt was), or the client could not answer.
        None => PermissionAnswer::Deny {
            message: REFUSED.to_owned(),
            interrupt: true,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn request(suggestions: &[&str]) -> PermissionRequest {
        PermissionRequest {
            id: tack_runtime::AskId(1),
            tool_name: "Bash".into(),
            input: json!({"command": "npm test"}),
            tool_use_id: "toolu_1".into(),
            reason: String::new(),
            suggestions: suggestions.iter().map(|s| (*s).to_owned()).collect(),
            blocked_path: None,
            agent: None,
            original: None,
        }
    }

    fn selected(id: &str) -> Result<Value, RpcError> {
        Ok(json!({"outcome": {"outcome": "selected", "optionId": id}}))
    }

    #[test]
    fn each_option_answers_as_the_adapter_does() {
        let req = request(&["Bash(npm test:*)"]);
        assert_eq!(answer(&req, &selected("allow")), PermissionAnswer::allow());
        assert_eq!(
            answer(&req, &selected("allow_always")),
            PermissionAnswer::allow_always("Bash(npm test:*)")
        );
        assert_eq!(
            answer(&request(&[]), &selected("allow_always")),
            PermissionAnswer::allow_always("Bash")
        );
        assert_eq!(
            answer(&req, &selected("reject")),
            PermissionAnswer::Deny {
                message: REFUSED.into(),
                interrupt: false
            }
        );
        let cancelled = Ok(json!({"outcome": {"outcome": "cancelled"}}));
        assert_eq!(
            answer(&req, &cancelled),
            PermissionAnswer::Deny {
                message: REFUSED.into(),
                interrupt: true
            }
        );
        assert_eq!(
            answer(&req, &Err(RpcError::internal("gone"))),
            PermissionAnswer::Deny {
                message: REFUSED.into(),
                interrupt: true
            }
        );
    }
}
