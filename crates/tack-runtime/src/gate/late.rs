//! The gate's parts the session sets once it is up.

use std::sync::{Arc, OnceLock};

/// What the session gives the gate once it is up, each set once.
#[derive(Default)]
pub(super) struct Late {
    /// Rules that load when a call touches a file they match (set once the
    /// prompt context is in).
    pub(super) path_rules: OnceLock<Arc<tack_core::context::PathRules>>,
    /// The session's Bash sandbox: a call it confines is allowed where the
    /// rules would only ask (`autoAllowBashIfSandboxed`).
    pub(super) sandbox: OnceLock<Arc<tack_sandbox::Sandbox>>,
    /// Where decisions are reported when telemetry is on.
    pub(super) telemetry: OnceLock<Arc<crate::telemetry::SessionTelemetry>>,
    /// The session may switch to `bypassPermissions` (a plan's approval
    /// offers it).
    pub(super) bypass_allowed: OnceLock<bool>,
}
