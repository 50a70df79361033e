//! OpenAI-style error bodies → [`ApiError`].
//!
//! Servers disagree on the shape: OpenAI sends `{"error": {"message", "type",
//! "code"}}`, vLLM a flat `{"message", "type", "code"}`, some a bare string. A
//! context-length error (in any of them) becomes [`ApiError::PromptTooLong`], so
//! the loop's reactive compaction runs as it does for Anthropic; a complaint
//! about tools becomes a non-retryable invalid request (see [`mentions_tools`]).

use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::classify::{Classified, body_excerpt, classify_status, header, parse_prompt_too_long};
use crate::error::ApiError;

pub(crate) fn classify_openai(status: u16, headers: &HeaderMap, body: &[u8]) -> Classified {
    let parsed = serde_json::from_slice::<Value>(body).ok();
    let (message, code) = match &parsed {
        Some(value) => fields(value),
        None => (None, None),
    };
    let message = message.unwrap_or_else(|| body_excerpt(status, body));
    if let Some(error) = special(code.as_deref(), &message) {
        return Classified {
            error,
            retry: false,
        };
    }
    let request_id = header(headers, "x-request-id").map(str::to_owned);
    classify_status(status, headers, message, request_id, false, None)
}

/// A mid-stream error (Chat `{"error": …}` chunk, Responses `error` /
/// `response.failed`), classified by its code as the status would be.
pub(crate) fn stream_error(value: &Value) -> ApiError {
    let (message, code) = fields(value);
    let message = message.unwrap_or_else(|| value.to_string());
    if let Some(error) = special(code.as_deref(), &message) {
        return error;
    }
    match code.as_deref() {
        Some("rate_limit_exceeded" | "rate_limit_error") => ApiError::RateLimited {
            retry_after: None,
            message,
        },
        Some("server_error" | "internal_error" | "api_error") | None => ApiError::Server {
            status: 500,
            retry_after: None,
            message,
        },
        Some("invalid_request_error" | "invalid_prompt") => ApiError::InvalidRequest {
            message,
            request_id: None,
        },
        Some(other) => ApiError::Other {
            status: 200,
            message: format!("{other}: {message}"),
        },
    }
}

/// Whether a server's error message says the model or server cannot take tool
/// definitions (Ollama "does not support tools", vLLM "tool choice requires
/// --enable-auto-tool-choice", llama.cpp "tools param requires --jinja").
pub(crate) fn mentions_tools(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    lower.contains("function call")
        || lower.contains("function_call")
        || (lower.contains("tool")
            && ["support", "requires", "not enabled", "not allowed", "jinja"]
                .iter()
                .any(|w| lower.contains(w)))
}

/// The two errors whose class does not follow from the status.
fn special(code: Option<&str>, message: &str) -> Option<ApiError> {
    if is_context_length(code, message) {
        let (actual, limit) = parse_prompt_too_long(message).unwrap_or((None, None));
        return Some(ApiError::PromptTooLong {
            actual,
            limit,
            message: message.to_owned(),
        });
    }
    mentions_tools(message).then(|| ApiError::InvalidRequest {
        message: message.to_owned(),
        request_id: None,
    })
}

fn is_context_length(code: Option<&str>, message: &str) -> bool {
    if matches!(
        code,
        Some("context_length_exceeded" | "exceed_context_size_error")
    ) {
        return true;
    }
    let lower = message.to_ascii_lowercase();
    [
        "context length",
        "context_length",
        "context window",
        "context size",
        "prompt is too long",
    ]
    .iter()
    .any(|p| lower.contains(p))
}

/// `(message, code)` of any of the shapes; the code falls back to the `type`.
fn fields(value: &Value) -> (Option<String>, Option<String>) {
    let inner = match value.get("error") {
        Some(Value::String(s)) => return (Some(s.clone()), None),
        Some(error @ Value::Object(_)) => error,
        _ => value,
    };
    let text = |k: &str| match inner.get(k) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    (text("message"), text("code").or_else(|| text("type")))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn classify(status: u16, body: Value) -> Classified {
        classify_openai(status, &HeaderMap::new(), body.to_string().as_bytes())
    }

    #[test]
    fn context_length_in_every_shape_is_prompt_too_long() {
        let openai = json!({"error": {"message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", "type": "invalid_request_error", "code": "context_length_exceeded"}});
        let llama = json!({"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error"}});
        let vllm = json!({"object": "error", "message": "This model's maximum context length is 4096 tokens.", "type": "BadRequestError", "code": 400});
        for body in [openai, llama, vllm] {
            let got = classify(400, body.clone());
            assert!(
                matches!(got.error, ApiError::PromptTooLong { .. }) && !got.retry,
                "{body}: {got:?}"
            );
        }
    }

    #[test]
    fn status_classes_follow_the_anthropic_ones() {
        let got = classify(
            429,
            json!({"error": {"message": "slow down", "type": "requests", "code": "rate_limit_exceeded"}}),
        );
        assert_eq!(
            got,
            Classified {
                error: ApiError::RateLimited {
                    retry_after: None,
                    message: "slow down".into()
                },
                retry: false
            }
        );
        let got = classify(503, json!({"error": "busy"}));
        assert_eq!(
            got,
            Classified {
                error: ApiError::Server {
                    status: 503,
                    retry_after: None,
                    message: "busy".into()
                },
                retry: true
            }
        );
        let got = classify_openai(502, &HeaderMap::new(), b"<html>bad gateway</html>");
        assert_eq!(
            got.error,
            ApiError::Server {
                status: 502,
                retry_after: None,
                message: "<html>bad gateway</html>".into()
            }
        );
    }

    #[test]
    fn a_tool_complaint_is_not_retried_even_as_a_500() {
        for message in [
            "registry/library/gemma does not support tools",
            "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set",
            "tools param requires --jinja flag",
        ] {
            let got = classify(500, json!({"error": {"message": message}}));
            assert_eq!(
                got,
                Classified {
                    error: ApiError::InvalidRequest {
                        message: message.into(),
                        request_id: None
                    },
                    retry: false
                }
            );
        }
        assert!(!mentions_tools("invalid value for temperature"));
    }

    #[test]
    fn stream_errors_by_code() {
        assert_eq!(
            stream_error(&json!({"code": "server_error", "message": "oops"})),
            ApiError::Server {
                status: 500,
                retry_after: None,
                message: "oops".into()
            }
        );
        assert!(matches!(
            stream_error(
                &json!({"error": {"code": "context_length_exceeded", "message": "Your input exceeds the context window of this model."}})
            ),
            ApiError::PromptTooLong { .. }
        ));
    }
}
