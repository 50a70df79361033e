//! The lead's teammates' states as session events
//! ([`RuntimeEvent::Teammate`]).

use std::sync::Arc;

use super::session::OnTeammate;
use crate::emit::Emitter;
use crate::event::RuntimeEvent;

/// Sends each change to the session's event stream, without keeping the
/// stream open (the session's messaging outlives no front end).
pub(crate) fn to_stream(emit: &Emitter) -> OnTeammate {
    let tx = emit.weak_sender();
    Arc::new(move |teammate| {
        if let Some(tx) = tx.upgrade() {
            let _ = tx.send(RuntimeEvent::Teammate(Box::new(teammate)));
        }
    })
}
