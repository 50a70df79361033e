//! `SendMessage`'s `notify_when_idle` (Claude Code 2.1.236: "ask another
//! Claude Code session on this machine to send one notice when it next goes
//! idle — opt-in, one-shot, no polling"; its docs: the notice expires after
//! 12 hours). The receiving session takes an [`IdleWatch`] when the message
//! comes in, before the message can wake it, so the notice follows the turn
//! that read it; then it sends one `idle_notification` (the teammates' shape)
//! to the sender's socket, and nothing more. The wire form of the request
//! (`"notify_when_idle": true` on the peer line) and of the notice are
//! tack's: Claude Code's are unconfirmed.

use std::path::PathBuf;
use std::time::Duration;

use tack_tool::IdleWatch;

use super::files::inbox;
use super::files::sessions;
use super::files::structured::{self, IdleReason};
use super::peer::{self, Outgoing};

/// How long a request for a notice holds (Claude Code's docs: 12 hours).
pub const NOTICE_LIFETIME: Duration = Duration::from_secs(12 * 60 * 60);

/// Who sends the notice.
#[derive(Debug, Clone)]
pub struct Notifier {
    pub claude_dir: PathBuf,
    /// This session's address (`uds:<socket>`).
    pub address: String,
    /// The name the notice is signed with (the session's name, else its id).
    pub name: String,
}

impl Notifier {
    /// Sends one notice to `to` (an address) when `watch` sees the session
    /// go idle, unless 12 hours pass first or `to` is not an address.
    pub fn notify_when_idle(&self, watch: IdleWatch, to: &str) {
        let Some(socket) = peer::socket_of(to) else {
            return;
        };
        let me = self.clone();
        tokio::spawn(async move {
            let idle = tokio::time::timeout(NOTICE_LIFETIME, watch.next_idle()).await;
            if idle == Ok(true) {
                // The sender may have ended meanwhile: nobody to tell.
                let _ = me.send(&socket).await;
            }
        });
    }

    async fn send(&self, socket: &std::path::Path) -> Result<(), String> {
        let (entries, _bad) = sessions::list(&self.claude_dir);
        let entry = entries
            .iter()
            .find(|e| e.messaging_socket_path.as_deref() == Some(socket))
            .ok_or("the sender is not registered")?;
        let token = sessions::token(&self.claude_dir, entry.pid).map_err(|e| e.to_string())?;
        let text =
            structured::idle_notification(&self.name, &inbox::now_iso(), IdleReason::Available);
        let notice = Outgoing {
            from: &self.address,
            text: &text,
            notify_when_idle: false,
        };
        peer::send(socket, &token, notice)
            .await
            .map_err(|e| e.to_string())
    }
}
