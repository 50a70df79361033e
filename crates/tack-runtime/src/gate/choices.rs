//! The answers a permission request offers when the runtime decides them
//! (`PermissionRequest::choices`): ExitPlanMode's approval into a mode.
//! Other tools' requests offer none of their own: each front end shows its
//! usual ones.

use tack_protocol::PermissionChoice;

use super::Gate;

impl Gate {
    /// The gate whose plan approval offers bypass mode when `allowed`.
    pub(crate) fn allowing_bypass(self, allowed: bool) -> Gate {
        let _ = self.late.bypass_allowed.set(allowed);
        self
    }

    /// The choices a request about `tool` offers.
    pub(super) fn choices(&self, tool: &str) -> Vec<PermissionChoice> {
        match tool {
            "ExitPlanMode" => {
                PermissionChoice::plan_approval(self.late.bypass_allowed.get() == Some(&true))
            }
            _ => Vec::new(),
        }
    }
}
