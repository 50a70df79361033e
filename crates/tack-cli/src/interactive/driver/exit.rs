//! The line printed on leaving the terminal UI: how to resume the session,
//! as Claude Code prints it; nothing for a session with no messages.

use std::io::Write;
use std::time::Duration;

use super::{Driver, Slot};

/// How long exit waits for the session to say whether it has messages.
const ASK_WAIT: Duration = Duration::from_secs(1);

impl Driver {
    /// Prints how to resume the current session (the terminal is the
    /// shell's again) when it has messages.
    pub(super) async fn say_how_to_resume(&self) {
        let Slot::Ready { handle, info } = &self.slot else {
            return;
        };
        let asked = tokio::time::timeout(ASK_WAIT, handle.conversation()).await;
        if asked.is_ok_and(|messages| messages.is_ok_and(|m| !m.is_empty())) {
            let mut out = std::io::stdout().lock();
            let id = &info.session_id;
            // `tack`, or this binary's path when PATH does not find it.
            let tack = crate::self_command::tack_command();
            // Two short lines: neither wraps in 80 columns (with `tack`).
            let _ = writeln!(
                out,
                "Resume this session with: {tack} --resume {id}\nor, in this directory: {tack} -c"
            );
            let _ = out.flush();
        }
    }
}
