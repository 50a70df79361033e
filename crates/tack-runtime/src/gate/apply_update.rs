//! A prompt's answer's permission updates (rules, the mode) applied to the
//! session.

use std::sync::PoisonError;

use tack_permissions::{PermissionMode, RuleBehavior, RuleSource};
use tack_protocol::control::{
    PermissionBehavior, PermissionDestination, PermissionUpdate, RulesUpdate,
};

use super::Gate;

/// Said when a permission answer asks for `bypassPermissions` in a session
/// that was not started allowing it.
const BYPASS_REFUSED: &str = "warning: the answer's switch to bypassPermissions was ignored: this session was not started with --dangerously-skip-permissions or --allow-dangerously-skip-permissions";

impl Gate {
    /// Applies one permission update from a prompt's answer.
    pub(super) fn apply(&self, update: &PermissionUpdate) {
        match update {
            PermissionUpdate::AddRules(RulesUpdate {
                rules,
                behavior,
                destination,
            }) => {
                let behavior = match behavior {
                    PermissionBehavior::Allow => RuleBehavior::Allow,
                    PermissionBehavior::Deny => RuleBehavior::Deny,
                    PermissionBehavior::Ask => RuleBehavior::Ask,
                };
                let file = match destination {
                    PermissionDestination::LocalSettings => Some(&self.files.local),
                    PermissionDestination::ProjectSettings => Some(&self.files.project),
                    PermissionDestination::UserSettings => self.files.user.as_ref(),
                    PermissionDestination::Session | PermissionDestination::CliArg => None,
                };
                for rule in rules {
                    let text = match &rule.rule_content {
                        Some(content) => format!("{}({content})", rule.tool_name),
                        None => rule.tool_name.clone(),
                    };
                    // A rule is shown to the user and saved to a file they
                    // read: one holding control characters would not look
                    // like what it matches.
                    if tack_sys::terminal_text::has_control(&text, true) {
                        self.notify(format!(
                            "warning: permission rule not added: `{}` contains control characters",
                            tack_sys::terminal_text::visible(&text)
                        ));
                        continue;
                    }
                    let source = RuleSource::named("session");
                    let added = self
                        .ctx
                        .write()
                        .unwrap_or_else(PoisonError::into_inner)
                        .rules_mut()
                        .add(&source, behavior, &text);
                    if let Err(e) = added {
                        self.notify(format!("warning: permission rule not added: {e}"));
                        continue;
                    }
                    if let Some(file) = file.filter(|_| behavior == RuleBehavior::Allow)
                        && let Err(e) =
                            tack_permissions::add_allow_rule_to_local_settings(file, &text)
                    {
                        self.notify(format!(
                            "warning: could not save `{text}` to {}: {e}",
                            file.display()
                        ));
                    }
                }
            }
            PermissionUpdate::SetMode(m) => match m.mode.parse::<PermissionMode>() {
                // An answer (a host's, an editor's, a lead's) cannot do what
                // `set_permission_mode` may not: bypass needs the session's
                // consent at start.
                Ok(PermissionMode::BypassPermissions)
                    if self.late.bypass_allowed.get() != Some(&true) =>
                {
                    self.notify(BYPASS_REFUSED.to_owned());
                }
                Ok(mode) => self.set_mode(mode),
                Err(e) => self.notify(format!("warning: {e}")),
            },
            PermissionUpdate::ReplaceRules(_)
            | PermissionUpdate::RemoveRules(_)
            | PermissionUpdate::AddDirectories(_)
            | PermissionUpdate::RemoveDirectories(_) => {
                self.notify(
                    "warning: this permission update is not supported yet and was skipped"
                        .to_owned(),
                );
            }
        }
    }
}
