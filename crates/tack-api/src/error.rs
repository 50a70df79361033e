use std::time::Duration;

/// Every way a model request can fail, classified from HTTP status + error body
/// (or from the transport). `Clone` so it can be reported in a retry event and
/// still returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum ApiError {
    /// 400 other than prompt-too-long.
    #[error("invalid request: {message}")]
    InvalidRequest {
        message: String,
        request_id: Option<String>,
    },
    /// 400 "prompt is too long: N tokens > M maximum" (or the older
    /// "input length and `max_tokens` exceed context limit" form).
    #[error("prompt is too long: {message}")]
    PromptTooLong {
        actual: Option<u64>,
        limit: Option<u64>,
        message: String,
    },
    /// 401.
    #[error("authentication failed: {message}")]
    Authentication { message: String },
    /// 402.
    #[error("billing error: {message}")]
    Billing { message: String },
    /// 403.
    #[error("permission denied: {message}")]
    Permission { message: String },
    /// 404 (unknown model id or bad base URL).
    #[error("not found: {message}")]
    NotFound { message: String },
    /// 413.
    #[error("request too large: {message}")]
    RequestTooLarge { message: String },
    /// 429. `retry_after` from the headers; `None` with a spend cap (not retryable).
    #[error("rate limited: {message}")]
    RateLimited {
        retry_after: Option<Duration>,
        message: String,
    },
    /// 529 or a mid-stream `overloaded_error`.
    #[error("API overloaded: {message}")]
    Overloaded {
        retry_after: Option<Duration>,
        message: String,
    },
    /// 5xx, 408, 409 and mid-stream `api_error`.
    #[error("server error {status}: {message}")]
    Server {
        status: u16,
        retry_after: Option<Duration>,
        message: String,
    },
    /// Could not connect, or the connection broke (including a stream that ended
    /// without `message_stop`).
    #[error("connection error: {message}")]
    Connection { message: String },
    /// No bytes (not even a ping) for this long.
    #[error("no data from the API for {0:?}; the stream was abandoned")]
    IdleTimeout(Duration),
    /// The SSE stream broke the protocol (event before message_start, bad JSON).
    #[error("malformed response stream: {message}")]
    Protocol { message: String },
    /// The cancellation token fired.
    #[error("request cancelled")]
    Cancelled,
    /// Any other status.
    #[error("API error {status}: {message}")]
    Other { status: u16, message: String },
}
