//! `/bg`: sends the terminal's session to the background. A live process
//! cannot leave the terminal (the shell waits on it), so the session is
//! ended here (its transcript complete) and a background session resumes
//! it, with no prompt sent again. Only when idle: a turn cut in two
//! processes would lose the half that streamed here.

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use tack_runtime::PermissionMode;
use tack_tui::{NoticeLevel, UiAction};

use super::{Driver, Slot};

impl Driver {
    /// `/bg`: leaves, handing the session off once it has ended (see
    /// [`Driver::hand_off`]); refused while a turn runs or before there is
    /// anything to resume.
    pub(super) fn send_to_background(&mut self) -> Vec<UiAction> {
        if self.app.is_busy() {
            return self.notice(
                NoticeLevel::Warning,
                "A turn is running: wait for it to end (or press Esc to stop it), then /bg.",
            );
        }
        let session = match &self.slot {
            Slot::Ready { info, .. } => info
                .transcript_path
                .as_ref()
                .filter(|p| p.exists())
                .map(|_| info.session_id.clone()),
            Slot::Starting | Slot::Switching { .. } | Slot::Failed(_) => None,
        };
        let Some(session) = session else {
            return self.notice(
                NoticeLevel::Warning,
                "Nothing to send to the background yet: send a prompt first.",
            );
        };
        self.backgrounding = Some(session);
        self.exit = Some(ExitCode::SUCCESS);
        Vec::new()
    }

    /// Starts the background session that resumes `session_id` (this
    /// terminal's session has ended) and says how to attach to it.
    pub(super) fn hand_off(&self, session_id: &str) -> ExitCode {
        let mut flags: Vec<OsString> = vec!["--model".into(), self.model.clone().into()];
        // The mode the user chose here goes on (bypass needs its own flag).
        let mode = self.app.permission_mode();
        if !matches!(
            mode,
            PermissionMode::Default | PermissionMode::BypassPermissions
        ) {
            flags.extend(["--permission-mode".into(), mode.as_str().into()]);
        }
        let name = first_prompt(&self.place, session_id).unwrap_or_default();
        let launched = crate::background::attach::hand_off(
            &self.place.claude_dir,
            &self.place.cwd,
            session_id,
            &name,
            flags,
        );
        let mut out = std::io::stdout().lock();
        let code = match launched {
            Ok(id) => {
                let tack = crate::self_command::tack_command();
                let _ = writeln!(out, "backgrounded · {id}\n{tack} attach {id}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                let text = tack_sys::error_text::chain(e.as_ref());
                let _ = writeln!(
                    out,
                    "Could not start the background session: {}\nResume this session with: tack --resume {session_id}",
                    tack_sys::terminal_text::visible(&text)
                );
                ExitCode::from(1)
            }
        };
        let _ = out.flush();
        code
    }
}

/// The session's first prompt (the background session's name).
fn first_prompt(place: &tack_runtime::Place, session_id: &str) -> Option<String> {
    let sessions = place.session_store().list_sessions(&place.cwd).ok()?;
    sessions
        .into_iter()
        .find(|s| s.session_id == session_id)?
        .first_prompt
}
