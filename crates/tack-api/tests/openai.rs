//! The OpenAI clients over real HTTP against the testkit server's OpenAI routes.

use std::time::Duration;

use futures::StreamExt;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_api::{
    ApiError, ModelClient, OpenAiApi, OpenAiClient, OpenAiConfig, RetryPolicy, StreamEvent,
};
use tack_protocol::{
    CacheCreation, ContentBlock, Message, MessageResponse, MessagesRequest, Role, StopReason,
    ToolDefinition, Usage,
};
use tack_testkit::{MockServer, Reply, Script};
use tokio_util::sync::CancellationToken;

fn client(server: &MockServer, api: OpenAiApi) -> OpenAiClient {
    let mut config = OpenAiConfig::new("local", api, format!("{}/v1", server.base_url()));
    config.api_key = Some("sk-local".into());
    config.headers = vec![("X-Team".into(), "a".into())];
    config.retry = RetryPolicy {
        max_retries: 3,
        base_delay: Duration::from_millis(2),
        max_delay: Duration::from_millis(10),
        max_retry_after: Duration::from_secs(60),
    };
    OpenAiClient::new(config).unwrap()
}

fn request(tools: bool) -> MessagesRequest {
    let mut request = MessagesRequest::new("qwen3", 512, vec![Message::user_text("hi")]);
    if tools {
        request.tools = vec![ToolDefinition {
            name: "Read".into(),
            description: None,
            input_schema: json!({"type": "object"}),
            cache_control: None,
        }];
    }
    request
}

async fn run(
    client: &OpenAiClient,
    request: MessagesRequest,
) -> Vec<Result<StreamEvent, ApiError>> {
    client
        .stream(request, CancellationToken::new())
        .collect()
        .await
}

fn last(events: &[Result<StreamEvent, ApiError>]) -> Result<MessageResponse, ApiError> {
    match events.last() {
        Some(Ok(StreamEvent::MessageDone(m))) => Ok(m.clone()),
        Some(Err(e)) => Err(e.clone()),
        other => panic!("unexpected end: {other:?}"),
    }
}

fn two_calls() -> Reply {
    Reply::message()
        .text("Reading both.")
        .tool_use("call_1", "Read", json!({"file_path": "/a/ü.txt"}))
        .tool_use("call_2", "Read", json!({"file_path": "/b"}))
        .usage(40, 12)
        .cache(0, 30)
        .into()
}

fn expected(id: &str) -> MessageResponse {
    MessageResponse {
        id: id.into(),
        kind: "message".into(),
        role: Role::Assistant,
        model: "qwen3".into(),
        content: vec![
            ContentBlock::text("Reading both."),
            ContentBlock::tool_use("call_1", "Read", json!({"file_path": "/a/ü.txt"})),
            ContentBlock::tool_use("call_2", "Read", json!({"file_path": "/b"})),
        ],
        stop_reason: Some(StopReason::ToolUse),
        stop_sequence: None,
        usage: Usage {
            input_tokens: 40,
            cache_read_input_tokens: 30,
            output_tokens: 12,
            cache_creation: Some(CacheCreation::default()),
            ..Usage::default()
        },
        stop_details: None,
    }
}

#[tokio::test]
async fn chat_completions_streams_parallel_calls_with_usage() {
    let server = MockServer::start(Script::new([two_calls()])).await.unwrap();
    let events = run(&client(&server, OpenAiApi::Chat), request(true)).await;
    assert_eq!(last(&events), Ok(expected("msg_mock_1")));
    let sent = &server.requests()[0];
    assert_eq!(
        (
            sent.path.as_str(),
            sent.header("authorization"),
            sent.header("x-team")
        ),
        ("/v1/chat/completions", Some("Bearer sk-local"), Some("a"))
    );
    assert_eq!(
        sent.body,
        json!({
            "model": "qwen3",
            "messages": [{"role": "user", "content": "hi"}],
            "max_tokens": 512,
            "stream": true,
            "stream_options": {"include_usage": true},
            "tools": [{"type": "function", "function": {"name": "Read", "parameters": {"type": "object"}}}],
        })
    );
}

#[tokio::test]
async fn responses_streams_the_same_message() {
    let server = MockServer::start(Script::new([two_calls()])).await.unwrap();
    let events = run(&client(&server, OpenAiApi::Responses), request(false)).await;
    assert_eq!(last(&events), Ok(expected("resp_msg_mock_1")));
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/responses");
    assert_eq!(
        sent.body,
        json!({
            "model": "qwen3",
            "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
            "max_output_tokens": 512,
            "stream": true,
            "store": false,
        })
    );
}

#[tokio::test]
async fn a_429_is_retried_and_a_context_error_is_prompt_too_long() {
    let server = MockServer::start(Script::new([
        Reply::rate_limited(0).retry_after_ms(5),
        Reply::text("ok"),
        Reply::prompt_too_long(9000, 8192),
    ]))
    .await
    .unwrap();
    let client = client(&server, OpenAiApi::Chat);
    let events = run(&client, request(false)).await;
    assert!(
        matches!(
            &events[0],
            Ok(StreamEvent::Retry {
                attempt: 1,
                error: ApiError::RateLimited { .. },
                ..
            })
        ),
        "{events:?}"
    );
    assert_eq!(
        last(&events).unwrap().content,
        vec![ContentBlock::text("ok")]
    );
    let events = run(&client, request(false)).await;
    assert!(
        matches!(
            last(&events),
            Err(ApiError::PromptTooLong {
                actual: Some(9000),
                limit: Some(8192),
                ..
            })
        ),
        "{events:?}"
    );
}

#[tokio::test]
async fn a_rejected_key_names_the_provider() {
    let server = MockServer::start(Script::new([Reply::http_error(
        401,
        "invalid_request_error",
        "Incorrect API key provided",
    )]))
    .await
    .unwrap();
    let events = run(&client(&server, OpenAiApi::Chat), request(false)).await;
    assert_eq!(
        events,
        vec![Err(ApiError::Authentication {
            message: "Incorrect API key provided; provider `local` takes its key from the \
                      variable its `apiKeyEnv` setting names"
                .into()
        })]
    );
}

#[tokio::test]
async fn a_server_without_tool_support_gets_a_clear_error() {
    let server = MockServer::start(Script::new([Reply::http_error(
        400,
        "invalid_request_error",
        "registry/library/gemma3 does not support tools",
    )]))
    .await
    .unwrap();
    let events = run(&client(&server, OpenAiApi::Chat), request(true)).await;
    assert_eq!(
        events,
        vec![Err(ApiError::InvalidRequest {
            message: "model `local/qwen3` cannot call tools here (the server said: \
                      registry/library/gemma3 does not support tools). tack needs a model with \
                      tool calling: choose another model, or fix provider `local` in the \
                      `providers` setting (its server may need tool calling turned on)"
                .into(),
            request_id: None,
        })]
    );
}

#[tokio::test]
async fn max_tokens_and_a_mid_stream_error() {
    let server = MockServer::start(Script::new([
        Reply::message()
            .text("cut sho")
            .stop_reason("max_tokens")
            .into(),
        Reply::message()
            .text("cut sho")
            .stop_reason("max_tokens")
            .into(),
        Reply::message()
            .text("partial answer")
            .error_event_after(3, "server_error", "boom")
            .into(),
    ]))
    .await
    .unwrap();
    for api in [OpenAiApi::Chat, OpenAiApi::Responses] {
        let events = run(&client(&server, api), request(false)).await;
        assert_eq!(
            last(&events).unwrap().stop_reason,
            Some(StopReason::MaxTokens)
        );
    }
    let events = run(&client(&server, OpenAiApi::Chat), request(false)).await;
    assert_eq!(
        last(&events),
        Err(ApiError::Server {
            status: 500,
            retry_after: None,
            message: "boom".into()
        })
    );
}

#[tokio::test]
async fn reasoning_from_a_provider_is_not_sent_to_anthropic() {
    let server = MockServer::start(Script::new([Reply::text("ok")]))
        .await
        .unwrap();
    let config = tack_api::ClientConfig {
        base_url: server.base_url(),
        ..tack_api::ClientConfig::default()
    };
    let client = tack_api::AnthropicClient::new(config).unwrap();
    let signed = ContentBlock::Thinking {
        thinking: "from claude".into(),
        signature: "sig".into(),
    };
    let unsigned = ContentBlock::Thinking {
        thinking: "from qwen".into(),
        signature: String::new(),
    };
    let request = MessagesRequest::new(
        "claude-sonnet-4-5",
        100,
        vec![
            Message::user_text("hi"),
            Message::assistant(vec![unsigned, ContentBlock::text("a")]),
            Message::user_text("again"),
            Message::assistant(vec![signed, ContentBlock::text("b")]),
            Message::user_text("more"),
        ],
    );
    let events: Vec<_> = client
        .stream(request, CancellationToken::new())
        .collect()
        .await;
    assert!(matches!(
        events.last(),
        Some(Ok(StreamEvent::MessageDone(_)))
    ));
    assert_eq!(
        server.requests()[0].body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "a"}]},
            {"role": "user", "content": [{"type": "text", "text": "again"}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "from claude", "signature": "sig"},
                {"type": "text", "text": "b"}]},
            {"role": "user", "content": [{"type": "text", "text": "more"}]},
        ])
    );
}
