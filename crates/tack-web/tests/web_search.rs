//! WebSearch through the real client against scripted server-tool blocks.

use crate::common;

use common::{ctx, model_client};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{MockServer, Reply, Script};
use tack_tool::{Tool, ToolError, ToolOutput};
use tack_web::{WebSearchConfig, WebSearchTool};

const MODEL: &str = "claude-sonnet-4-5";

fn hit(url: &str, title: &str) -> Value {
    json!({"type": "web_search_result", "url": url, "title": title,
           "encrypted_content": "EqgfCioIARgBIiQ3", "page_age": "1 day ago"})
}

fn citation(url: &str, title: &str, cited: &str) -> Value {
    json!({"type": "web_search_result_location", "url": url, "title": title,
           "encrypted_index": "Eo8BCioIAhgB", "cited_text": cited})
}

fn tool(server: &MockServer) -> WebSearchTool {
    WebSearchTool::new(model_client(server), MODEL, WebSearchConfig::default())
}

async fn search(tool: &WebSearchTool, input: Value) -> Result<ToolOutput, ToolError> {
    let ctx = ctx();
    tool.validate(&input, &ctx)?;
    tool.call(input, &ctx).await
}

fn structured(out: &ToolOutput) -> Value {
    let mut s = out.structured.clone().unwrap();
    s.as_object_mut().unwrap().remove("durationSeconds");
    s
}

/// One search with two hits and a cited answer.
fn search_reply() -> Reply {
    Reply::message()
        .text("I'll search for that.")
        .server_tool_use(
            "srvtoolu_01",
            "web_search",
            json!({"query": "tokio 1.47 release"}),
        )
        .web_search_tool_result(
            "srvtoolu_01",
            json!([
                hit(
                    "https://tokio.rs/blog/2025-07-tokio-1-47",
                    "Announcing Tokio 1.47"
                ),
                hit(
                    "https://github.com/tokio-rs/tokio/releases",
                    "Releases · tokio-rs/tokio"
                ),
            ]),
        )
        .cited_text(
            "Tokio 1.47 was released in July 2025.",
            vec![citation(
                "https://tokio.rs/blog/2025-07-tokio-1-47",
                "Announcing Tokio 1.47",
                "Tokio 1.47 is out",
            )],
        )
        .into()
}

const SEARCH_RESULT: &str = "Web search results for query: \"tokio 1.47 release\"\n\n\
    Sources:\n\
    - [Announcing Tokio 1.47](https://tokio.rs/blog/2025-07-tokio-1-47)\n\
    - [Releases · tokio-rs/tokio](https://github.com/tokio-rs/tokio/releases)\n\n\
    I'll search for that.\n\n\
    Tokio 1.47 was released in July 2025.\n\n\
    REMINDER: cite the relevant sources above in your answer to the user, as markdown links.";

#[tokio::test]
async fn a_search_sends_the_server_tool_and_lists_the_sources() {
    let server = MockServer::start(Script::new([search_reply()]))
        .await
        .unwrap();
    let tool = tool(&server);

    let out = search(
        &tool,
        json!({"query": "tokio 1.47 release", "allowed_domains": ["tokio.rs", "github.com"]}),
    )
    .await
    .unwrap();

    assert_eq!(out.content.to_text(), SEARCH_RESULT);
    assert_eq!(
        structured(&out),
        json!({
            "query": "tokio 1.47 release",
            "results": [
                "I'll search for that.",
                {"tool_use_id": "srvtoolu_01", "content": [
                    {"title": "Announcing Tokio 1.47", "url": "https://tokio.rs/blog/2025-07-tokio-1-47"},
                    {"title": "Releases · tokio-rs/tokio", "url": "https://github.com/tokio-rs/tokio/releases"}
                ]},
                "Tokio 1.47 was released in July 2025."
            ]
        })
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let body = &requests[0].body;
    assert_eq!(
        json!({"model": body["model"], "stream": body["stream"], "system": body["system"],
               "messages": body["messages"], "tools": body["tools"]}),
        json!({
            "model": MODEL,
            "stream": true,
            "system": "You run web searches with the web_search tool and report what they find, citing the results you use.",
            "messages": [{"role": "user", "content": [{"type": "text",
                "text": "Perform a web search for the query: tokio 1.47 release"}]}],
            "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 8,
                       "allowed_domains": ["tokio.rs", "github.com"]}]
        })
    );
}

#[tokio::test]
async fn blocked_domains_are_passed_through() {
    let server = MockServer::start(Script::new([search_reply()]))
        .await
        .unwrap();
    let tool = WebSearchTool::new(
        model_client(&server),
        MODEL,
        WebSearchConfig {
            max_uses: 3,
            ..WebSearchConfig::default()
        },
    );

    search(
        &tool,
        json!({"query": "tokio 1.47 release", "blocked_domains": ["example.com"], "allowed_domains": []}),
    )
    .await
    .unwrap();

    assert_eq!(
        server.requests()[0].body["tools"],
        json!([{"type": "web_search_20250305", "name": "web_search", "max_uses": 3,
                "blocked_domains": ["example.com"]}])
    );
}

#[tokio::test]
async fn a_paused_turn_is_continued_with_the_content_sent_back_verbatim() {
    let first = Reply::message()
        .server_tool_use(
            "srvtoolu_01",
            "web_search",
            json!({"query": "rust 2024 edition"}),
        )
        .web_search_tool_result(
            "srvtoolu_01",
            json!([hit(
                "https://doc.rust-lang.org/edition-guide/rust-2024/",
                "Rust 2024"
            )]),
        )
        .stop_reason("pause_turn");
    let second = Reply::message()
        .server_tool_use(
            "srvtoolu_02",
            "web_search",
            json!({"query": "rust 2024 edition changes"}),
        )
        .web_search_tool_result(
            "srvtoolu_02",
            json!([hit(
                "https://blog.rust-lang.org/2025/02/20/Rust-1.85.0/",
                "Rust 1.85.0"
            )]),
        )
        .text("Rust 2024 shipped with 1.85.");
    let server = MockServer::start(Script::new([first.into(), second.into()]))
        .await
        .unwrap();
    let tool = tool(&server);

    let out = search(&tool, json!({"query": "rust 2024 edition"}))
        .await
        .unwrap();

    assert_eq!(
        out.content.to_text(),
        "Web search results for query: \"rust 2024 edition\"\n\n\
         Sources:\n\
         - [Rust 2024](https://doc.rust-lang.org/edition-guide/rust-2024/)\n\
         - [Rust 1.85.0](https://blog.rust-lang.org/2025/02/20/Rust-1.85.0/)\n\n\
         Rust 2024 shipped with 1.85.\n\n\
         REMINDER: cite the relevant sources above in your answer to the user, as markdown links."
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1].body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "Perform a web search for the query: rust 2024 edition"}]},
            {"role": "assistant", "content": [
                {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "rust 2024 edition"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01",
                 "content": [hit("https://doc.rust-lang.org/edition-guide/rust-2024/", "Rust 2024")]}
            ]}
        ])
    );
}

#[tokio::test]
async fn failed_searches_are_errors_for_the_model() {
    let server = MockServer::start(Script::new([
        Reply::message()
            .server_tool_use("srvtoolu_01", "web_search", json!({"query": "x y"}))
            .web_search_tool_result(
                "srvtoolu_01",
                json!({"type": "web_search_tool_result_error", "error_code": "too_many_requests"}),
            )
            .into(),
        Reply::http_error(
            400,
            "invalid_request_error",
            "web search is not enabled for this organization",
        ),
    ]))
    .await
    .unwrap();
    let tool = tool(&server);

    assert_eq!(
        search(&tool, json!({"query": "x y"}))
            .await
            .unwrap_err()
            .message,
        "Web search for \"x y\" failed: the search service is rate limited (too_many_requests)."
    );
    assert_eq!(
        search(&tool, json!({"query": "x y"}))
            .await
            .unwrap_err()
            .message,
        "Web search failed: invalid request: web search is not enabled for this organization"
    );
}

#[tokio::test]
async fn bad_input_is_refused_before_any_request() {
    let server = MockServer::start(Script::new([])).await.unwrap();
    let tool = tool(&server);

    assert_eq!(
        search(
            &tool,
            json!({"query": "rust", "allowed_domains": ["a.com"], "blocked_domains": ["b.com"]})
        )
        .await
        .unwrap_err()
        .message,
        "Cannot use both allowed_domains and blocked_domains in one search: give one or the other."
    );
    assert_eq!(
        search(&tool, json!({"query": "r"}))
            .await
            .unwrap_err()
            .message,
        "`query` must have at least 2 characters."
    );
    assert_eq!(
        search(&tool, json!({"query": 3}))
            .await
            .unwrap_err()
            .message,
        "InputValidationError: WebSearch failed: invalid type: integer `3`, expected a string at `query`. \
         Expected input: {query: string, allowed_domains?: [string, ...], blocked_domains?: [string, ...]}"
    );
    assert_eq!(server.requests().len(), 0);
}

#[tokio::test]
async fn the_definition_matches_claude_codes() {
    let server = MockServer::start(Script::new([])).await.unwrap();
    let tool = tool(&server);
    assert_eq!(tool.name(), "WebSearch");
    assert_eq!(
        tool.input_schema(),
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 2, "description": "The search query to use"},
                "allowed_domains": {"type": "array", "items": {"type": "string"},
                                    "description": "Only include search results from these domains"},
                "blocked_domains": {"type": "array", "items": {"type": "string"},
                                    "description": "Never include search results from these domains"}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    );
    let input = json!({"query": "rust"});
    assert!(tool.is_read_only(&input) && tool.is_concurrency_safe(&input));
}

#[tokio::test]
async fn web_tools_builds_both_for_a_session() {
    let server = MockServer::start(Script::new([])).await.unwrap();
    let tools = tack_web::web_tools(
        model_client(&server),
        "claude-haiku-4-5",
        MODEL,
        tack_web::WebFetchConfig::default(),
        WebSearchConfig::default(),
    );
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, vec!["WebFetch", "WebSearch"]);
}
