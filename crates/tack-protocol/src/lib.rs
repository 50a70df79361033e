//! Plain data types shared by every tack crate: what goes over the wire to the
//! Anthropic Messages API and what comes back, and the plain values front ends
//! show and send (permission modes, todo items, session summaries, plugins and
//! slash commands), with no
//! I/O and no async.
//!
//! Forward compatibility is a rule here, because the API adds block types, delta
//! types, stop reasons and SSE events without a version bump: unknown values are
//! kept (as opaque JSON or an `Other` string) and round-trip unchanged, never rejected.
//! A *known* type that is malformed (a `tool_use` without an `id`) is still an error.
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - Messages, content blocks (unknown ones kept; a message's text blocks joined by
//!   `join_texts`), usage arithmetic, stop reasons, SSE events:
//!   `tack-protocol/src/{content,usage,response,sse,request}.rs`
//! - the characters of a tool, MCP server or agent name (`[A-Za-z0-9_-]`); a JSON value's kind
//!   in error messages: `tack-protocol/src/{name,json_kind}.rs`
//! - stream-json output records (Claude Code's field names): `tack-protocol/src/stream_json.rs`
//! - Agent SDK control protocol: stdin lines, control requests both ways, responses:
//!   `tack-protocol/src/control/` (`lines.rs` the envelopes, `sdk_request.rs` /
//!   `cli_request.rs` the requests each way, `cli_answers.rs` / `sdk_answers.rs` their answers,
//!   `response.rs`, `permission_update.rs`); what the SDKs send and expect:
//!   `docs/sdk-protocol.md`
//! - the answers a permission request offers when the runtime decides them (ExitPlanMode's
//!   modes), for every front end: `tack-protocol/src/permission_choice.rs`
//! - server tool blocks (`server_tool_use`, `web_search_tool_result`) kept verbatim, typed
//!   views: `tack-protocol/src/server_tool.rs`

pub mod content;
pub mod control;
pub mod extensions;
pub mod json_kind;
pub mod name;
pub mod permission_choice;
pub mod permission_mode;
pub mod plugin_catalog;
pub mod relayed;
pub mod request;
pub mod response;
pub mod server_tool;
pub mod session;
pub mod sse;
pub mod stream_json;
pub mod todo;
pub mod usage;

mod serde_util;

pub use content::{
    CacheControl, ContentBlock, ImageSource, Message, Role, ToolResultContent, UnknownBlock,
};
pub use permission_choice::{ChoiceKind, PermissionChoice};
pub use permission_mode::PermissionMode;
pub use request::{
    MessagesRequest, Metadata, SystemBlock, SystemPrompt, ThinkingConfig, ToolChoice,
    ToolDefinition,
};
pub use response::{ApiErrorBody, ApiErrorDetail, MessageResponse, StopReason};
pub use server_tool::{
    ServerToolCall, WebSearchError, WebSearchHit, WebSearchOutcome, WebSearchToolResult,
};
pub use session::SessionSummary;
pub use sse::{Delta, MessageDeltaBody, SseEvent};
pub use todo::{TodoItem, TodoStatus};
pub use usage::{CacheCreation, DeltaUsage, Usage};
