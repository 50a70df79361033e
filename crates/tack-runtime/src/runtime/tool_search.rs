//! A model switch (`/model`, a turn's own model) decides again whether the
//! built-ins go behind ToolSearch (`deferral.rs`): a model that takes no
//! `tool_reference` blocks gets every tool whole, and switching back defers
//! them again. The tool set is rebuilt only when the decision changes.

use tack_core::session::Session;

use super::Driver;
use crate::deferral::{ToolSetParts, tool_set};

impl Driver {
    /// Rebuilds the session's tools when its model's decision differs.
    pub(super) fn redecide_deferral(&mut self, session: &mut Session) {
        let on = self.services.deferral.rule.defers(&session.config().model);
        if on == self.services.deferral.on {
            return;
        }
        self.services.deferral.on = on;
        let gate = self.policy.gate.clone();
        let keep = move |t: &dyn tack_tool::Tool| !gate.removes_tool(t);
        let tools = match self.services.mcp.as_mut() {
            Some(mcp) => {
                mcp.defer_builtins = on;
                let window = tack_api::model_limits(&session.config().model).context_window;
                let search = self.services.deferral.tool_search.as_deref();
                mcp.tool_set(&self.services.builtin, window, search, &keep)
            }
            None => {
                let parts = ToolSetParts {
                    builtin: &self.services.builtin,
                    defer_builtins: on,
                    mcp: Vec::new(),
                    defer_mcp: false,
                    resources: Vec::new(),
                };
                tool_set(parts, &mut None)
            }
        };
        session.set_tools(tools);
    }
}
