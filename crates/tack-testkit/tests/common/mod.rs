//! Helpers shared by the integration tests: an HTTP client and an SSE reader.

#![allow(dead_code)] // each test binary uses a different subset

use std::time::Instant;

use futures::StreamExt;
use serde_json::{Value, json};

/// A plain-HTTP client. reqwest is built without a default crypto provider, so
/// one is installed even though no test uses TLS.
pub fn client() -> reqwest::Client {
    // Another test in the same binary may have installed it first.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// A minimal Messages request body.
pub fn request_body(stream: bool) -> Value {
    json!({
        "model": "claude-test",
        "max_tokens": 1024,
        "stream": stream,
        "messages": [{"role": "user", "content": "hello"}],
    })
}

/// POSTs `body` to `{base}{path}`.
pub async fn post(base: &str, path: &str, body: &Value) -> reqwest::Response {
    client()
        .post(format!("{base}{path}"))
        .header("anthropic-version", "2023-06-01")
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("request reaches the mock")
}

/// The response body as JSON (reqwest's `json` feature is off in this workspace).
pub async fn json_of(response: reqwest::Response) -> Value {
    let bytes = response.bytes().await.expect("complete body");
    serde_json::from_slice(&bytes).expect("JSON body")
}

/// One SSE event as received.
#[derive(Debug)]
pub struct Received {
    pub at: Instant,
    pub name: String,
    pub data: Value,
}

/// Reads an SSE body event by event, noting when each arrived. The `Err` is the
/// transport error that ended the body early, if any.
pub async fn read_events(response: reqwest::Response) -> (Vec<Received>, Result<(), String>) {
    let mut chunks = response.bytes_stream();
    let mut buffer = String::new();
    let mut events = Vec::new();
    let end = loop {
        match chunks.next().await {
            None => break Ok(()),
            Some(Err(e)) => break Err(format!("{e:?}")),
            Some(Ok(bytes)) => {
                buffer.push_str(std::str::from_utf8(&bytes).expect("UTF-8 chunk"));
                while let Some(pos) = buffer.find("\n\n") {
                    let frame: String = buffer.drain(..pos + 2).collect();
                    events.push(parse_frame(&frame));
                }
            }
        }
    };
    assert_eq!(buffer, "", "no partial event left over");
    (events, end)
}

fn parse_frame(frame: &str) -> Received {
    let mut name = String::new();
    let mut data = String::new();
    for line in frame.lines() {
        if let Some(rest) = line.strip_prefix("event: ") {
            name = rest.to_owned();
        } else if let Some(rest) = line.strip_prefix("data: ") {
            data = rest.to_owned();
        } else if !line.is_empty() {
            panic!("unexpected SSE line {line:?}");
        }
    }
    Received {
        at: Instant::now(),
        name,
        data: serde_json::from_str(&data).expect("data is JSON"),
    }
}

/// Event names and data, for whole-sequence comparisons.
pub fn pairs(events: &[Received]) -> Vec<(String, Value)> {
    events
        .iter()
        .map(|e| (e.name.clone(), e.data.clone()))
        .collect()
}

pub fn names(events: &[Received]) -> Vec<&str> {
    events.iter().map(|e| e.name.as_str()).collect()
}
