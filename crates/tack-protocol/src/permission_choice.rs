//! The answers a permission request offers when the runtime decides them:
//! ExitPlanMode's approval is answered with the mode to work in ("Yes, and
//! auto-accept edits" → `acceptEdits`, "Yes, and manually approve edits" →
//! `default`, "No, keep planning" → `plan`, "Yes, and bypass permissions"
//! when the session may bypass), as Claude Code and its ACP adapter offer
//! them. Every front end (the terminal's dialog, `tack acp`'s
//! `session/request_permission` options) shows these when a request carries
//! them, and its own usual ones otherwise.

use serde::{Deserialize, Serialize};

use crate::permission_mode::PermissionMode;

/// One answer a permission request offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionChoice {
    /// Stable and unique in the request (ACP's `optionId`).
    pub id: String,
    /// What the person reads.
    pub label: String,
    pub kind: ChoiceKind,
    /// The mode the session works in after this answer (for an allow: it
    /// switches before the call runs).
    pub mode: Option<PermissionMode>,
}

/// What a choice does with the call, as ACP's option kinds name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChoiceKind {
    /// Run it this once.
    AllowOnce,
    /// Run it, and calls like it from now on (a mode that asks less).
    AllowAlways,
    /// Do not run it.
    RejectOnce,
}

impl PermissionChoice {
    pub fn new(
        id: &str,
        label: &str,
        kind: ChoiceKind,
        mode: Option<PermissionMode>,
    ) -> PermissionChoice {
        PermissionChoice {
            id: id.to_owned(),
            label: label.to_owned(),
            kind,
            mode,
        }
    }

    /// Whether the call runs with this answer.
    pub fn allows(&self) -> bool {
        self.kind != ChoiceKind::RejectOnce
    }

    /// ExitPlanMode's choices: the mode to work in once the plan is
    /// approved, or more planning; bypass first when `bypass` (the session
    /// may switch to it).
    pub fn plan_approval(bypass: bool) -> Vec<PermissionChoice> {
        let mode = |m: PermissionMode| (m.as_str(), Some(m));
        let bypass = bypass.then(|| {
            let (id, mode) = mode(PermissionMode::BypassPermissions);
            PermissionChoice::new(
                id,
                "Yes, and bypass permissions",
                ChoiceKind::AllowAlways,
                mode,
            )
        });
        let (accept, accept_mode) = mode(PermissionMode::AcceptEdits);
        let (default, default_mode) = mode(PermissionMode::Default);
        let (plan, plan_mode) = mode(PermissionMode::Plan);
        bypass
            .into_iter()
            .chain([
                PermissionChoice::new(
                    accept,
                    "Yes, and auto-accept edits",
                    ChoiceKind::AllowAlways,
                    accept_mode,
                ),
                PermissionChoice::new(
                    default,
                    "Yes, and manually approve edits",
                    ChoiceKind::AllowOnce,
                    default_mode,
                ),
                PermissionChoice::new(plan, "No, keep planning", ChoiceKind::RejectOnce, plan_mode),
            ])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_plans_approval_offers_the_modes_claude_code_offers() {
        let choices = PermissionChoice::plan_approval(true);
        assert_eq!(
            serde_json::to_value(&choices).unwrap(),
            json!([
                {"id": "bypassPermissions", "label": "Yes, and bypass permissions",
                 "kind": "allow_always", "mode": "bypassPermissions"},
                {"id": "acceptEdits", "label": "Yes, and auto-accept edits",
                 "kind": "allow_always", "mode": "acceptEdits"},
                {"id": "default", "label": "Yes, and manually approve edits",
                 "kind": "allow_once", "mode": "default"},
                {"id": "plan", "label": "No, keep planning", "kind": "reject_once", "mode": "plan"},
            ])
        );
        assert_eq!(PermissionChoice::plan_approval(false), choices[1..]);
        assert_eq!(
            choices
                .iter()
                .map(PermissionChoice::allows)
                .collect::<Vec<_>>(),
            [true, true, true, false]
        );
    }
}
