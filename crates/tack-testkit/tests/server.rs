//! The server around the replies: recording, errors, exhaustion, auth, routes,
//! the prompt-cache simulation.

use crate::common;

use common::{client, json_of, post, read_events, request_body};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{MockServer, Options, Reply, Script};

#[tokio::test]
async fn requests_are_recorded_with_headers_and_body() {
    let server = MockServer::start(Script::new([Reply::text("hi")]))
        .await
        .unwrap();
    let body = request_body(false);

    let response = client()
        .post(format!("{}/v1/messages?beta=true", server.base_url()))
        .header("X-Api-Key", "sk-test")
        .header("anthropic-version", "2023-06-01")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(
        (
            request.method.as_str(),
            request.path.as_str(),
            &request.body
        ),
        ("POST", "/v1/messages", &body)
    );
    assert_eq!(request.header("x-api-key"), Some("sk-test"));
    assert_eq!(request.header("Anthropic-Version"), Some("2023-06-01"));
    assert!(request.headers.iter().any(|(name, _)| name == "x-api-key"));
    assert_eq!(request.header("x-missing"), None);
}

#[tokio::test]
async fn http_errors_carry_status_body_and_retry_headers() {
    let server = MockServer::start(Script::new([
        Reply::http_error(503, "api_error", "try later")
            .retry_after(3)
            .retry_after_ms(2500)
            .header("x-should-retry", "true"),
        Reply::overloaded(),
        Reply::rate_limited(7),
        Reply::prompt_too_long(210_000, 200_000),
    ]))
    .await
    .unwrap();
    let base = server.base_url();

    let mut seen = Vec::new();
    for _ in 0..4 {
        let response = post(&base, "/v1/messages", &request_body(true)).await;
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .map(|v| v.to_str().unwrap().to_owned())
        };
        let headers = (
            header("retry-after"),
            header("retry-after-ms"),
            header("x-should-retry"),
        );
        assert_eq!(header("content-type").as_deref(), Some("application/json"));
        let status = response.status().as_u16();
        seen.push((status, headers, json_of(response).await));
    }

    let s = |v: &str| Some(v.to_owned());
    assert_eq!(
        seen,
        vec![
            (
                503,
                (s("3"), s("2500"), s("true")),
                json!({"type": "error", "error": {"type": "api_error", "message": "try later"}, "request_id": "req_mock_1"})
            ),
            (
                529,
                (None, None, None),
                json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_mock_2"})
            ),
            (
                429,
                (s("7"), None, None),
                json!({"type": "error", "error": {"type": "rate_limit_error",
                    "message": "This request would exceed the rate limit for your organization"}, "request_id": "req_mock_3"})
            ),
            (
                400,
                (None, None, None),
                json!({"type": "error", "error": {"type": "invalid_request_error",
                    "message": "prompt is too long: 210000 tokens > 200000 maximum"}, "request_id": "req_mock_4"})
            ),
        ]
    );
}

#[tokio::test]
async fn an_exhausted_script_answers_500_naming_the_count() {
    let server = MockServer::start(Script::new([Reply::text("only one")]))
        .await
        .unwrap();
    let base = server.base_url();
    assert_eq!(server.remaining(), 1);

    assert_eq!(
        post(&base, "/v1/messages", &request_body(false))
            .await
            .status(),
        200
    );
    assert_eq!(server.remaining(), 0);
    let response = post(&base, "/v1/messages", &request_body(false)).await;

    assert_eq!(response.status(), 500);
    assert_eq!(response.headers()["x-should-retry"], "false");
    assert_eq!(
        json_of(response).await["error"],
        json!({"type": "api_error", "message": "tack-testkit: script exhausted after 1 replies"})
    );

    server.push(Reply::text("pushed"));
    assert_eq!(server.remaining(), 1);
    let pushed = post(&base, "/v1/messages", &request_body(false)).await;
    let body = json_of(pushed).await;
    assert_eq!(
        (body["id"].clone(), body["content"][0]["text"].clone()),
        (json!("msg_mock_2"), json!("pushed"))
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_looping_script_never_runs_out() {
    let server = MockServer::start(Script::new([Reply::text("again")]).looping())
        .await
        .unwrap();
    for _ in 0..3 {
        let response = post(&server.base_url(), "/v1/messages", &request_body(false)).await;
        assert_eq!(response.status(), 200);
    }
}

#[tokio::test]
async fn count_tokens_and_unknown_routes_consume_nothing() {
    let server = MockServer::start(Script::new([Reply::text("hi")]))
        .await
        .unwrap();
    let base = server.base_url();
    let body = request_body(false);

    let counted = post(&base, "/v1/messages/count_tokens", &body).await;
    assert_eq!(counted.status(), 200);
    let expected = serde_json::to_vec(&body).unwrap().len() / 4;
    assert_eq!(json_of(counted).await, json!({"input_tokens": expected}));

    let missing = client()
        .get(format!("{base}/v1/models"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    assert_eq!(json_of(missing).await["error"]["type"], "not_found_error");

    assert_eq!(server.remaining(), 1);
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, vec!["/v1/messages/count_tokens", "/v1/models"]);
}

#[tokio::test]
async fn a_malformed_body_is_rejected_without_consuming() {
    let server = MockServer::start(Script::new([Reply::text("hi")]))
        .await
        .unwrap();

    let response = client()
        .post(format!("{}/v1/messages", server.base_url()))
        .body("{\"model\": ")
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 400);
    assert_eq!(server.remaining(), 1);
    assert_eq!(server.requests()[0].body, Value::Null);
}

#[tokio::test]
async fn a_required_api_key_is_checked_in_either_header() {
    let options = Options {
        require_api_key: Some("sk-good".to_owned()),
    };
    let server = MockServer::start_with(Script::new([Reply::text("a"), Reply::text("b")]), options)
        .await
        .unwrap();
    let url = format!("{}/v1/messages", server.base_url());
    let body = request_body(false);
    let send = |name: &'static str, value: &'static str| {
        client()
            .post(&url)
            .header(name, value)
            .body(body.to_string())
            .send()
    };

    let bad = send("x-api-key", "sk-bad").await.unwrap();
    assert_eq!(bad.status(), 401);
    assert_eq!(
        json_of(bad).await["error"],
        json!({"type": "authentication_error", "message": "invalid x-api-key"})
    );
    assert_eq!(send("x-api-key", "sk-good").await.unwrap().status(), 200);
    assert_eq!(
        send("authorization", "Bearer sk-good")
            .await
            .unwrap()
            .status(),
        200
    );
    assert_eq!(server.remaining(), 0);
}

#[tokio::test]
async fn a_repeated_prefix_is_reported_as_a_cache_read() {
    let server = MockServer::start(Script::new([Reply::text("one"), Reply::text("two")]))
        .await
        .unwrap();
    let system = json!([{"type": "text", "text": "You are tack. ".repeat(200), "cache_control": {"type": "ephemeral"}}]);
    let first = json!({"model": "m", "max_tokens": 10, "stream": true, "system": system,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]});
    let second = json!({"model": "m", "max_tokens": 10, "stream": true, "system": system,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "one"}]},
            {"role": "user", "content": [{"type": "text", "text": "and again", "cache_control": {"type": "ephemeral"}}]}]});

    let usage = |events: &[common::Received]| events[0].data["message"]["usage"].clone();
    let (events, _) = read_events(post(&server.base_url(), "/v1/messages", &first).await).await;
    let first_usage = usage(&events);
    let (events, _) = read_events(post(&server.base_url(), "/v1/messages", &second).await).await;
    let second_usage = usage(&events);

    assert_eq!(first_usage["cache_read_input_tokens"], 0);
    let written = first_usage["cache_creation_input_tokens"].as_u64().unwrap();
    assert!(written > 500);
    assert_eq!(second_usage["cache_read_input_tokens"], written);
    assert!(
        second_usage["cache_creation_input_tokens"]
            .as_u64()
            .unwrap()
            > 0
    );
}
