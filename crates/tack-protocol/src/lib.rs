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

pub mod content;
pub mod control;
pub mod extensions;
pub mod json_kind;
pub mod name;
pub mod permission_mode;
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
