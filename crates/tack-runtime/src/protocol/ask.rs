//! What the runtime asks a front end, and the answers.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tack_protocol::control::{
    PermissionBehavior, PermissionDestination, PermissionRuleValue, PermissionUpdate, RulesUpdate,
};

/// Names one question the runtime put to its front end
/// ([`crate::event::RuntimeEvent::PermissionRequest`],
/// [`crate::event::RuntimeEvent::HookCallback`]); the answer carries it back
/// ([`crate::protocol::op::Op::Answer`]). Unique within a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AskId(pub u64);

impl std::fmt::Display for AskId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ask-{}", self.0)
    }
}

/// The answer to one ask, of the ask's kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskAnswer {
    /// To a permission request (a tool call or a network destination).
    Permission(PermissionAnswer),
    /// To a client hook callback.
    Hook(HookAnswer),
}

/// What a client's hook callback answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookAnswer {
    /// The callback's JSON answer, read like a command hook's JSON stdout.
    Output(Value),
    /// The client failed, answered something malformed, or is gone.
    Failed(String),
}

/// The start of what the model reads when the user rejects a tool call
/// ([`PermissionAnswer::reject`]); a front end may show it shorter.
pub const REJECTED: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file).";

/// The answer to a permission request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PermissionAnswer {
    /// Run the call (with this input instead, if given). `updates` are applied
    /// first: `addRules` to the session's rules (and, for allow rules with a
    /// settings destination, to that settings file: "don't ask again"),
    /// `setMode` to the session's mode. Other update types are reported and
    /// skipped.
    Allow {
        updated_input: Option<Value>,
        updates: Vec<PermissionUpdate>,
    },
    /// Do not run it; `message` goes to the model. `interrupt` also stops the
    /// turn.
    Deny { message: String, interrupt: bool },
}

impl PermissionAnswer {
    /// Allow this call only.
    pub fn allow() -> PermissionAnswer {
        PermissionAnswer::Allow {
            updated_input: None,
            updates: Vec::new(),
        }
    }

    /// The user said no (the terminal UI's "No, and tell tack what to do
    /// differently"). Without feedback the turn stops and waits for the user;
    /// with it, the model reads the feedback and carries on. The messages are
    /// the ones models know from Claude Code.
    pub fn reject(feedback: Option<&str>) -> PermissionAnswer {
        match feedback.map(str::trim).filter(|f| !f.is_empty()) {
            Some(feedback) => PermissionAnswer::Deny {
                message: format!(
                    "{REJECTED} To tell you how to proceed, the user said:\n{feedback}"
                ),
                interrupt: false,
            },
            None => PermissionAnswer::Deny {
                message: format!(
                    "{REJECTED} STOP what you are doing and wait for the user to tell you how to proceed."
                ),
                interrupt: true,
            },
        }
    }

    /// Allow this call, and calls matching `rule` from now on, remembered in
    /// the project's `.claude/settings.local.json` (the terminal UI's "Yes,
    /// and don't ask again").
    pub fn allow_always(rule: &str) -> PermissionAnswer {
        let (tool_name, rule_content) = match rule.split_once('(') {
            Some((tool, rest)) => (tool.to_owned(), rest.strip_suffix(')').map(str::to_owned)),
            None => (rule.to_owned(), None),
        };
        PermissionAnswer::Allow {
            updated_input: None,
            updates: vec![PermissionUpdate::AddRules(RulesUpdate {
                rules: vec![PermissionRuleValue {
                    tool_name,
                    rule_content,
                }],
                behavior: PermissionBehavior::Allow,
                destination: PermissionDestination::LocalSettings,
            })],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_rejection_stops_the_turn_unless_it_says_what_to_do() {
        let stop = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
        assert_eq!(
            PermissionAnswer::reject(None),
            PermissionAnswer::Deny {
                message: stop.into(),
                interrupt: true
            }
        );
        assert_eq!(
            PermissionAnswer::reject(Some("  ")),
            PermissionAnswer::reject(None)
        );
        assert_eq!(
            PermissionAnswer::reject(Some("use printf instead")),
            PermissionAnswer::Deny {
                message: "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nuse printf instead".into(),
                interrupt: false
            }
        );
    }
}
