//! The three ways to reach a server. JSON-RPC on top is rmcp's.

pub(crate) mod http;
pub(crate) mod sse;
pub(crate) mod stdio;
