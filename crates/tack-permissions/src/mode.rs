//! Permission modes, as named in settings (`permissions.defaultMode`) and on the
//! command line (`--permission-mode`). The type is plain data that front ends
//! show and send, so it lives in `tack-protocol`; the engine's decisions by
//! mode are in `engine.rs`.

pub use tack_protocol::permission_mode::{PermissionMode, UnknownMode};
