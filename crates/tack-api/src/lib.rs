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
//! - [`model_info`] (context window, output cap, [`Prices`]) and [`cost`];
//!   [`model_limits`]: window and output cap with the unknown-model defaults.
//! - [`estimate_request`] / [`estimate_messages`] / [`estimate_block`]: a local
//!   bytes/4 token estimate for budget decisions.

mod anthropic;
mod assemble;
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
mod sse;
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
    DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_OUTPUT_TOKENS, ModelInfo, ModelLimits, Prices,
    known_models, model_info, model_limits,
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
