//! The runtime's permission asks as `session/request_permission`, with the
//! options Claude Code's adapter offers (`claude-agent-acp`: "Always Allow",
//! "Allow", "Reject"), or the request's own choices when it carries them
//! (ExitPlanMode: the mode to work in, as the adapter offers them), and the
//! editor's choice as the ask's answer.

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionResponse,
};
use tack_protocol::control::{ModeUpdate, PermissionDestination, PermissionUpdate};
use tack_protocol::{ChoiceKind, PermissionChoice, PermissionMode};
use tack_runtime::{PermissionAnswer, PermissionRequest};

/// What the model reads when the editor's user rejects a call (the
/// adapter's words); the turn goes on.
pub const REFUSED: &str = "User refused permission to run tool";

/// The options `request` offers: its own choices, else the ones the adapter
/// offers for every tool.
pub fn options(request: &PermissionRequest) -> Vec<PermissionOption> {
    if !request.choices.is_empty() {
        return (request.choices.iter())
            .map(|c| PermissionOption::new(c.id.clone(), c.label.clone(), kind(c.kind)))
            .collect();
    }
    vec![
        PermissionOption::new(
            "allow_always",
            "Always Allow",
            PermissionOptionKind::AllowAlways,
        ),
        PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
        PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
    ]
}

/// The answer to `request` for the client's `outcome` (the request's
/// result, or the error it answered with).
pub fn answer(
    request: &PermissionRequest,
    outcome: &Result<RequestPermissionResponse, Error>,
) -> PermissionAnswer {
    let chosen = match outcome.as_ref().map(|r| &r.outcome) {
        Ok(RequestPermissionOutcome::Selected(selected)) => Some(&*selected.option_id.0),
        // Cancelled, an outcome newer than this schema, or no answer.
        Ok(_) | Err(_) => None,
    };
    let own = request
        .choices
        .iter()
        .find(|c| Some(c.id.as_str()) == chosen);
    if let Some(choice) = own {
        return chose(choice);
    }
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

/// The answer a choice of the request's own gives: allowed in its mode
/// (switched before the call runs), or refused with the turn going on.
fn chose(choice: &PermissionChoice) -> PermissionAnswer {
    match (choice.allows(), choice.mode) {
        (true, Some(mode)) => PermissionAnswer::Allow {
            updated_input: None,
            updates: vec![PermissionUpdate::SetMode(ModeUpdate {
                mode: mode.as_str().to_owned(),
                destination: PermissionDestination::Session,
            })],
        },
        (true, None) => PermissionAnswer::allow(),
        (false, _) => PermissionAnswer::Deny {
            message: REFUSED.to_owned(),
            interrupt: false,
        },
    }
}

/// The mode an answer switches the session to, if it does.
pub fn mode_set(answer: &PermissionAnswer) -> Option<PermissionMode> {
    let PermissionAnswer::Allow { updates, .. } = answer else {
        return None;
    };
    updates.iter().find_map(|u| match u {
        PermissionUpdate::SetMode(m) => m.mode.parse().ok(),
        _ => None,
    })
}

fn kind(kind: ChoiceKind) -> PermissionOptionKind {
    match kind {
        ChoiceKind::AllowOnce => PermissionOptionKind::AllowOnce,
        ChoiceKind::AllowAlways => PermissionOptionKind::AllowAlways,
        ChoiceKind::RejectOnce => PermissionOptionKind::RejectOnce,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

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
            choices: Vec::new(),
        }
    }

    fn outcome(json: serde_json::Value) -> Result<RequestPermissionResponse, Error> {
        Ok(serde_json::from_value(json).unwrap())
    }

    fn selected(id: &str) -> Result<RequestPermissionResponse, Error> {
        outcome(json!({"outcome": {"outcome": "selected", "optionId": id}}))
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
        let cancelled = outcome(json!({"outcome": {"outcome": "cancelled"}}));
        assert_eq!(
            answer(&req, &cancelled),
            PermissionAnswer::Deny {
                message: REFUSED.into(),
                interrupt: true
            }
        );
        assert_eq!(
            answer(&req, &Err(Error::internal_error())),
            PermissionAnswer::Deny {
                message: REFUSED.into(),
                interrupt: true
            }
        );
    }
}
