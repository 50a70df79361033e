//! tack's engine: the agent loop (`query`), the streaming tool executor, the
//! outer `Session`, and the assembly of what is sent to the model.

pub mod compact;
pub mod context;
pub mod query;
pub mod request;

pub mod deps;
pub mod executor;
pub mod permission;
pub mod pipeline;
pub mod session;

pub use query::{
    LoopEvent, QueryConfig, QueryParams, QueryStream, State, Terminal, Transition, query,
};
