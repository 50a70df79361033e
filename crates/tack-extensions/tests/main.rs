//! All of this crate's integration tests, as modules of one test binary
//! (one binary per crate: see tack-runtime's `tests/main.rs`).

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

mod builtin_agents;
mod load;
mod proptests;
