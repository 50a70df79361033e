//! [`Notifier`]: the session's Notification hooks, for a front end that has
//! something of its own to announce (a background session's
//! `agent_needs_input` and `agent_completed`). They run as every hook of
//! the session does: its settings' matchers, timeouts and environment.

use std::sync::Arc;

use crate::hooks::SessionHooks;

/// Fires the session's Notification hooks; clone it freely.
#[derive(Clone)]
pub struct Notifier(pub(crate) Option<Arc<SessionHooks>>);

impl Notifier {
    /// Runs the Notification hooks matching `notification_type` with
    /// `message`, on a task of their own: nothing waits for them. Must be
    /// called within the session's tokio runtime.
    pub fn notify(&self, notification_type: &str, message: String) {
        let Some(hooks) = self.0.clone().filter(|h| h.has("Notification")) else {
            return;
        };
        let kind = notification_type.to_owned();
        tokio::spawn(async move { hooks.notification(&kind, message).await });
    }
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Notifier").field(&self.0.is_some()).finish()
    }
}
