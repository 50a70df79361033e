//! Model fallback (seed 004, "two retry layers", the first): after repeated
//! overloaded (529) errors on the primary model, switch to
//! `QueryConfig::fallback_model` for the rest of this query, tell the consumer
//! (`LoopEvent::ModelFallback`) and send the request again.
//!
//! "Repeated" = the client reported [`OVERLOADED_RETRIES_BEFORE_FALLBACK`] (3)
//! consecutive overloaded retries for the request (Claude Code's
//! `MAX_529_RETRIES`; the loop then drops the request rather than wait out the
//! client's remaining backoff), or the request failed with
//! `ApiError::Overloaded` after the client's retries, whichever comes first.
//! Only before any content was streamed (afterwards it is a streaming
//! fallback), and at most once per query.

use tack_api::ApiError;

use crate::query::QueryConfig;

pub const OVERLOADED_RETRIES_BEFORE_FALLBACK: u32 = 3;

/// True for the errors that count toward a model fallback.
pub fn is_overloaded(error: &ApiError) -> bool {
    matches!(error, ApiError::Overloaded { .. })
}

/// The model to fall back to from `current`, if one is configured and not
/// already in use.
pub fn fallback_target<'a>(config: &'a QueryConfig, current: &str) -> Option<&'a str> {
    config
        .fallback_model
        .as_deref()
        .filter(|fallback| *fallback != current)
}
