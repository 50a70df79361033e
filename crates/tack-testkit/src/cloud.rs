//! The cloud platforms' routes, answered from the same script:
//!
//! - Bedrock: `POST /model/{id}/invoke-with-response-stream` streams the next
//!   reply as AWS event-stream messages (each event's JSON base64 in a `chunk`
//!   message's `{"bytes"}`; a scripted error event becomes an exception message);
//!   an error reply is AWS's `{"message"}` with `x-amzn-ErrorType`. A SigV4
//!   `Authorization` header must have the algorithm's shape (scope
//!   `DATE/REGION/bedrock/aws4_request`, `host` and `x-amz-date` signed, a
//!   64-digit hex signature, a matching `x-amz-date`), else 403
//!   `InvalidSignatureException` without consuming a reply.
//! - Vertex: `POST .../publishers/anthropic/models/{id}:streamRawPredict` (and
//!   `:rawPredict`) answers like `/v1/messages`, the model taken from the path.
//! - `POST /token`: an OAuth token endpoint; every call gets a new
//!   `ya29.mock-N` access token valid for an hour.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use base64::Engine as _;
use serde_json::{Value, json};

use crate::sse::SseEvent;

/// A request on one of the cloud routes.
pub(crate) enum Route {
    Bedrock { model: String },
    Vertex { model: String },
    Token,
}

pub(crate) fn route(path: &str) -> Option<Route> {
    if path == "/token" {
        return Some(Route::Token);
    }
    if let Some(rest) = path.strip_prefix("/model/")
        && let Some(model) = rest.strip_suffix("/invoke-with-response-stream")
    {
        return Some(Route::Bedrock {
            model: percent_decode(model),
        });
    }
    let (_, model) = path.split_once("/publishers/anthropic/models/")?;
    let model = model
        .strip_suffix(":streamRawPredict")
        .or_else(|| model.strip_suffix(":rawPredict"))?;
    Some(Route::Vertex {
        model: model.to_owned(),
    })
}

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

/// A form body (`a=b&c=d`) as a JSON object, so a test asserts on it like on JSON.
pub(crate) fn form_json(body: &[u8]) -> Value {
    let text = String::from_utf8_lossy(body);
    let map = text
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| {
            let v = percent_decode(&v.replace('+', " "));
            (percent_decode(k), Value::String(v))
        })
        .collect();
    Value::Object(map)
}

pub(crate) fn token_response(n: usize) -> Response {
    let body = json!({"access_token": format!("ya29.mock-{n}"), "expires_in": 3600, "token_type": "Bearer"});
    let mut response = Response::new(Body::from(body.to_string()));
    response.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    );
    response
}

/// Why a SigV4 `Authorization` header is malformed; `None` when it has the
/// algorithm's shape (or is not SigV4 at all).
pub(crate) fn sigv4_problem(headers: &HeaderMap) -> Option<String> {
    let auth = headers.get("authorization")?.to_str().ok()?;
    let rest = auth.strip_prefix("AWS4-HMAC-SHA256 ")?;
    let check = || -> Result<(), &'static str> {
        let mut parts = rest.split(", ");
        let credential = parts.next().and_then(|p| p.strip_prefix("Credential="));
        let signed = parts.next().and_then(|p| p.strip_prefix("SignedHeaders="));
        let signature = parts.next().and_then(|p| p.strip_prefix("Signature="));
        let (Some(credential), Some(signed), Some(signature), None) =
            (credential, signed, signature, parts.next())
        else {
            return Err("expected Credential=, SignedHeaders=, Signature=");
        };
        let scope: Vec<_> = credential.split('/').collect();
        let [key, date, region, "bedrock", "aws4_request"] = scope.as_slice() else {
            return Err("credential scope is not KEY/DATE/REGION/bedrock/aws4_request");
        };
        if key.is_empty() || region.is_empty() || date.len() != 8 {
            return Err("bad credential scope");
        }
        let names: Vec<_> = signed.split(';').collect();
        if !names.contains(&"host") || !names.contains(&"x-amz-date") {
            return Err("host and x-amz-date must be signed");
        }
        if signature.len() != 64 || !signature.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err("signature is not 64 hex digits");
        }
        let amz_date = headers.get("x-amz-date").and_then(|v| v.to_str().ok());
        if !amz_date.is_some_and(|d| d.starts_with(date)) {
            return Err("x-amz-date missing or not the scope's date");
        }
        Ok(())
    };
    check().err().map(str::to_owned)
}

/// AWS's error response: `{"message"}` and the exception's name in `x-amzn-ErrorType`.
pub(crate) fn aws_error(status: u16, error_type: &str, message: &str) -> Response {
    let mut response = Response::new(Body::from(json!({"message": message}).to_string()));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    let exception = exception_name(error_type);
    let headers = response.headers_mut();
    if let Ok(v) =
        format!("{exception}:http://internal.amazon.com/coral/com.amazon.bedrock/").parse()
    {
        headers.insert("x-amzn-errortype", v);
    }
    headers.insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    );
    response
}

/// Bedrock's exception for an Anthropic error type.
fn exception_name(error_type: &str) -> &'static str {
    match error_type {
        "rate_limit_error" => "ThrottlingException",
        "overloaded_error" => "ServiceUnavailableException",
        "invalid_request_error" => "ValidationException",
        "authentication_error" | "permission_error" => "AccessDeniedException",
        "not_found_error" => "ResourceNotFoundException",
        "InvalidSignatureException" => "InvalidSignatureException",
        _ => "InternalServerException",
    }
}

/// One event as an event-stream message: a `chunk` event carrying the JSON, or
/// for an `error` event an exception message.
pub(crate) fn encode_event(event: &SseEvent) -> Bytes {
    if event.name == "error" {
        let error_type = event.data["error"]["type"].as_str().unwrap_or("api_error");
        let message = event.data["error"]["message"].as_str().unwrap_or("");
        let name = exception_name(error_type);
        let mut kind = name.to_owned();
        // Exception frames name the type in lower camel case.
        kind[..1].make_ascii_lowercase();
        let payload = json!({"message": message}).to_string();
        return frame(
            &[
                (":exception-type", &kind),
                (":content-type", "application/json"),
                (":message-type", "exception"),
            ],
            payload.as_bytes(),
        );
    }
    let b64 = base64::engine::general_purpose::STANDARD.encode(event.data.to_string());
    let payload =
        json!({"bytes": b64, "p": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"});
    frame(
        &[
            (":event-type", "chunk"),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        payload.to_string().as_bytes(),
    )
}

/// One event-stream message with string headers (prelude, CRCs).
pub(crate) fn frame(headers: &[(&str, &str)], payload: &[u8]) -> Bytes {
    let mut head = Vec::new();
    for (name, value) in headers {
        head.push(u8::try_from(name.len()).unwrap_or(u8::MAX));
        head.extend_from_slice(name.as_bytes());
        head.push(7);
        head.extend_from_slice(&u16::try_from(value.len()).unwrap_or(u16::MAX).to_be_bytes());
        head.extend_from_slice(value.as_bytes());
    }
    let total = 12 + head.len() + payload.len() + 4;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&u32::try_from(total).unwrap_or(u32::MAX).to_be_bytes());
    out.extend_from_slice(&u32::try_from(head.len()).unwrap_or(u32::MAX).to_be_bytes());
    out.extend_from_slice(&crc32fast::hash(&out[..8]).to_be_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(payload);
    out.extend_from_slice(&crc32fast::hash(&out).to_be_bytes());
    Bytes::from(out)
}
