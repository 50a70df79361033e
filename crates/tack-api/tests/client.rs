//! The real client over real HTTP against the testkit server.

use std::time::{Duration, Instant};

use futures::StreamExt;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_api::{
    AnthropicClient, ApiError, Auth, ClientConfig, ModelClient, RetryPolicy, StreamEvent,
    ToolInputError,
};
use tack_protocol::{
    ContentBlock, Message, MessageResponse, MessagesRequest, Role, SseEvent, StopReason, Usage,
};
use tack_testkit::{MockServer, Reply, Script};
use tokio_util::sync::CancellationToken;

fn config(server: &MockServer) -> ClientConfig {
    ClientConfig {
        base_url: server.base_url(),
        auth: Auth::ApiKey("sk-ant-test".into()),
        retry: RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(2),
            max_delay: Duration::from_millis(10),
            max_retry_after: Duration::from_secs(60),
        },
        ..ClientConfig::default()
    }
}

fn client(server: &MockServer) -> AnthropicClient {
    client_with(config(server))
}

fn client_with(config: ClientConfig) -> AnthropicClient {
    match AnthropicClient::new(config) {
        Ok(client) => client,
        Err(e) => panic!("client: {e}"),
    }
}

fn request() -> MessagesRequest {
    MessagesRequest::new("claude-sonnet-4-5", 1024, vec![Message::user_text("hi")])
}

async fn collect(client: &AnthropicClient) -> Vec<Result<StreamEvent, ApiError>> {
    client
        .stream(request(), CancellationToken::new())
        .collect()
        .await
}

/// Everything but the raw SSE events, which the testkit chunks as it likes,
/// and the request id (asserted by `the_answering_attempts_request_id_comes_first`).
fn summary(events: &[Result<StreamEvent, ApiError>]) -> Vec<Result<StreamEvent, ApiError>> {
    events
        .iter()
        .filter(|e| !matches!(e, Ok(StreamEvent::Sse(_) | StreamEvent::RequestId(_))))
        .cloned()
        .collect()
}

/// The request id of the attempt that answered (the testkit's `request-id`
/// header, `req_mock_<n>` for its n-th request), after the retries and
/// before any content; the failed attempt's id is never reported.
#[tokio::test]
async fn the_answering_attempts_request_id_comes_first() {
    let server = MockServer::start(Script::new([Reply::overloaded(), Reply::text("ok")]))
        .await
        .unwrap();
    let events = collect(&client(&server)).await;
    let kinds: Vec<String> = events
        .iter()
        .filter(|e| !matches!(e, Ok(StreamEvent::Sse(_) | StreamEvent::BlockDone { .. })))
        .map(|e| match e {
            Ok(StreamEvent::Retry { .. }) => "retry".to_owned(),
            Ok(StreamEvent::RequestId(id)) => id.clone(),
            Ok(StreamEvent::MessageDone(_)) => "done".to_owned(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["retry", "req_mock_2", "done"]);
}

fn message(
    id: &str,
    content: Vec<ContentBlock>,
    stop: StopReason,
    usage: Usage,
) -> MessageResponse {
    MessageResponse {
        id: id.into(),
        kind: "message".into(),
        role: Role::Assistant,
        model: "claude-sonnet-4-5".into(),
        content,
        stop_reason: Some(stop),
        stop_sequence: None,
        usage,
        stop_details: None,
    }
}

fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_creation: Some(Default::default()),
        service_tier: Some("standard".into()),
        ..Usage::default()
    }
}

fn retry(attempt: u32, max_retries: u32, error: ApiError) -> impl Fn(&StreamEvent) -> bool {
    move |e| {
        matches!(e, StreamEvent::Retry { attempt: a, max_retries: m, error: err, .. }
        if *a == attempt && *m == max_retries && *err == error)
    }
}

fn overloaded() -> ApiError {
    ApiError::Overloaded {
        retry_after: None,
        message: "Overloaded".into(),
    }
}

#[tokio::test]
async fn streams_text_and_tool_use_and_sends_the_right_request() {
    let server = MockServer::start(Script::new([Reply::message()
        .text("Let me look at that file for you.")
        .tool_use("toolu_01", "Read", json!({"file_path": "/x", "limit": 80}))
        .usage(10, 5)
        .into()]))
    .await
    .unwrap();
    let mut config = config(&server);
    config.betas = vec!["interleaved-thinking-2025-05-14".into(), "b2".into()];
    config.extra_headers = vec![("X-Team".into(), "tack".into())];
    let events = collect(&client_with(config)).await;

    let text = ContentBlock::text("Let me look at that file for you.");
    let read = ContentBlock::tool_use("toolu_01", "Read", json!({"file_path": "/x", "limit": 80}));
    let done = message(
        "msg_mock_1",
        vec![text.clone(), read.clone()],
        StopReason::ToolUse,
        usage(10, 5),
    );
    assert_eq!(
        summary(&events),
        vec![
            Ok(StreamEvent::BlockDone {
                index: 0,
                block: text,
                input_error: None
            }),
            Ok(StreamEvent::BlockDone {
                index: 1,
                block: read,
                input_error: None
            }),
            Ok(StreamEvent::MessageDone(done)),
        ]
    );
    // The raw events: message_start, ping, block events..., message_delta, message_stop.
    let sse: Vec<&SseEvent> = events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::Sse(s)) => Some(s),
            _ => None,
        })
        .collect();
    assert!(matches!(sse.first(), Some(SseEvent::MessageStart { .. })));
    assert!(matches!(sse.get(1), Some(SseEvent::Ping)));
    assert!(matches!(sse.last(), Some(SseEvent::MessageStop)));
    assert!(sse.len() > 10, "{sse:?}");

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(
        r.body,
        json!({"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,
               "messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]})
    );
    let headers: Vec<Option<&str>> = [
        "x-api-key",
        "authorization",
        "anthropic-version",
        "anthropic-beta",
        "content-type",
        "x-team",
        "user-agent",
    ]
    .iter()
    .map(|h| r.header(h))
    .collect();
    let ua = format!("tack/{}", env!("CARGO_PKG_VERSION"));
    assert_eq!(
        headers,
        vec![
            Some("sk-ant-test"),
            None,
            Some("2023-06-01"),
            Some("interleaved-thinking-2025-05-14,b2"),
            Some("application/json"),
            Some("tack"),
            Some(ua.as_str()),
        ]
    );
}

#[tokio::test]
async fn bearer_auth() {
    let server = MockServer::start(Script::new([Reply::text("hi")]))
        .await
        .unwrap();
    let mut config = config(&server);
    config.auth = Auth::Bearer("tok".into());
    let events = collect(&client_with(config)).await;
    assert!(matches!(
        events.last(),
        Some(Ok(StreamEvent::MessageDone(_)))
    ));
    let r = &server.requests()[0];
    assert_eq!(
        (r.header("authorization"), r.header("x-api-key")),
        (Some("Bearer tok"), None)
    );
}

#[tokio::test]
async fn thinking_block_and_custom_stop_reason() {
    let server = MockServer::start(Script::new([Reply::message()
        .thinking("Let me think about this carefully.", "sig_1")
        .text("Cut")
        .stop_reason("max_tokens")
        .usage(3, 4)
        .into()]))
    .await
    .unwrap();
    let events = collect(&client(&server)).await;
    let thinking = ContentBlock::Thinking {
        thinking: "Let me think about this carefully.".into(),
        signature: "sig_1".into(),
    };
    let text = ContentBlock::text("Cut");
    let done = message(
        "msg_mock_1",
        vec![thinking.clone(), text.clone()],
        StopReason::MaxTokens,
        usage(3, 4),
    );
    assert_eq!(
        summary(&events),
        vec![
            Ok(StreamEvent::BlockDone {
                index: 0,
                block: thinking,
                input_error: None
            }),
            Ok(StreamEvent::BlockDone {
                index: 1,
                block: text,
                input_error: None
            }),
            Ok(StreamEvent::MessageDone(done)),
        ]
    );
}

#[tokio::test]
async fn server_tool_blocks_assemble_whole_with_citations() {
    let hits = json!([{"type": "web_search_result", "url": "https://a.example/x", "title": "A", "encrypted_content": "enc"}]);
    let citation = json!({"type": "web_search_result_location", "url": "https://a.example/x", "title": "A", "cited_text": "x"});
    let server = MockServer::start(Script::new([Reply::message()
        .server_tool_use("srvtoolu_01", "web_search", json!({"query": "rust async"}))
        .web_search_tool_result("srvtoolu_01", hits.clone())
        .cited_text("Per A, yes.", vec![citation.clone()])
        .usage(3, 4)
        .into()]))
    .await
    .unwrap();
    let events = collect(&client(&server)).await;
    let call =
        ContentBlock::server_tool_use("srvtoolu_01", "web_search", json!({"query": "rust async"}));
    let result = ContentBlock::web_search_tool_result("srvtoolu_01", hits);
    let text = ContentBlock::Text {
        text: "Per A, yes.".into(),
        citations: Some(vec![citation]),
        cache_control: None,
    };
    let done = message(
        "msg_mock_1",
        vec![call.clone(), result.clone(), text.clone()],
        StopReason::EndTurn,
        usage(3, 4),
    );
    assert_eq!(
        summary(&events),
        vec![
            Ok(StreamEvent::BlockDone {
                index: 0,
                block: call,
                input_error: None
            }),
            Ok(StreamEvent::BlockDone {
                index: 1,
                block: result,
                input_error: None
            }),
            Ok(StreamEvent::BlockDone {
                index: 2,
                block: text,
                input_error: None
            }),
            Ok(StreamEvent::MessageDone(done)),
        ]
    );
}

#[tokio::test]
async fn malformed_tool_input_is_reported_not_run() {
    let server = MockServer::start(Script::new([Reply::message()
        .raw_tool_input("toolu_9", "Bash", "{\"command\": \"ls\"")
        .usage(1, 1)
        .into()]))
    .await
    .unwrap();
    let events = collect(&client(&server)).await;
    let block = ContentBlock::tool_use("toolu_9", "Bash", json!({}));
    let error = ToolInputError {
        id: "toolu_9".into(),
        name: "Bash".into(),
        raw: "{\"command\": \"ls\"".into(),
        message: "EOF while parsing an object at line 1 column 16".into(),
    };
    let done = message(
        "msg_mock_1",
        vec![block.clone()],
        StopReason::ToolUse,
        usage(1, 1),
    );
    assert_eq!(
        summary(&events),
        vec![
            Ok(StreamEvent::BlockDone {
                index: 0,
                block,
                input_error: Some(error)
            }),
            Ok(StreamEvent::MessageDone(done)),
        ]
    );
}

#[tokio::test]
async fn each_http_error_class() {
    let spend_cap = Reply::http_error(
        429,
        "rate_limit_error",
        "You have reached your specified API usage limits",
    );
    let cases: Vec<(Reply, ApiError)> = vec![
        (
            Reply::http_error(400, "invalid_request_error", "max_tokens: Field required"),
            ApiError::InvalidRequest {
                message: "max_tokens: Field required".into(),
                request_id: Some("req_mock_1".into()),
            },
        ),
        (
            Reply::prompt_too_long(210000, 200000),
            ApiError::PromptTooLong {
                actual: Some(210000),
                limit: Some(200000),
                message: "prompt is too long: 210000 tokens > 200000 maximum".into(),
            },
        ),
        (
            Reply::http_error(401, "authentication_error", "invalid x-api-key"),
            ApiError::Authentication {
                message: "invalid x-api-key (check ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN)"
                    .into(),
            },
        ),
        (
            Reply::http_error(402, "billing_error", "pay"),
            ApiError::Billing {
                message: "pay".into(),
            },
        ),
        (
            Reply::http_error(403, "permission_error", "no"),
            ApiError::Permission {
                message: "no".into(),
            },
        ),
        (
            Reply::http_error(404, "not_found_error", "model: x"),
            ApiError::NotFound {
                message: "model: x".into(),
            },
        ),
        (
            Reply::http_error(413, "request_too_large", "too big"),
            ApiError::RequestTooLarge {
                message: "too big".into(),
            },
        ),
        (
            spend_cap,
            ApiError::RateLimited {
                retry_after: None,
                message: "You have reached your specified API usage limits".into(),
            },
        ),
        (
            Reply::http_error(418, "teapot", "short and stout"),
            ApiError::Other {
                status: 418,
                message: "short and stout".into(),
            },
        ),
    ];
    for (reply, expected) in cases {
        let server = MockServer::start(Script::new([reply])).await.unwrap();
        let started = Instant::now();
        let events = collect(&client(&server)).await;
        assert_eq!(events, vec![Err(expected.clone())], "{expected:?}");
        assert_eq!(server.requests().len(), 1, "not retried: {expected:?}");
        assert!(started.elapsed() < Duration::from_secs(2));
    }
}

#[tokio::test]
async fn retryable_classes_give_up_after_the_limit() {
    let cases: Vec<(Reply, ApiError)> = vec![
        (Reply::overloaded(), overloaded()),
        (
            Reply::http_error(500, "api_error", "Internal server error"),
            ApiError::Server {
                status: 500,
                retry_after: None,
                message: "Internal server error".into(),
            },
        ),
        (
            Reply::http_error(429, "rate_limit_error", "slow down").retry_after_ms(5),
            ApiError::RateLimited {
                retry_after: Some(Duration::from_millis(5)),
                message: "slow down".into(),
            },
        ),
    ];
    for (reply, expected) in cases {
        let server = MockServer::start(Script::new([reply.clone(), reply.clone(), reply.clone()]))
            .await
            .unwrap();
        let mut config = config(&server);
        config.retry.max_retries = 2;
        let events = collect(&client_with(config)).await;
        assert_eq!(events.len(), 3, "{events:?}");
        assert!(
            matches!(&events[0], Ok(e) if retry(1, 2, expected.clone())(e)),
            "{events:?}"
        );
        assert!(
            matches!(&events[1], Ok(e) if retry(2, 2, expected.clone())(e)),
            "{events:?}"
        );
        assert_eq!(events[2], Err(expected));
        assert_eq!(server.requests().len(), 3);
    }
}

#[tokio::test]
async fn retries_then_succeeds() {
    let server = MockServer::start(Script::new([
        Reply::overloaded(),
        Reply::http_error(503, "api_error", "unavailable"),
        Reply::text("hi"),
    ]))
    .await
    .unwrap();
    let events = collect(&client(&server)).await;
    assert!(
        matches!(&events[0], Ok(e) if retry(1, 3, overloaded())(e)),
        "{events:?}"
    );
    let unavailable = ApiError::Server {
        status: 503,
        retry_after: None,
        message: "unavailable".into(),
    };
    assert!(
        matches!(&events[1], Ok(e) if retry(2, 3, unavailable.clone())(e)),
        "{events:?}"
    );
    assert_eq!(events[2], Ok(StreamEvent::RequestId("req_mock_3".into())));
    assert!(matches!(
        &events[3],
        Ok(StreamEvent::Sse(SseEvent::MessageStart { .. }))
    ));
    let Some(Ok(StreamEvent::MessageDone(done))) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(done.content, vec![ContentBlock::text("hi")]);
    assert_eq!(server.requests().len(), 3);
    // Each retry re-sends the same request.
    let bodies: Vec<_> = server.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(bodies[0], bodies[2]);
}

#[tokio::test]
async fn retry_after_seconds_is_honoured() {
    let server = MockServer::start(Script::new([Reply::rate_limited(1), Reply::text("hi")]))
        .await
        .unwrap();
    let started = Instant::now();
    let events = collect(&client(&server)).await;
    let elapsed = started.elapsed();
    let limited = ApiError::RateLimited {
        retry_after: Some(Duration::from_secs(1)),
        message: "This request would exceed the rate limit for your organization".into(),
    };
    assert_eq!(
        events.first(),
        Some(&Ok(StreamEvent::Retry {
            attempt: 1,
            max_retries: 3,
            delay: Duration::from_secs(1),
            error: limited
        }))
    );
    assert!(matches!(
        events.last(),
        Some(Ok(StreamEvent::MessageDone(_)))
    ));
    assert!(elapsed >= Duration::from_secs(1), "{elapsed:?}");
}

#[tokio::test]
async fn retry_after_ms_is_honoured_and_beats_backoff() {
    let server = MockServer::start(Script::new([
        Reply::overloaded().retry_after_ms(300),
        Reply::text("hi"),
    ]))
    .await
    .unwrap();
    let started = Instant::now();
    let events = collect(&client(&server)).await;
    let elapsed = started.elapsed();
    let Some(Ok(StreamEvent::Retry { delay, .. })) = events.first() else {
        panic!("{events:?}")
    };
    assert_eq!(*delay, Duration::from_millis(300));
    assert!(elapsed >= Duration::from_millis(300), "{elapsed:?}");
}

#[tokio::test]
async fn x_should_retry_false_is_obeyed() {
    // The testkit answers an exhausted script with 500 + `x-should-retry: false`.
    let server = MockServer::start(Script::new([])).await.unwrap();
    let events = collect(&client(&server)).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(matches!(
        &events[0],
        Err(ApiError::Server { status: 500, .. })
    ));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn mid_stream_error_before_content_is_retried_silently() {
    // Events 0 and 1 are message_start and ping; the error comes before any block.
    let failing =
        Reply::message()
            .text("lost")
            .error_event_after(2, "overloaded_error", "Overloaded");
    let server = MockServer::start(Script::new([failing.into(), Reply::text("hi")]))
        .await
        .unwrap();
    let events = collect(&client(&server)).await;
    assert!(
        matches!(&events[0], Ok(e) if retry(1, 3, overloaded())(e)),
        "{events:?}"
    );
    // Nothing of the failed attempt reaches the consumer.
    let starts = events
        .iter()
        .filter(|e| matches!(e, Ok(StreamEvent::Sse(SseEvent::MessageStart { message })) if message.id == "msg_mock_2"))
        .count();
    let all_starts = events
        .iter()
        .filter(|e| matches!(e, Ok(StreamEvent::Sse(SseEvent::MessageStart { .. }))))
        .count();
    assert_eq!((starts, all_starts), (1, 1));
    let Some(Ok(StreamEvent::MessageDone(done))) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(done.content, vec![ContentBlock::text("hi")]);
}

#[tokio::test]
async fn connection_cut_before_content_is_retried() {
    let server = MockServer::start(Script::new([
        Reply::message().text("lost").cut_after(1).into(),
        Reply::text("hi"),
    ]))
    .await
    .unwrap();
    let events = collect(&client(&server)).await;
    assert!(
        matches!(
            &events[0],
            Ok(StreamEvent::Retry {
                attempt: 1,
                error: ApiError::Connection { .. },
                ..
            })
        ),
        "{events:?}"
    );
    assert!(matches!(
        events.last(),
        Some(Ok(StreamEvent::MessageDone(_)))
    ));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn no_retry_once_content_streamed() {
    // Event 2 is the first content_block_start.
    type IsExpected = fn(&ApiError) -> bool;
    let cases: Vec<(Reply, IsExpected)> = vec![
        (
            Reply::message()
                .text("partial answer")
                .error_event_after(4, "overloaded_error", "Overloaded")
                .into(),
            |e| *e == overloaded(),
        ),
        (
            Reply::message().text("partial answer").cut_after(4).into(),
            |e| matches!(e, ApiError::Connection { .. }),
        ),
    ];
    for (reply, is_expected) in cases {
        let server = MockServer::start(Script::new([reply, Reply::text("never")]))
            .await
            .unwrap();
        let events = collect(&client(&server)).await;
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, Ok(StreamEvent::Retry { .. }))),
            "{events:?}"
        );
        let kinds: Vec<&str> = events
            .iter()
            .map(|e| match e {
                Ok(StreamEvent::Sse(SseEvent::MessageStart { .. })) => "message_start",
                Ok(StreamEvent::Sse(SseEvent::Ping)) => "ping",
                Ok(StreamEvent::Sse(SseEvent::ContentBlockStart { .. })) => "block_start",
                Ok(StreamEvent::Sse(SseEvent::ContentBlockDelta { .. })) => "delta",
                Ok(_) => "other",
                Err(_) => "err",
            })
            .collect();
        assert_eq!(
            kinds,
            vec![
                "other",
                "message_start",
                "ping",
                "block_start",
                "delta",
                "err"
            ]
        );
        let Some(Err(error)) = events.last() else {
            panic!()
        };
        assert!(is_expected(error), "{error:?}");
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn watchdog_fires_on_a_stalled_stream() {
    let stalled = Reply::message()
        .text("Hello there, general")
        .stall_after(3, Duration::from_secs(30));
    let server = MockServer::start(Script::new([stalled.into()]))
        .await
        .unwrap();
    let mut config = config(&server);
    config.idle_timeout = Duration::from_millis(300);
    let started = Instant::now();
    let events = collect(&client_with(config)).await;
    let elapsed = started.elapsed();
    assert_eq!(
        events.last(),
        Some(&Err(ApiError::IdleTimeout(Duration::from_millis(300))))
    );
    // The request id, three SSE events, the timeout.
    assert_eq!(events.len(), 5, "{events:?}");
    assert!(
        elapsed >= Duration::from_millis(300) && elapsed < Duration::from_secs(5),
        "{elapsed:?}"
    );
}

#[tokio::test]
async fn watchdog_resets_on_every_chunk() {
    // 20 events 100 ms apart: 2 s in total, never 300 ms without bytes.
    let paced = Reply::message()
        .text(&"word ".repeat(30))
        .pacing(Duration::from_millis(100));
    let server = MockServer::start(Script::new([paced.into()]))
        .await
        .unwrap();
    let mut config = config(&server);
    config.idle_timeout = Duration::from_millis(300);
    let events = collect(&client_with(config)).await;
    assert!(
        matches!(events.last(), Some(Ok(StreamEvent::MessageDone(_)))),
        "{events:?}"
    );
}

#[tokio::test]
async fn cancel_stops_the_stream_promptly() {
    let slow = Reply::message()
        .text(&"word ".repeat(200))
        .pacing(Duration::from_millis(50));
    let server = MockServer::start(Script::new([slow.into()])).await.unwrap();
    let client = client(&server);
    let cancel = CancellationToken::new();
    let mut stream = client.stream(request(), cancel.clone());
    for _ in 0..4 {
        assert!(matches!(stream.next().await, Some(Ok(_))));
    }
    // Cancel from elsewhere while the client waits for the next chunk.
    let canceller = cancel.clone();
    let started = Instant::now();
    tokio::spawn(async move { canceller.cancel() });
    let mut rest = Vec::new();
    while let Some(item) = stream.next().await {
        rest.push(item);
    }
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(rest.last(), Some(&Err(ApiError::Cancelled)));
    assert!(rest.len() <= 2, "{rest:?}");
}

#[tokio::test]
async fn cancel_during_retry_backoff() {
    let server = MockServer::start(Script::new([Reply::rate_limited(30)]))
        .await
        .unwrap();
    let client = client(&server);
    let cancel = CancellationToken::new();
    let mut stream = client.stream(request(), cancel.clone());
    assert!(matches!(
        stream.next().await,
        Some(Ok(StreamEvent::Retry { .. }))
    ));
    cancel.cancel();
    let started = Instant::now();
    assert_eq!(stream.next().await, Some(Err(ApiError::Cancelled)));
    assert_eq!(stream.next().await, None);
    assert!(started.elapsed() < Duration::from_millis(500));
}

#[tokio::test]
async fn dropping_the_stream_stops_reading() {
    let slow = Reply::message()
        .text(&"word ".repeat(200))
        .pacing(Duration::from_millis(20));
    let server = MockServer::start(Script::new([slow.into(), Reply::text("next")]))
        .await
        .unwrap();
    let client = client(&server);
    let mut stream = client.stream(request(), CancellationToken::new());
    assert!(matches!(stream.next().await, Some(Ok(_))));
    drop(stream);
    // The pooled client is still usable for the next request.
    let events = collect(&client).await;
    let Some(Ok(StreamEvent::MessageDone(done))) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(done.content, vec![ContentBlock::text("next")]);
}

#[tokio::test]
async fn connection_refused_is_a_retryable_connection_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let client = client_with(ClientConfig {
        base_url: format!("http://127.0.0.1:{port}"),
        retry: RetryPolicy {
            max_retries: 1,
            base_delay: Duration::from_millis(1),
            ..RetryPolicy::default()
        },
        ..ClientConfig::default()
    });
    let events = collect(&client).await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(matches!(
        &events[0],
        Ok(StreamEvent::Retry {
            error: ApiError::Connection { .. },
            ..
        })
    ));
    let Err(ApiError::Connection { message }) = &events[1] else {
        panic!("{events:?}")
    };
    assert!(message.contains("onnect"), "{message}");
}

#[tokio::test]
async fn count_tokens_sends_only_the_counted_fields() {
    let server = MockServer::start(Script::new([])).await.unwrap();
    let mut request = request();
    request.temperature = Some(0.5);
    request.system = Some(tack_protocol::SystemPrompt::Text("be brief".into()));
    let n = client(&server).count_tokens(&request).await;
    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/messages/count_tokens");
    let expected_body = json!({"model":"claude-sonnet-4-5","system":"be brief",
        "messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]});
    assert_eq!(r.body, expected_body);
    assert_eq!(n, Ok(expected_body.to_string().len() as u64 / 4));
}

#[test]
fn bad_header_values_fail_at_construction() {
    let config = ClientConfig {
        auth: Auth::ApiKey("bad\nkey".into()),
        ..ClientConfig::default()
    };
    assert_eq!(
        AnthropicClient::new(config).map(|_| ()),
        Err(ApiError::InvalidRequest {
            message: "invalid credential".into(),
            request_id: None
        })
    );
}

#[test]
fn stream_can_be_created_outside_the_runtime() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt
        .block_on(MockServer::start(Script::new([Reply::text("hi")])))
        .unwrap();
    let client = client(&server);
    let stream = client.stream(request(), CancellationToken::new());
    let events: Vec<_> = rt.block_on(stream.collect());
    assert!(
        matches!(events.last(), Some(Ok(StreamEvent::MessageDone(_)))),
        "{events:?}"
    );
}
