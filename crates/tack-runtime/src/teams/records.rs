//! A teammate's state as a stream-json record: `system/teammate_state`
//! (tack's own subtype; Claude Code's stream-json shows no teammate
//! states), the [`TeammateEvent`]'s fields beside the session id and a
//! uuid:
//!
//! ```json
//! {"type":"system","subtype":"teammate_state","team_name":"session-aaaaaaaa",
//!  "name":"alice","state":"idle","color":"blue","agent_type":"general-purpose",
//!  "backend_type":"in-process","session_id":"…","uuid":"…"}
//! ```

use serde_json::{Value, json};
use tack_protocol::stream_json::StreamJsonRecord;

use crate::event::TeammateEvent;
use crate::records::Records;

/// The record's subtype.
pub const TEAMMATE_STATE: &str = "teammate_state";

impl Records {
    /// `system/teammate_state` for one change.
    pub fn teammate(&self, teammate: &TeammateEvent) -> StreamJsonRecord {
        let mut fields = serde_json::to_value(teammate).unwrap_or_else(|_| json!({}));
        if let Value::Object(map) = &mut fields {
            map.insert("subtype".into(), TEAMMATE_STATE.into());
        }
        self.system(fields)
    }
}
