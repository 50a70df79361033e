//! tack's model client.
//!
//! # The model
//! The agent loop pulls a [`ModelClient::stream`] for every model request. The
//! stream first reports retries ([`StreamEvent::Retry`]) while the request has not
//! produced any content, then every raw SSE event ([`StreamEvent::Sse`], for UIs and
//! `--include-partial-messages`), each content block once complete
//! ([`StreamEvent::BlockDone`], the moment a tool may start) and finally the whole
//! message ([`StreamEvent::MessageDone`]). A stream ends after `MessageDone` or after
//! one `Err`. Once any content block has started, errors are never retried here:
//! output already shown can only be voided by the loop (tombstone + fallback).
//!
//! Dropping the stream or firing the cancellation token stops the HTTP body read at
//! once; a stream that receives no bytes for the idle timeout ends with
//! [`ApiError::IdleTimeout`] instead of hanging.
//!
//! # The rest of the public API
//! - [`OpenAiClient`] ([`OpenAiConfig`]): the same stream from OpenAI-compatible
//!   servers (Chat Completions or Responses), Anthropic-shaped events synthesised.
//! - [`AnthropicClient`]: the HTTP implementation, plus
//!   [`AnthropicClient::count_tokens`]; [`ClientConfig::from_env`] builds its config.
//!   Its [`Platform`] picks the Anthropic API, Amazon Bedrock ([`BedrockConfig`],
//!   [`AnthropicClient::bedrock`]) or Google Vertex AI ([`VertexConfig`],
//!   [`AnthropicClient::vertex`]): same loop, same events.
//! - [`ApiError::is_retryable`], [`ApiError::retry_after`], [`ApiError::status`].
//! - [`StreamDecoder`]: SSE bytes → [`StreamEvent`]s, for replaying recorded streams.
//! - [`body::read_capped`]: a response body read to a limit, never whole (every crate's).
//! - [`model_info`] (context window, output cap, [`Prices`]) and [`cost`];
//!   [`model_limits`]: window and output cap with the unknown-model defaults.
//! - [`estimate_request`] / [`estimate_messages`] / [`estimate_block`]: a local
//!   bytes/4 token estimate for budget decisions.
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - `ModelClient` trait and its event order; `final_message` (a side request's answer):
//!   `tack-api/src/lib.rs`, `event.rs`
//! - SSE framing (bytes in, frames out, each byte scanned once; an event past 16 MiB is a
//!   protocol error; tack-mcp's legacy SSE transport frames with it too): `tack-api/src/sse.rs`
//! - every body read in one piece is read to a cap (`body::read_capped`: error bodies cut at
//!   64 KiB, hook answers, marketplace files, WebFetch pages): `tack-api/src/body.rs`
//! - SSE frame → event, fast path by event name: `tack-api/src/decode.rs`
//! - message assembly, tool input parsed once at `content_block_stop`:
//!   `tack-api/src/assemble.rs`
//! - HTTP status + body → `ApiError`; prompt-too-long counts: `tack-api/src/classify.rs`
//! - backoff, `retry-after`: `tack-api/src/retry.rs`
//! - the reqwest client, retry loop, idle watchdog, cancellation, shared by every HTTP client
//!   (generic over a wire decoder, `Decode`): `tack-api/src/transport.rs`
//! - the Anthropic client: headers, URLs, `count_tokens`; on Bedrock and Vertex each request
//!   authorized by the transport's `Authorize` hook (`PlatformAuth`) and Bedrock's body decoded
//!   by `StreamDecoder::event_stream` (the transport takes a decoder constructor):
//!   `tack-api/src/anthropic.rs`
//! - Anthropic models on Bedrock and Vertex: `Platform` in `ClientConfig` (one client, so one
//!   retry loop, watchdog and assembly: the same `StreamEvent`s), each platform's URL, body
//!   envelope (`anthropic_version`, Bedrock's `anthropic_beta`) and authentication
//!   (`cloud::prepare` / `cloud::authorize`); model ids as Claude Code maps them
//!   (`bedrock_model_id`: the region's inference profile, ARNs path-encoded; `vertex_model_id`:
//!   `family@date`; per-model Vertex regions): `tack-api/src/cloud/{mod,bedrock,vertex}.rs`
//! - Bedrock's `application/vnd.amazon.eventstream` framing (prelude and message CRC-32s
//!   checked; any split), each message's base64 event fed to the SSE path's decoder and
//!   assembler (`StreamDecoder::event_stream`); exception frames and AWS error bodies → the
//!   `ApiError` the same status gives (throttling retried with backoff, "Input is too long" →
//!   `PromptTooLong`, so reactive compaction runs):
//!   `tack-api/src/cloud/{event_stream,bedrock}.rs`, `tack-api/src/assemble.rs`,
//!   `tack-api/src/classify.rs`
//! - SigV4 (the `aws-sigv4` crate, service `bedrock`), a Bedrock API key (Bearer) or none (a
//!   gateway); Google access tokens: `authorized_user` refresh grant or `service_account` RS256
//!   JWT (signed with `ring`), from the file's `token_uri`, cached until a minute before
//!   expiry; no metadata server, no IMDS: `tack-api/src/cloud/{bedrock,google}.rs`
//! - OpenAI-compatible clients: `MessagesRequest` → Chat Completions / Responses body, their
//!   streams → Anthropic-shaped SSE events (`synth.rs` feeds the same `Assembler`), OpenAI
//!   error bodies (context length → `PromptTooLong`, a refusal of tools → a clear error):
//!   `tack-api/src/openai/{mod,chat_request,chat_stream,responses_request,responses_stream,synth,parts,errors}.rs`
//! - model limits (`model_limits`, unknown-model defaults; Claude models, then approximate
//!   OpenAI rows `OTHER_MODELS`), prices, cost (through the process's `PriceBook`:
//!   `modelPrices`, free local providers), token estimate:
//!   `tack-api/src/{models,pricing,tokens}.rs`; the aliases that name the current models
//!   and the `/model` picker's rows: `tack-api/src/aliases.rs`

pub mod aliases;
mod anthropic;
mod assemble;
pub mod body;
mod classify;
mod cloud;
mod config;
mod decode;
mod error;
mod event;
mod models;
mod openai;
mod pricing;
mod retry;
pub mod sse;
pub mod tls;
mod tokens;
mod transport;

pub use anthropic::AnthropicClient;
pub use assemble::StreamDecoder;
pub use cloud::Platform;
pub use cloud::bedrock::{
    AwsAuth, AwsCredentials, BEDROCK_ANTHROPIC_VERSION, BedrockConfig, bedrock_model_id,
};
pub use cloud::google::GoogleAuth;
pub use cloud::vertex::{VERTEX_ANTHROPIC_VERSION, VertexConfig, vertex_model_id};
pub use config::{Auth, ClientConfig};
pub use error::ApiError;
pub use event::{StreamEvent, ToolInputError, final_message};
pub use models::{
    DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_OUTPUT_TOKENS, DEFAULT_MODEL, LongPrompt, ModelInfo,
    ModelLimits, Prices, known_models, model_info, model_limits,
};
pub use openai::{OpenAiApi, OpenAiClient, OpenAiConfig};
pub use pricing::{
    Cost, PriceBook, cost, fallback_pricing, is_priced, set_price_book, unpriced_model_warning,
};
pub use retry::RetryPolicy;
pub use tokens::{IMAGE_TOKENS, estimate_block, estimate_messages, estimate_request};

use futures::stream::BoxStream;
use tack_protocol::MessagesRequest;
use tokio_util::sync::CancellationToken;

/// A source of streamed model responses. The Anthropic HTTP client implements it;
/// loop tests implement it with scripted fakes.
pub trait ModelClient: Send + Sync {
    /// Sends `request` (the client sets `stream: true`) and streams the response.
    fn stream(
        &self,
        request: MessagesRequest,
        cancel: CancellationToken,
    ) -> BoxStream<'static, Result<StreamEvent, ApiError>>;
}
