//! Permission modes and auto mode in the terminal: the runtime's answer to a
//! mode change (a mode it refuses leaves the Shift+Tab cycle) and the rule
//! `/permissions`' decisions view adds (`info::permissions_view` is what
//! `/permissions` shows). The runtime decides and keeps the rules; this
//! shows its answers.

use tack_runtime::{ModeError, Op, PermissionMode, Reply};
use tack_tui::{NoticeLevel, UiAction, UiEvent};

use super::{Driver, Internal};

impl Driver {
    /// Shift+Tab: the runtime's answer goes back to the UI (the first
    /// switch to auto is introduced there; a refused mode is skipped).
    pub(super) fn set_permission_mode(&mut self, mode: PermissionMode) -> Vec<UiAction> {
        let Some(handle) = self.handle().cloned() else {
            return self.not_ready(UiAction::SetPermissionMode(mode));
        };
        self.options.permissions.mode = Some(mode);
        // Sent now, so the runtime sees the presses (and any later op) in order.
        let set = handle.set_permission_mode(mode);
        let (tx, before) = (self.tx.clone(), self.mode_answer.take());
        self.mode_answer = Some(tokio::spawn(async move {
            let answer = set.await;
            if let Some(before) = before {
                let _ = before.await;
            }
            let event = match answer {
                Ok(Ok(())) => UiEvent::ModeSet(mode),
                Ok(Err(refused)) => mode_refused(mode, &refused),
                Err(e) => UiEvent::Notice {
                    level: NoticeLevel::Error,
                    text: format!("Could not change the permission mode: {e}"),
                },
            };
            let _ = tx.send(Internal::Ui(vec![event]));
        }));
        self.refresh_status_line();
        Vec::new()
    }

    /// `a` on a block in the decisions view: the runtime adds the rule to
    /// the session and the project's local settings, and says where.
    pub(super) fn add_allow_rule(&mut self, rule: String) -> Vec<UiAction> {
        let Some(handle) = self.handle().cloned() else {
            return self.not_ready(UiAction::AddAllowRule { rule });
        };
        let added = handle.request(Op::AddAllowRule { rule: rule.clone() });
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let saved = match added.await {
                Ok(Reply::RuleAdded(saved)) => saved.map(|file| file.display().to_string()),
                Ok(other) => Err(format!("the session answered {other:?}")),
                Err(e) => Err(e.to_string()),
            };
            let _ = tx.send(Internal::Ui(vec![UiEvent::RuleAdded { rule, saved }]));
        });
        Vec::new()
    }
}

/// Every refusal is of a mode the session does not offer.
fn mode_refused(mode: PermissionMode, refused: &ModeError) -> UiEvent {
    match refused {
        ModeError::BypassUnavailable | ModeError::AutoModeUnavailable(_) => {
            UiEvent::ModeUnavailable {
                mode,
                reason: refused.to_string(),
            }
        }
    }
}
