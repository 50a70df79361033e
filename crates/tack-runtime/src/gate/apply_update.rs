//! Switching the permission mode, and a prompt's answer's permission
//! updates (rules, the mode) applied to the session.

use std::sync::PoisonError;

use tack_permissions::{PermissionMode, RuleBehavior, RuleSource};
use tack_protocol::control::{
    PermissionBehavior, PermissionDestination, PermissionUpdate, RulesUpdate,
};

use super::Gate;
use crate::protocol::reply::ModeError;

impl Gate {
    /// Switches the permission mode for everyone who asks (the front end's
    /// `set_permission_mode`, a prompt's answer): for the gate and the
    /// hooks' input; `bypassPermissions` only when the session was started
    /// allowing it, auto mode only when it can classify.
    pub(crate) fn switch_mode(&self, mode: PermissionMode) -> Result<(), ModeError> {
        if mode == PermissionMode::BypassPermissions
            && self.late.bypass_allowed.get() != Some(&true)
        {
            return Err(ModeError::BypassUnavailable);
        }
        if mode == PermissionMode::Auto {
            let why = match self.auto() {
                Some(auto) => auto.unavailable().map(str::to_owned),
                None => Some("this session has no classifier".to_owned()),
            };
            if let Some(why) = why {
                return Err(ModeError::AutoModeUnavailable(why));
            }
        }
        self.set_mode(mode);
        if let Some(h) = &self.hooks {
            h.set_permission_mode(mode.as_str());
        }
        Ok(())
    }

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
                // An answer (a host's, an editor's, a lead's) switches as
                // `set_permission_mode` does, refused where that is.
                Ok(mode) => {
                    if let Err(e) = self.switch_mode(mode) {
                        self.notify(format!(
                            "warning: the answer's mode switch was ignored: {e}"
                        ));
                    }
                }
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
