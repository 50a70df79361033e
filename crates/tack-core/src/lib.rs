//! tack's engine: the agent loop (`query`), the streaming tool executor, the
//! outer `Session`, and the assembly of what is sent to the model.
//!
//! Modules import one way (`tests/module_graph.rs` checks it):
//! `context` ← `request` ← `executor`/`permission` ← `compact` ← `deps` ←
//! `query` ← `session`.

pub mod compact;
pub mod context;
pub mod query;
pub mod request;

pub mod deps;
pub mod executor;
pub mod outcome;
pub mod permission;
pub mod session;

pub use query::{LoopEvent, QueryConfig, QueryParams, QueryStream, Terminal, Transition, query};
