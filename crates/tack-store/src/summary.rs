//! What a listing says about one session (below `error`, whose "not found"
//! lists recent sessions, and `list`, which makes them). The type is plain
//! data a front end shows, so it lives in tack-protocol.

pub use tack_protocol::SessionSummary;
