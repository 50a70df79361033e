//! The Agent SDK control protocol: what the official SDKs (Python
//! `claude-agent-sdk` 0.2.x, TypeScript `@anthropic-ai/claude-agent-sdk` 0.3.x)
//! write to tack's stdin under `--input-format stream-json`, and the control lines
//! tack writes back on stdout beside the stream-json records. `docs/sdk-protocol.md`
//! says who sends what, when, and what each SDK does with the answer.
//!
//! # Model
//!
//! Both directions use one NDJSON channel and three envelopes:
//!
//! - `control_request` `{request_id, request: {subtype, ...}}`: the sender picks the
//!   id; the receiver answers with exactly one `control_response` echoing it.
//!   Requests the SDK sends are [`SdkRequest`]s; requests tack sends are
//!   [`CliRequest`]s.
//! - `control_response` `{response: {subtype: "success"|"error", request_id, ...}}`:
//!   [`ControlResponse`]. A success carries a payload whose shape depends on the
//!   request (typed here: [`InitializeResponse`], [`InterruptResponse`],
//!   [`PermissionResult`], [`HookOutput`], [`McpMessageResponse`], ...).
//! - `control_cancel_request` `{request_id}`: the sender abandons a request it made;
//!   no response follows.
//!
//! [`StdinLine`] is one line of stdin (the three envelopes plus `user` messages);
//! [`ControlLine`] is one control line tack prints.
//!
//! Unknown request subtypes and unknown line types are kept whole
//! ([`OtherRequest`], [`StdinLine::Other`]) so tack can answer "unsupported" by
//! subtype instead of failing the session; a *known* subtype that is malformed is
//! a deserialisation error, never silently taken for an unknown one. Fields tack
//! does not model are kept in each payload's `extra` map.
//!
//! # Files
//!
//! `lines` (the envelopes), `sdk_request` and `cli_request` (the requests each
//! way), `cli_answers` and `sdk_answers` (the success payloads answering them),
//! `response` (the `control_response` inside), `permission_update`, and
//! `tagged` (reading a `subtype`-tagged request by hand).

mod cli_answers;
mod cli_request;
mod lines;
mod permission_update;
mod response;
mod sdk_answers;
mod sdk_request;
mod tagged;

pub use cli_answers::{
    AccountInfo, AgentInfo, ContextUsageCategory, ContextUsageResponse, InitializeResponse,
    InterruptResponse, McpServerStatus, McpStatusResponse, ModelInfo, RewindFilesResponse,
    SlashCommand,
};
pub use cli_request::{CanUseToolRequest, CliRequest, HookCallbackRequest, McpMessageRequest};
pub use lines::{
    ControlCancel, ControlLine, ControlRequest, ControlResponseLine, StdinLine, UserLine,
};
pub use permission_update::{
    DirectoriesUpdate, ModeUpdate, PermissionBehavior, PermissionDestination, PermissionRuleValue,
    PermissionUpdate, RulesUpdate,
};
pub use response::{ControlError, ControlResponse, ControlSuccess};
pub use sdk_answers::{
    HookOutput, McpMessageResponse, PermissionAllow, PermissionDeny, PermissionResult,
};
pub use sdk_request::{
    AgentDefinition, GetContextUsageRequest, HookCallbackMatcher, InitializeRequest,
    InterruptRequest, McpReconnectRequest, McpSetServersRequest, McpStatusRequest,
    McpToggleRequest, RewindFilesRequest, SdkRequest, SetModelRequest, SetPermissionModeRequest,
    StopTaskRequest,
};
pub use tagged::OtherRequest;
