//! `/rewind` and Esc Esc: the runtime's rewind points with what a code
//! restore would change (dry runs), and the chosen restore. The runtime
//! decides and keeps the conversation; this shows its answers.

use std::path::Path;

use tack_runtime::{ConversationRewound, RewindPoint, RuntimeHandle};
use tack_tui::{CodeChanges, NoticeLevel, Restore, RewindChoice, UiAction, UiEvent};

use super::{Driver, Internal, replay};

impl Driver {
    /// The picker's prompts, each with a dry run of its code restore.
    pub(super) fn list_rewind_points(&mut self) -> Vec<UiAction> {
        let Some(handle) = self.handle().cloned() else {
            return self.not_ready(UiAction::ListRewindPoints);
        };
        if self.app.is_busy() {
            return self.notice(NoticeLevel::Warning, "Wait for the turn to end to rewind.");
        }
        let (tx, cwd) = (self.tx.clone(), self.place.cwd.clone());
        tokio::spawn(async move {
            let Ok(points) = handle.rewind_points().await else {
                return;
            };
            let mut choices = Vec::with_capacity(points.len());
            for point in points {
                let code = dry_run(&handle, &point, &cwd).await;
                choices.push(RewindChoice {
                    id: point.id,
                    text: point.text,
                    files: point.files,
                    code,
                });
            }
            let _ = tx.send(Internal::Ui(vec![UiEvent::RewindPoints(choices)]));
        });
        Vec::new()
    }

    /// Restores what the user chose for the prompt `id`: the code first
    /// (through its checkpoint), then the conversation.
    pub(super) fn rewind(&mut self, id: String, restore: Restore) -> Vec<UiAction> {
        let Some(handle) = self.handle().cloned() else {
            return self.not_ready(UiAction::Rewind { id, restore });
        };
        let (code, conversation) = match restore {
            Restore::CodeAndConversation => (true, true),
            Restore::Conversation => (false, true),
            Restore::Code => (true, false),
        };
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let mut notices = Vec::new();
            if code {
                notices.push(restore_code(&handle, &id).await);
            }
            if conversation {
                match handle.rewind_conversation(id).await {
                    Ok(Ok(rewound)) => {
                        let _ = tx.send(Internal::Rewound(Box::new(rewound)));
                    }
                    Ok(Err(e)) => notices.push(error(format!("Could not rewind: {e}"))),
                    Err(e) => notices.push(error(e.to_string())),
                }
            }
            let _ = tx.send(Internal::Ui(notices));
        });
        Vec::new()
    }

    /// The conversation was rewound: the terminal shows what is left of it
    /// anew, and the dropped prompt is back in the input.
    pub(super) fn rewound(&mut self, rewound: ConversationRewound) -> Vec<UiAction> {
        if let Err(e) = self.term.clear_all() {
            return self.notice(NoticeLevel::Error, format!("Could not redraw: {e}"));
        }
        let mut events = vec![UiEvent::HistoryReset];
        events.extend(replay(&rewound.messages, true));
        events.push(UiEvent::Notice {
            level: NoticeLevel::Info,
            text: "Rewound the conversation.".to_owned(),
        });
        let actions = self.ui(events);
        self.app.set_input(rewound.prompt);
        self.refresh_context();
        actions
    }
}

/// What restoring the code to `point` would change; `None` without a
/// checkpoint (or when the dry run fails: the code options are not offered).
async fn dry_run(handle: &RuntimeHandle, point: &RewindPoint, cwd: &Path) -> Option<CodeChanges> {
    let checkpoint = point.checkpoint.clone()?;
    let rewound = handle.rewind_files(checkpoint, true).await.ok()?.ok()?;
    let files = rewound
        .files_changed
        .iter()
        .map(|f| f.strip_prefix(cwd).unwrap_or(f).display().to_string())
        .collect();
    Some(CodeChanges {
        files,
        insertions: rewound.insertions,
        deletions: rewound.deletions,
    })
}

/// Puts the files back as they were before the prompt `id`.
async fn restore_code(handle: &RuntimeHandle, id: &str) -> UiEvent {
    let points = handle.rewind_points().await.unwrap_or_default();
    let Some(checkpoint) = points
        .into_iter()
        .find(|p| p.id == id)
        .and_then(|p| p.checkpoint)
    else {
        return error("No code checkpoint for this prompt.".to_owned());
    };
    match handle.rewind_files(checkpoint, false).await {
        Ok(Ok(done)) => {
            let n = done.files_changed.len();
            let files = if n == 1 { "file" } else { "files" };
            UiEvent::Notice {
                level: NoticeLevel::Info,
                text: format!(
                    "Restored the code: {n} {files} (+{} -{}).",
                    done.insertions, done.deletions
                ),
            }
        }
        Ok(Err(e)) => error(format!("Could not restore the code: {e}")),
        Err(e) => error(e.to_string()),
    }
}

fn error(text: String) -> UiEvent {
    UiEvent::Notice {
        level: NoticeLevel::Error,
        text,
    }
}
