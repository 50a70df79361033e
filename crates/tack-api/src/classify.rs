//! HTTP status + headers + body → [`ApiError`], and mid-stream `error` events by
//! `error.type` (errors spec §2–§5).

use std::time::Duration;

use reqwest::header::HeaderMap;
use tack_protocol::{ApiErrorBody, ApiErrorDetail};

use crate::error::ApiError;
use crate::retry::retry_after;

/// An error response, and whether the client may retry it: the class's default
/// ([`ApiError::is_retryable`]) unless the server said otherwise with `x-should-retry`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Classified {
    pub error: ApiError,
    pub retry: bool,
}

pub(crate) fn classify_response(status: u16, headers: &HeaderMap, body: &[u8]) -> Classified {
    let parsed = serde_json::from_slice::<ApiErrorBody>(body).ok();
    let request_id = parsed
        .as_ref()
        .and_then(|b| b.request_id.clone())
        .or_else(|| header(headers, "request-id").map(str::to_owned));
    let cloud_message = match &parsed {
        Some(_) => None,
        None => cloud_error_message(body),
    };
    // Bedrock and Vertex throttle without `retry-after`: retryable, with backoff
    // (`Some(ZERO)`); a 429 without a hint is otherwise a spend cap.
    let cloud_hint = cloud_message.as_ref().map(|_| Duration::ZERO);
    let message = match (&parsed, cloud_message) {
        (Some(b), _) => b.error.message.clone(),
        (None, Some(message)) => message,
        (None, None) => body_excerpt(status, body),
    };
    let spend_cap = parsed.as_ref().is_some_and(|b| is_spend_cap(&b.error));
    let mut classified =
        classify_status(status, headers, message, request_id, spend_cap, cloud_hint);
    // Which credentials to check: the platform's for an AWS or Google body.
    if let ApiError::Authentication { message } = &mut classified.error {
        message.push_str(match cloud_hint {
            Some(_) => " (check the AWS or Google credentials the platform uses)",
            None => " (check ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN)",
        });
    }
    classified
}

/// The error class of `status` with the body's `message` already extracted
/// (shared with the OpenAI clients, whose error bodies differ); `hint` is the
/// retry delay to assume when the answer has no `retry-after`.
pub(crate) fn classify_status(
    status: u16,
    headers: &HeaderMap,
    message: String,
    request_id: Option<String>,
    spend_cap: bool,
    hint: Option<Duration>,
) -> Classified {
    let after = retry_after(headers).or(hint);
    let error = match status {
        400 => invalid_request(message, request_id),
        401 => ApiError::Authentication { message },
        402 => ApiError::Billing { message },
        403 => ApiError::Permission { message },
        404 => ApiError::NotFound { message },
        413 => ApiError::RequestTooLarge { message },
        429 => ApiError::RateLimited {
            retry_after: if spend_cap { None } else { after },
            message,
        },
        529 => ApiError::Overloaded {
            retry_after: after,
            message,
        },
        408 | 409 | 500.. => ApiError::Server {
            status,
            retry_after: after,
            message,
        },
        _ => ApiError::Other { status, message },
    };
    let retry = match header(headers, "x-should-retry") {
        Some("true") => !spend_cap,
        Some("false") => false,
        _ => error.is_retryable(),
    };
    Classified { error, retry }
}

/// A mid-stream `event: error` (HTTP status already 200): classified by `error.type`
/// as the same status would be.
pub(crate) fn classify_stream_error(detail: &ApiErrorDetail) -> ApiError {
    let message = detail.message.clone();
    match detail.kind.as_str() {
        "overloaded_error" => ApiError::Overloaded {
            retry_after: None,
            message,
        },
        "api_error" => ApiError::Server {
            status: 500,
            retry_after: None,
            message,
        },
        "timeout_error" => ApiError::Server {
            status: 504,
            retry_after: None,
            message,
        },
        "conflict_error" => ApiError::Server {
            status: 409,
            retry_after: None,
            message,
        },
        "rate_limit_error" => ApiError::RateLimited {
            retry_after: None,
            message,
        },
        "invalid_request_error" => invalid_request(message, None),
        "authentication_error" => ApiError::Authentication { message },
        "billing_error" => ApiError::Billing { message },
        "permission_error" => ApiError::Permission { message },
        "not_found_error" => ApiError::NotFound { message },
        "request_too_large" => ApiError::RequestTooLarge { message },
        other => ApiError::Other {
            status: 200,
            message: format!("{other}: {message}"),
        },
    }
}

pub(crate) fn invalid_request(message: String, request_id: Option<String>) -> ApiError {
    match parse_prompt_too_long(&message) {
        Some((actual, limit)) => ApiError::PromptTooLong {
            actual,
            limit,
            message,
        },
        None => ApiError::InvalidRequest {
            message,
            request_id,
        },
    }
}

/// The message of a cloud platform's error body: AWS's `{"message"}` /
/// `{"Message"}`, Google's `{"error": {"message"}}` (also inside an array).
fn cloud_error_message(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Shape {
        Aws {
            #[serde(alias = "Message")]
            message: String,
        },
        Google {
            error: GoogleError,
        },
        List(Vec<Shape>),
    }
    #[derive(serde::Deserialize)]
    struct GoogleError {
        message: String,
    }
    fn message(shape: Shape) -> Option<String> {
        match shape {
            Shape::Aws { message }
            | Shape::Google {
                error: GoogleError { message },
            } => Some(message),
            Shape::List(list) => list.into_iter().next().and_then(message),
        }
    }
    message(serde_json::from_slice(body).ok()?)
}

fn is_spend_cap(detail: &ApiErrorDetail) -> bool {
    detail
        .details
        .as_ref()
        .and_then(|d| d.get("error_code"))
        .and_then(|c| c.as_str())
        == Some("enforced_spend_limit_reached")
}

pub(crate) fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

pub(crate) fn body_excerpt(status: u16, body: &[u8]) -> String {
    const MAX: usize = 300;
    let text = String::from_utf8_lossy(&body[..body.len().min(MAX)]);
    let text = text.trim();
    if text.is_empty() {
        format!("HTTP {status} with an empty body")
    } else {
        text.to_owned()
    }
}

/// `(actual, limit)` from either overflow message (errors spec §3), matched
/// case-insensitively anywhere in `message`:
/// - "prompt is too long: N tokens > M maximum" → `(N, M)`;
/// - "input length and `max_tokens` exceed context limit: I + T > M" → `(I + T, M)`;
/// - Bedrock's "Input is too long for requested model." → `(None, None)`.
///
/// `Some((None, None))` when the phrase is there but the numbers are not.
pub(crate) fn parse_prompt_too_long(message: &str) -> Option<(Option<u64>, Option<u64>)> {
    let lower = message.to_ascii_lowercase();
    if let Some(pos) = lower.find("prompt is too long") {
        let mut s = Scanner(&lower[pos + "prompt is too long".len()..]);
        let parsed = (|| {
            s.eat(":")?;
            let actual = s.number()?;
            s.eat("tokens")?;
            s.eat(">")?;
            let limit = s.number()?;
            Some((actual, limit))
        })();
        return Some(parsed.map_or((None, None), |(a, l)| (Some(a), Some(l))));
    }
    // Bedrock's words for the same overflow.
    if lower.contains("input is too long") {
        return Some((None, None));
    }
    let pos = lower.find("exceed context limit")?;
    let head = &lower[..pos];
    if !(head.contains("input length") && head.contains("max_tokens")) {
        return None;
    }
    let mut s = Scanner(&lower[pos + "exceed context limit".len()..]);
    let parsed = (|| {
        s.eat(":")?;
        let input = s.number()?;
        s.eat("+")?;
        let max_tokens = s.number()?;
        s.eat(">")?;
        let limit = s.number()?;
        Some((input.saturating_add(max_tokens), limit))
    })();
    Some(parsed.map_or((None, None), |(a, l)| (Some(a), Some(l))))
}

/// A tiny whitespace-skipping tokenizer for the overflow messages.
struct Scanner<'a>(&'a str);

impl Scanner<'_> {
    fn eat(&mut self, token: &str) -> Option<()> {
        self.0 = self.0.trim_start().strip_prefix(token)?;
        Some(())
    }

    fn number(&mut self) -> Option<u64> {
        let s = self.0.trim_start();
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let n = s[..end].parse().ok()?;
        self.0 = &s[end..];
        Some(n)
    }
}

impl ApiError {
    /// Whether this class of failure is worth retrying (before any content was
    /// streamed): connection problems, idle timeouts, 408/409/5xx, 529, and 429
    /// when the server gave a `retry-after` (a spend-cap 429 has none). The client
    /// additionally obeys a response's `x-should-retry` header.
    pub fn is_retryable(&self) -> bool {
        match self {
            ApiError::RateLimited { retry_after, .. } => retry_after.is_some(),
            ApiError::Overloaded { .. }
            | ApiError::Server { .. }
            | ApiError::Connection { .. }
            | ApiError::IdleTimeout(_) => true,
            ApiError::InvalidRequest { .. }
            | ApiError::PromptTooLong { .. }
            | ApiError::Authentication { .. }
            | ApiError::Billing { .. }
            | ApiError::Permission { .. }
            | ApiError::NotFound { .. }
            | ApiError::RequestTooLarge { .. }
            | ApiError::Protocol { .. }
            | ApiError::Cancelled
            | ApiError::Other { .. } => false,
        }
    }

    /// The message of a class that carries one (to add what the body did not say).
    pub(crate) fn message_mut(&mut self) -> Option<&mut String> {
        match self {
            ApiError::InvalidRequest { message, .. }
            | ApiError::PromptTooLong { message, .. }
            | ApiError::Authentication { message }
            | ApiError::Billing { message }
            | ApiError::Permission { message }
            | ApiError::NotFound { message }
            | ApiError::RequestTooLarge { message }
            | ApiError::RateLimited { message, .. }
            | ApiError::Overloaded { message, .. }
            | ApiError::Server { message, .. }
            | ApiError::Connection { message }
            | ApiError::Protocol { message }
            | ApiError::Other { message, .. } => Some(message),
            ApiError::IdleTimeout(_) | ApiError::Cancelled => None,
        }
    }

    /// The server's requested wait (`retry-after-ms` / `retry-after`), if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ApiError::RateLimited { retry_after, .. }
            | ApiError::Overloaded { retry_after, .. }
            | ApiError::Server { retry_after, .. } => *retry_after,
            ApiError::InvalidRequest { .. }
            | ApiError::PromptTooLong { .. }
            | ApiError::Authentication { .. }
            | ApiError::Billing { .. }
            | ApiError::Permission { .. }
            | ApiError::NotFound { .. }
            | ApiError::RequestTooLarge { .. }
            | ApiError::Connection { .. }
            | ApiError::IdleTimeout(_)
            | ApiError::Protocol { .. }
            | ApiError::Cancelled
            | ApiError::Other { .. } => None,
        }
    }

    /// The HTTP status of this class (e.g. 529 for `Overloaded`, also when it
    /// arrived as a mid-stream event); `None` for transport-level failures.
    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::InvalidRequest { .. } | ApiError::PromptTooLong { .. } => Some(400),
            ApiError::Authentication { .. } => Some(401),
            ApiError::Billing { .. } => Some(402),
            ApiError::Permission { .. } => Some(403),
            ApiError::NotFound { .. } => Some(404),
            ApiError::RequestTooLarge { .. } => Some(413),
            ApiError::RateLimited { .. } => Some(429),
            ApiError::Overloaded { .. } => Some(529),
            ApiError::Server { status, .. } | ApiError::Other { status, .. } => Some(*status),
            ApiError::Connection { .. }
            | ApiError::IdleTimeout(_)
            | ApiError::Protocol { .. }
            | ApiError::Cancelled => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use reqwest::header::{HeaderName, HeaderValue};

    use super::*;

    fn headers(list: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in list {
            map.insert(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        map
    }

    fn body(kind: &str, message: &str) -> String {
        serde_json::json!({"type":"error","error":{"type":kind,"message":message},"request_id":"req_1"})
            .to_string()
    }

    fn classify(status: u16, h: &[(&str, &str)], body: &str) -> Classified {
        classify_response(status, &headers(h), body.as_bytes())
    }

    fn c(error: ApiError, retry: bool) -> Classified {
        Classified { error, retry }
    }

    #[test]
    fn every_client_status_class() {
        let m = || "boom".to_string();
        let cases = [
            (
                400,
                vec![],
                body("invalid_request_error", "boom"),
                c(
                    ApiError::InvalidRequest {
                        message: m(),
                        request_id: Some("req_1".into()),
                    },
                    false,
                ),
            ),
            (
                400,
                vec![],
                body(
                    "invalid_request_error",
                    "prompt is too long: 213462 tokens > 200000 maximum",
                ),
                c(
                    ApiError::PromptTooLong {
                        actual: Some(213462),
                        limit: Some(200000),
                        message: "prompt is too long: 213462 tokens > 200000 maximum".into(),
                    },
                    false,
                ),
            ),
            (
                401,
                vec![],
                body("authentication_error", "boom"),
                c(
                    ApiError::Authentication {
                        message: "boom (check ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN)".into(),
                    },
                    false,
                ),
            ),
            (
                402,
                vec![],
                body("billing_error", "boom"),
                c(ApiError::Billing { message: m() }, false),
            ),
            (
                403,
                vec![],
                body("permission_error", "boom"),
                c(ApiError::Permission { message: m() }, false),
            ),
            (
                404,
                vec![],
                body("not_found_error", "boom"),
                c(ApiError::NotFound { message: m() }, false),
            ),
            (
                413,
                vec![],
                "<html>Request Entity Too Large</html>".to_string(),
                c(
                    ApiError::RequestTooLarge {
                        message: "<html>Request Entity Too Large</html>".into(),
                    },
                    false,
                ),
            ),
            (
                429,
                vec![("retry-after", "7")],
                body("rate_limit_error", "boom"),
                c(
                    ApiError::RateLimited {
                        retry_after: Some(Duration::from_secs(7)),
                        message: m(),
                    },
                    true,
                ),
            ),
            (
                429,
                vec![],
                body("rate_limit_error", "boom"),
                c(
                    ApiError::RateLimited {
                        retry_after: None,
                        message: m(),
                    },
                    false,
                ),
            ),
        ];
        for (status, h, b, expected) in cases {
            assert_eq!(classify(status, &h, &b), expected, "{status} {h:?} {b}");
        }
    }

    #[test]
    fn every_server_status_class_and_the_retry_override() {
        let m = || "boom".to_string();
        let cases = [
            (
                529,
                vec![("retry-after-ms", "250")],
                body("overloaded_error", "boom"),
                c(
                    ApiError::Overloaded {
                        retry_after: Some(Duration::from_millis(250)),
                        message: m(),
                    },
                    true,
                ),
            ),
            (
                500,
                vec![],
                body("api_error", "boom"),
                c(
                    ApiError::Server {
                        status: 500,
                        retry_after: None,
                        message: m(),
                    },
                    true,
                ),
            ),
            (
                504,
                vec![],
                body("timeout_error", "boom"),
                c(
                    ApiError::Server {
                        status: 504,
                        retry_after: None,
                        message: m(),
                    },
                    true,
                ),
            ),
            (
                502,
                vec![],
                String::new(),
                c(
                    ApiError::Server {
                        status: 502,
                        retry_after: None,
                        message: "HTTP 502 with an empty body".into(),
                    },
                    true,
                ),
            ),
            (
                408,
                vec![],
                body("timeout_error", "boom"),
                c(
                    ApiError::Server {
                        status: 408,
                        retry_after: None,
                        message: m(),
                    },
                    true,
                ),
            ),
            (
                409,
                vec![],
                body("conflict_error", "boom"),
                c(
                    ApiError::Server {
                        status: 409,
                        retry_after: None,
                        message: m(),
                    },
                    true,
                ),
            ),
            (
                418,
                vec![],
                body("teapot_error", "boom"),
                c(
                    ApiError::Other {
                        status: 418,
                        message: m(),
                    },
                    false,
                ),
            ),
            // x-should-retry overrides the class in both directions.
            (
                529,
                vec![("x-should-retry", "false")],
                body("overloaded_error", "boom"),
                c(
                    ApiError::Overloaded {
                        retry_after: None,
                        message: m(),
                    },
                    false,
                ),
            ),
            (
                400,
                vec![("x-should-retry", "true")],
                body("invalid_request_error", "boom"),
                c(
                    ApiError::InvalidRequest {
                        message: m(),
                        request_id: Some("req_1".into()),
                    },
                    true,
                ),
            ),
        ];
        for (status, h, b, expected) in cases {
            assert_eq!(classify(status, &h, &b), expected, "{status} {h:?} {b}");
        }
    }

    #[test]
    fn spend_cap_429_is_not_retried_even_with_retry_after() {
        let body = serde_json::json!({"type":"error","error":{"type":"rate_limit_error",
            "message":"You have reached your specified API usage limits. You will regain access on 2026-09-01",
            "details":{"error_code":"enforced_spend_limit_reached"}}})
        .to_string();
        let got = classify(
            429,
            &[("retry-after", "5"), ("x-should-retry", "true")],
            &body,
        );
        assert_eq!(got.retry, false);
        assert_eq!(got.error.retry_after(), None);
        assert!(!got.error.is_retryable());
    }

    #[test]
    fn cloud_error_bodies_give_their_message_and_throttling_is_retried() {
        let throttled = ApiError::RateLimited {
            retry_after: Some(Duration::ZERO),
            message: "Too many requests".into(),
        };
        let cases = [
            (
                429,
                r#"{"message":"Too many requests"}"#,
                c(throttled.clone(), true),
            ),
            (
                429,
                r#"{"Message":"Too many requests"}"#,
                c(throttled.clone(), true),
            ),
            (
                429,
                r#"[{"error":{"code":429,"message":"Too many requests","status":"RESOURCE_EXHAUSTED"}}]"#,
                c(throttled, true),
            ),
            (
                400,
                r#"{"message":"Input is too long for requested model."}"#,
                c(
                    ApiError::PromptTooLong {
                        actual: None,
                        limit: None,
                        message: "Input is too long for requested model.".into(),
                    },
                    false,
                ),
            ),
            (
                403,
                r#"{"error":{"code":403,"message":"Permission denied on resource","status":"PERMISSION_DENIED"}}"#,
                c(
                    ApiError::Permission {
                        message: "Permission denied on resource".into(),
                    },
                    false,
                ),
            ),
        ];
        for (status, body, expected) in cases {
            assert_eq!(classify(status, &[], body), expected, "{body}");
        }
    }

    #[test]
    fn request_id_from_header_when_body_has_none() {
        let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"x"}}"#;
        let got = classify(400, &[("request-id", "req_h")], body);
        assert_eq!(
            got.error,
            ApiError::InvalidRequest {
                message: "x".into(),
                request_id: Some("req_h".into())
            }
        );
    }

    #[test]
    fn prompt_too_long_forms() {
        let cases = [
            (
                "prompt is too long: 213462 tokens > 200000 maximum",
                Some((Some(213462), Some(200000))),
            ),
            (
                "Prompt Is Too Long:213462 tokens>200000 maximum",
                Some((Some(213462), Some(200000))),
            ),
            ("prompt is too long", Some((None, None))),
            (
                "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again",
                Some((Some(209573), Some(200000))),
            ),
            (
                "input length and max_tokens exceed context limit: 1 + 2 > 3",
                Some((Some(3), Some(3))),
            ),
            ("max_tokens: Field required", None),
            ("", None),
        ];
        for (message, expected) in cases {
            assert_eq!(parse_prompt_too_long(message), expected, "{message}");
        }
    }

    #[test]
    fn mid_stream_errors_by_type() {
        let d = |kind: &str| ApiErrorDetail {
            kind: kind.into(),
            message: "m".into(),
            details: None,
        };
        let m = || "m".to_string();
        let cases = [
            (
                "overloaded_error",
                ApiError::Overloaded {
                    retry_after: None,
                    message: m(),
                },
            ),
            (
                "api_error",
                ApiError::Server {
                    status: 500,
                    retry_after: None,
                    message: m(),
                },
            ),
            (
                "timeout_error",
                ApiError::Server {
                    status: 504,
                    retry_after: None,
                    message: m(),
                },
            ),
            (
                "rate_limit_error",
                ApiError::RateLimited {
                    retry_after: None,
                    message: m(),
                },
            ),
            (
                "invalid_request_error",
                ApiError::InvalidRequest {
                    message: m(),
                    request_id: None,
                },
            ),
            (
                "authentication_error",
                ApiError::Authentication { message: m() },
            ),
            ("permission_error", ApiError::Permission { message: m() }),
            ("not_found_error", ApiError::NotFound { message: m() }),
            (
                "request_too_large",
                ApiError::RequestTooLarge { message: m() },
            ),
            ("billing_error", ApiError::Billing { message: m() }),
            (
                "new_error",
                ApiError::Other {
                    status: 200,
                    message: "new_error: m".into(),
                },
            ),
        ];
        for (kind, expected) in cases {
            assert_eq!(classify_stream_error(&d(kind)), expected, "{kind}");
        }
    }

    #[test]
    fn status_and_retryability_of_transport_errors() {
        let errors = [
            ApiError::Connection {
                message: "x".into(),
            },
            ApiError::IdleTimeout(Duration::from_secs(1)),
            ApiError::Cancelled,
            ApiError::Protocol {
                message: "x".into(),
            },
        ];
        let got: Vec<_> = errors
            .iter()
            .map(|e| (e.status(), e.is_retryable()))
            .collect();
        assert_eq!(
            got,
            vec![(None, true), (None, true), (None, false), (None, false)]
        );
    }

    /// A refused credential says which credentials to check: Anthropic's
    /// variables for the Messages API, the platform's for an AWS or Google body.
    #[test]
    fn an_authentication_error_names_the_credentials_to_check() {
        let none = HeaderMap::new();
        let google =
            br#"{"error": {"code": 401, "message": "bad token", "status": "UNAUTHENTICATED"}}"#;
        let anthropic = br#"{"type": "error", "error": {"type": "authentication_error", "message": "bad key"}}"#;
        let messages: Vec<String> = [&google[..], &anthropic[..]]
            .into_iter()
            .map(|body| match classify_response(401, &none, body).error {
                ApiError::Authentication { message } => message,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            messages,
            [
                "bad token (check the AWS or Google credentials the platform uses)",
                "bad key (check ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN)",
            ]
        );
    }
}
