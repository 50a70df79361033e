//! tack's permission modes as ACP session modes (`session/set_mode`): the
//! ones Claude Code's adapter lists, with tack's auto mode, and bypass only
//! when the session allows it.

use agent_client_protocol::v1::schema::{SessionMode, SessionModeState};
use tack_protocol::PermissionMode;

/// The `modes` object of `session/new` and `session/load`.
pub fn session_modes(current: PermissionMode, bypass_allowed: bool) -> SessionModeState {
    let mut available = vec![
        mode(
            "default",
            "Default",
            "Standard behavior, prompts for dangerous operations",
        ),
        mode(
            "acceptEdits",
            "Accept Edits",
            "Auto-accept file edit operations",
        ),
        mode(
            "plan",
            "Plan Mode",
            "Planning mode, no actual tool execution",
        ),
        mode(
            "auto",
            "Auto",
            "A classifier model decides what no rule decides",
        ),
        mode(
            "dontAsk",
            "Don't Ask",
            "Don't prompt for permissions, deny if not pre-approved",
        ),
    ];
    if bypass_allowed {
        available.push(mode(
            "bypassPermissions",
            "Bypass Permissions",
            "Bypass all permission checks",
        ));
    }
    SessionModeState::new(current.as_str(), available)
}

fn mode(id: &str, name: &str, description: &str) -> SessionMode {
    SessionMode::new(id.to_owned(), name.to_owned()).description(description.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn bypass_is_listed_only_when_allowed() {
        let ids = |v: SessionModeState| -> Vec<String> {
            v.available_modes
                .iter()
                .map(|m| m.id.0.to_string())
                .collect()
        };
        assert_eq!(
            ids(session_modes(PermissionMode::Default, false)),
            ["default", "acceptEdits", "plan", "auto", "dontAsk"]
        );
        let with = session_modes(PermissionMode::Plan, true);
        assert_eq!(&*with.current_mode_id.0, "plan");
        assert_eq!(
            ids(with).last().map(String::as_str),
            Some("bypassPermissions")
        );
    }
}
