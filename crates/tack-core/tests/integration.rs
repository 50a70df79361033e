//! A multi-turn session through the real Anthropic client against the testkit's
//! scripted server, asserting on the requests the client sent.

use crate::common;

use std::sync::Arc;

use common::{FakeTool, MODEL, tool_env};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_api::{AnthropicClient, Auth, ClientConfig};
use tack_core::context::PromptContext;
use tack_core::deps::ProductionDeps;
use tack_core::executor::ToolSet;
use tack_core::permission::AllowAll;
use tack_core::query::QueryConfig;
use tack_core::session::{ResultSubtype, Session, SessionEvent, SessionParts, SessionResult};
use tack_protocol::Message;
use tack_testkit::{MockServer, Reply, Script};
use tack_tool::Tool;
use tokio_util::sync::CancellationToken;

const CLAUDE_MD: &str =
    "Contents of /proj/CLAUDE.md (project instructions):\nAlways indent with tabs.";

async fn drive(session: &mut Session, prompt: &str) -> SessionResult {
    let mut turn = session.submit(Message::user_text(prompt), CancellationToken::new());
    let mut result = None;
    while let Some(event) = turn.next().await {
        if let SessionEvent::Result(r) = event {
            result = Some(r);
        }
    }
    result.unwrap()
}

/// Every `cache_control` in `value`, as the JSON path to it.
fn breakpoints(value: &Value, path: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if k == "cache_control" && !v.is_null() {
                    out.push(path.clone());
                } else {
                    breakpoints(v, format!("{path}/{k}"), out);
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                breakpoints(v, format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn strip_cache_control(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("cache_control");
            map.values_mut().for_each(strip_cache_control);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_cache_control),
        _ => {}
    }
}

fn tool_result_ids(body: &Value) -> Vec<String> {
    let last = body["messages"].as_array().unwrap().last().unwrap();
    last["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| b["tool_use_id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_multi_turn_session_sends_valid_cache_friendly_requests() {
    let server = MockServer::start(Script::new([
        Reply::message()
            .text("Let me look.")
            .tool_use("toolu_1", "Read", json!({"file_path": "/proj/a.rs"}))
            .tool_use("toolu_2", "Read", json!({"file_path": "/proj/b.rs"}))
            .into(),
        Reply::tool_use("toolu_3", "Read", json!({"file_path": "/proj/c.rs"})),
        Reply::text("All three files use tabs."),
        Reply::text("You're welcome."),
    ]))
    .await
    .unwrap();
    let client = AnthropicClient::new(ClientConfig {
        base_url: server.base_url(),
        auth: Auth::ApiKey("sk-test".into()),
        ..ClientConfig::default()
    })
    .unwrap();
    let read: Arc<dyn Tool> = Arc::new(FakeTool::ok("Read", true, "fn main() {}", 0));
    let mut session = Session::new(SessionParts {
        session_id: "sess-int".into(),
        context: Arc::new(PromptContext {
            system_prompt: vec!["You are tack, a coding agent.".into()],
            user_context: Some(CLAUDE_MD.into()),
            system_context: Some("gitStatus: clean".into()),
        }),
        tools: ToolSet::new(vec![read]),
        tool_env: tool_env(),
        can_use_tool: Arc::new(AllowAll),
        deps: Arc::new(ProductionDeps::new(Arc::new(client))),
        config: QueryConfig::new(MODEL),
        max_budget_usd: None,
        transcript: None,
    });

    let first = drive(&mut session, "Do the files use tabs?").await;
    assert_eq!(
        (first.subtype, first.num_turns, first.result.as_str()),
        (ResultSubtype::Success, 3, "All three files use tabs.")
    );
    let second = drive(&mut session, "Thanks").await;
    assert_eq!(
        (second.subtype, second.num_turns),
        (ResultSubtype::Success, 1)
    );
    assert!(second.usage.input_tokens + second.usage.cache_read_input_tokens > 0);

    let requests = server.requests();
    let bodies: Vec<Value> = requests
        .iter()
        .filter(|r| r.path == "/v1/messages")
        .map(|r| r.body.clone())
        .collect();
    assert_eq!(bodies.len(), 4);

    // Each tool_result answers the tool_uses of the message before it, in order.
    assert_eq!(tool_result_ids(&bodies[1]), vec!["toolu_1", "toolu_2"]);
    assert_eq!(tool_result_ids(&bodies[2]), vec!["toolu_3"]);
    assert_eq!(tool_result_ids(&bodies[3]), Vec::<String>::new());
    assert_eq!(
        bodies
            .iter()
            .map(|b| b["messages"].as_array().unwrap().len())
            .collect::<Vec<_>>(),
        vec![1, 3, 5, 7]
    );

    for (i, body) in bodies.iter().enumerate() {
        // CLAUDE.md is sent exactly once per request.
        let text = body.to_string();
        assert_eq!(
            text.matches("Always indent with tabs.").count(),
            1,
            "request {i}"
        );

        // At most 4 breakpoints, all on the stable prefix: everything up to each
        // breakpoint is repeated unchanged by the next request.
        let mut points = Vec::new();
        breakpoints(body, String::new(), &mut points);
        assert!(
            !points.is_empty() && points.len() <= 4,
            "request {i}: {points:?}"
        );
        if let Some(next) = bodies.get(i + 1) {
            let (mut this, mut next) = (body.clone(), next.clone());
            strip_cache_control(&mut this);
            strip_cache_control(&mut next);
            assert_eq!(
                this["system"], next["system"],
                "request {i}: system changed"
            );
            assert_eq!(this["tools"], next["tools"], "request {i}: tools changed");
            let (this_msgs, next_msgs) = (
                this["messages"].as_array().unwrap(),
                next["messages"].as_array().unwrap(),
            );
            assert_eq!(
                this_msgs[..],
                next_msgs[..this_msgs.len()],
                "request {i}: history rewritten"
            );
        }
    }
}

/// A main-conversation response with server tool blocks (a user may configure
/// Anthropic's server tools): the loop runs only the client `tool_use`, answers
/// only it, and sends the server blocks back verbatim in the next request.
#[tokio::test]
async fn server_tool_blocks_in_a_main_response_are_kept_and_never_run() {
    let hits = json!([{"type": "web_search_result", "url": "https://a.example/x", "title": "A", "encrypted_content": "enc"}]);
    let citation = json!({"type": "web_search_result_location", "url": "https://a.example/x", "title": "A", "cited_text": "x"});
    let server = MockServer::start(Script::new([
        Reply::message()
            .server_tool_use("srvtoolu_1", "web_search", json!({"query": "tabs"}))
            .web_search_tool_result("srvtoolu_1", hits.clone())
            .cited_text("Tabs are common.", vec![citation.clone()])
            .tool_use("toolu_1", "Read", json!({"file_path": "/proj/a.rs"}))
            .into(),
        Reply::text("Done."),
    ]))
    .await
    .unwrap();
    let client = AnthropicClient::new(ClientConfig {
        base_url: server.base_url(),
        ..ClientConfig::default()
    })
    .unwrap();
    let read = FakeTool::ok("Read", true, "fn main() {}", 0);
    let runs = read.runs.clone();
    let mut session = Session::new(SessionParts {
        session_id: "sess-srv".into(),
        context: Arc::new(PromptContext::default()),
        tools: ToolSet::new(vec![Arc::new(read) as Arc<dyn Tool>]),
        tool_env: tool_env(),
        can_use_tool: Arc::new(AllowAll),
        deps: Arc::new(ProductionDeps::new(Arc::new(client))),
        config: QueryConfig::new(MODEL),
        max_budget_usd: None,
        transcript: None,
    });

    let result = drive(&mut session, "Tabs or spaces?").await;
    assert_eq!(
        (result.subtype, result.num_turns, result.result.as_str()),
        (ResultSubtype::Success, 2, "Done.")
    );
    let ran: Vec<String> = runs
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.tool_use_id.clone())
        .collect();
    assert_eq!(ran, vec!["toolu_1"]);

    let bodies: Vec<Value> = server
        .requests()
        .iter()
        .filter(|r| r.path == "/v1/messages")
        .map(|r| r.body.clone())
        .collect();
    assert_eq!(bodies.len(), 2);
    assert_eq!(tool_result_ids(&bodies[1]), vec!["toolu_1"]);
    let mut history = bodies[1]["messages"][1].clone();
    strip_cache_control(&mut history);
    assert_eq!(
        history,
        json!({"role": "assistant", "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "tabs"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": hits},
            {"type": "text", "text": "Tabs are common.", "citations": [citation]},
            {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/proj/a.rs"}},
        ]})
    );
}
