//! A scripted, Anthropic-compatible HTTP server for tack's tests, benchmarks and
//! `tack demo`.
//!
//! # Model
//!
//! The test drives; the server only answers. A [`MockServer`] listens on
//! `127.0.0.1` (a fresh port) and holds a [`Script`]: a queue of [`Reply`]s.
//!
//! - Each `POST /v1/messages` is first recorded, then consumes the **next** reply
//!   in order, whatever the request says. The reply is streamed as SSE when the
//!   request has `"stream": true`, otherwise sent as one JSON Message object.
//! - `POST /v1/messages/count_tokens` answers `{"input_tokens": body_bytes / 4}`
//!   and consumes nothing. Any other route is a 404 `not_found_error`.
//! - Amazon Bedrock's and Google Vertex AI's routes answer from the same script
//!   (Bedrock's as AWS event-stream, with a SigV4 header shape check), and
//!   `POST /token` is an OAuth token endpoint: see `cloud.rs`.
//! - Every request, answered or rejected, is kept in arrival order in
//!   [`MockServer::requests`], so a test asserts on what its client *sent*.
//! - When the script is exhausted, `POST /v1/messages` gets HTTP 500 `api_error`
//!   "tack-testkit: script exhausted after N replies" (plus `x-should-retry:
//!   false`), so a test that makes one request too many fails loudly. Replies can be
//!   appended at runtime with [`MockServer::push`]; [`Script::looping`] repeats the
//!   script forever instead.
//! - Unless a reply fixes `.usage()`, its usage comes from a prompt-cache
//!   simulation over all requests the server has seen (tokens = bytes / 4; see
//!   `cache_sim.rs`): repeating a prefix up to a `cache_control` breakpoint reports
//!   `cache_read_input_tokens`.
//! - Dropping the server stops it accepting connections.
//! - It also speaks OpenAI: `POST /v1/chat/completions` and `POST /v1/responses`
//!   consume the same queue and stream the same reply as Chat Completions chunks
//!   or Responses events (`openai.rs`; errors in OpenAI's body shape), so one
//!   script drives tack on any provider; `base_url()` + `/v1` is the provider's URL.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use serde_json::json;
//! use tack_testkit::{MockServer, Reply, Script};
//!
//! let server = MockServer::start(Script::new([
//!     Reply::message().text("Let me look.").tool_use("toolu_01", "Read", json!({"file_path": "/x"})).into(),
//!     Reply::text("Done."),
//! ])).await?;
//! // ... point the client at server.base_url(), run it ...
//! assert_eq!(server.requests().len(), 2);
//! # Ok(()) }
//! ```
//!
//! # JSON script format
//!
//! [`Script::from_json`] / [`Script::from_file`] (and the `tack-mock-api` binary)
//! read an array; each element is one reply with exactly one of `text`, `blocks`,
//! `error` or `prompt_too_long`:
//!
//! ```json
//! [
//!   {"text": "hi"},
//!   {"blocks": [{"type": "thinking", "thinking": "Look first.", "signature": "sig"},
//!               {"type": "text", "text": "x"},
//!               {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}},
//!               {"type": "tool_use", "id": "toolu_2", "name": "Bash", "raw_input": "{\"command\": \"l"},
//!               {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
//!               {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
//!                "content": [{"type": "web_search_result", "url": "https://a.example", "title": "A"}]},
//!               {"type": "text", "text": "cited", "citations": [{"type": "web_search_result_location", "url": "https://a.example"}]}],
//!    "stop_reason": "tool_use",
//!    "usage": {"input_tokens": 10, "output_tokens": 5,
//!              "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
//!    "model": "claude-sonnet-4-5", "pacing_ms": 5, "block_gap_ms": 50},
//!   {"text": "partial", "cut_after": 4},
//!   {"text": "partial", "error_event_after": {"after": 4, "type": "overloaded_error", "message": "Overloaded"}},
//!   {"text": "slow", "stall_after": {"after": 2, "ms": 500}},
//!   {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}, "retry_after": 1},
//!   {"error": {"status": 429, "type": "rate_limit_error", "message": "slow down"},
//!    "retry_after_ms": 1500, "headers": {"x-should-retry": "true"}},
//!   {"prompt_too_long": {"actual": 210000, "limit": 200000}}
//! ]
//! ```
//!
//! Message fields mirror the [`MessageReply`] builders; `retry_after`,
//! `retry_after_ms` and `headers` apply to any reply. A `tool_use` block has
//! either `input` (any JSON, streamed in fragments) or `raw_input` (the exact text
//! streamed, possibly malformed). Server tool blocks (`server_tool_use`,
//! `web_search_tool_result`) and cited text stream as the API sends them; they do
//! not make the stop reason `tool_use`. Unknown fields are errors, reported with line
//! and column; semantic errors name the reply's index.
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - scripted model server (`tack-mock-api`); the same script streamed as Chat Completions or
//!   Responses on `/v1/chat/completions`, `/v1/responses`: `tack-testkit/src/` (`openai.rs`)
//! - the scripted server's Bedrock (event-stream, SigV4 header shape checked), Vertex
//!   (`:streamRawPredict`) and OAuth token (`/token`) routes: `tack-testkit/src/cloud.rs`

mod cache_sim;
mod cloud;
pub mod installed;
mod openai;
mod playback;
#[cfg(feature = "proxies")]
pub mod proxies;
mod reply;
mod request;
mod script;
mod script_file;
mod server;
mod sse;
#[cfg(feature = "tls")]
pub mod tls;
mod wire;

pub use reply::{ErrorReply, MessageReply, Reply};
pub use request::RecordedRequest;
pub use script::Script;
pub use script_file::ScriptError;
pub use server::{MockServer, Options};
