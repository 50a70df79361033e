//! WebFetch against a real HTTP server on 127.0.0.1, with the small-model call
//! going through the real client to the scripted model server.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{MockServer, Reply, Script};
use tack_tool::{Tool, ToolError, ToolOutput};
use tack_web::{WebFetchConfig, WebFetchTool};

const SMALL_MODEL: &str = "claude-haiku-4-5";

const PAGE: &str = r#"<!doctype html>
<html><head><title>Widgets</title><style>body { color: red }</style></head>
<body>
  <nav><a href="/">Home</a></nav>
  <h1>Widget API</h1>
  <p>Call <code>widget.spin(n)</code> to spin <strong>n</strong> times.</p>
  <script>track()</script>
  <h2>Limits</h2>
  <ul><li>At most 10 spins</li><li>No spinning on Sundays</li></ul>
</body></html>"#;

const PAGE_MARKDOWN: &str = "[Home](/)\n\n# Widget API\n\nCall `widget.spin(n)` to spin **n** times.\n\n## Limits\n\n*   At most 10 spins\n*   No spinning on Sundays";

fn config() -> WebFetchConfig {
    WebFetchConfig {
        system_proxy: false,
        resolver: MapResolver::with(&["localhost"]),
        ..WebFetchConfig::default()
    }
}

fn tool(model: &MockServer, config: WebFetchConfig) -> WebFetchTool {
    WebFetchTool::new(model_client(model), SMALL_MODEL, config)
}

async fn fetch(tool: &WebFetchTool, url: &str, prompt: &str) -> Result<ToolOutput, ToolError> {
    let input = json!({"url": url, "prompt": prompt});
    let ctx = ctx();
    tool.validate(&input, &ctx)?;
    tool.call(input, &ctx).await
}

/// The structured output without its timing.
fn structured(out: &ToolOutput) -> Value {
    let mut s = out.structured.clone().unwrap();
    s.as_object_mut().unwrap().remove("durationMs");
    s
}

fn error(result: Result<ToolOutput, ToolError>) -> String {
    match result {
        Ok(out) => panic!("expected an error, got {out:?}"),
        Err(e) => e.message,
    }
}

/// The user prompt the small model is sent for `markdown` and `prompt`.
fn side_prompt(markdown: &str, prompt: &str) -> String {
    format!(
        "Web page content:\n---\n{markdown}\n---\n\n{prompt}\n\n\
         Answer concisely, from the content above only. In your answer:\n\
         - Quote at most 125 characters from any one source, always in quotation marks; say everything else in your own words.\n\
         - If the content does not contain what was asked, say so rather than guess.\n\
         - Never reproduce song lyrics, and do not comment on the legality of the request or of your answer."
    )
}

#[tokio::test]
async fn an_html_page_is_converted_and_the_prompt_applied_by_the_small_model() {
    let pages = PageServer::start(vec![("/widgets", Route::html(PAGE))]).await;
    let model = MockServer::start(Script::new([Reply::text(
        "Spin with widget.spin(n), at most 10 times.",
    )]))
    .await
    .unwrap();
    let tool = tool(&model, config());

    let out = fetch(&tool, &pages.url("/widgets"), "How do I spin a widget?")
        .await
        .unwrap();

    assert_eq!(
        out.content.to_text(),
        "Spin with widget.spin(n), at most 10 times."
    );
    assert_eq!(
        structured(&out),
        json!({"bytes": PAGE.len(), "code": 200, "codeText": "OK",
               "result": "Spin with widget.spin(n), at most 10 times.", "url": pages.url("/widgets")})
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    let body = &requests[0].body;
    assert_eq!(
        (
            body["model"].clone(),
            body["system"].clone(),
            body["messages"].clone()
        ),
        (
            json!(SMALL_MODEL),
            json!(
                "You read a web page for someone and answer their request about it, using only the page content you are given."
            ),
            json!([{"role": "user", "content": [{"type": "text",
                "text": side_prompt(PAGE_MARKDOWN, "How do I spin a widget?")}]}]),
        )
    );
    // The page server saw one plain GET with WebFetch's user agent.
    let hits = pages.hits();
    let [Hit::Http { path, headers }] = hits.as_slice() else {
        panic!("{hits:?}")
    };
    assert_eq!(path, "/widgets");
    let agent = headers
        .iter()
        .find(|(k, _)| k == "user-agent")
        .map(|(_, v)| v.as_str());
    assert_eq!(
        agent,
        Some(concat!(
            "Claude-User (tack/",
            env!("CARGO_PKG_VERSION"),
            ")"
        ))
    );
}

#[tokio::test]
async fn a_redirect_to_another_host_is_reported_not_followed() {
    // The same server and port under another name: `localhost` is not `127.0.0.1`.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let target = format!("http://localhost:{port}/page");
    let pages = PageServer::start_on(
        port,
        vec![
            ("/moved", Route::redirect(302, &target)),
            ("/page", Route::html(PAGE)),
        ],
    )
    .await;
    let model = MockServer::start(Script::new([])).await.unwrap();
    let tool = tool(&model, config());

    let from = pages.url("/moved");
    let out = fetch(&tool, &from, "Summarise").await.unwrap();

    let expected = format!(
        "REDIRECT DETECTED: {from} redirects to a different host.\n\n\
         Original URL: {from}\nRedirect URL: {target}\nStatus: 302 Found\n\n\
         WebFetch does not follow redirects to another host. To read the page, call WebFetch again with:\n\
         - url: \"{target}\"\n- prompt: \"Summarise\""
    );
    assert_eq!(out.content.to_text(), expected);
    assert_eq!(
        structured(&out),
        json!({"bytes": 0, "code": 302, "codeText": "Found", "result": expected, "url": from})
    );
    assert!(!out.is_error);
    assert_eq!(pages.paths(), vec!["/moved"], "the target was not fetched");
    assert_eq!(model.requests().len(), 0);
}

#[tokio::test]
async fn a_same_host_redirect_is_followed() {
    let pages = PageServer::start(vec![
        ("/old", Route::redirect(301, "/hop")),
        ("/hop", Route::redirect(302, "/widgets")),
        ("/widgets", Route::html(PAGE)),
    ])
    .await;
    let model = MockServer::start(Script::new([Reply::text("It spins.")]))
        .await
        .unwrap();
    let tool = tool(&model, config());

    let out = fetch(&tool, &pages.url("/old"), "What does it do?")
        .await
        .unwrap();

    assert_eq!(out.content.to_text(), "It spins.");
    assert_eq!(pages.paths(), vec!["/old", "/hop", "/widgets"]);
    let body = &model.requests()[0].body;
    assert_eq!(
        body["messages"][0]["content"][0]["text"],
        json!(side_prompt(PAGE_MARKDOWN, "What does it do?"))
    );
}

#[tokio::test]
async fn redirect_loops_stop_at_the_bound() {
    let pages = PageServer::start(vec![
        ("/a", Route::redirect(302, "/b")),
        ("/b", Route::redirect(302, "/a")),
    ])
    .await;
    let model = MockServer::start(Script::new([])).await.unwrap();
    let tool = tool(
        &model,
        WebFetchConfig {
            max_redirects: 3,
            ..config()
        },
    );

    let message = error(fetch(&tool, &pages.url("/a"), "x").await);

    assert_eq!(
        message,
        format!("{} redirected more than 3 times.", pages.url("/a"))
    );
    assert_eq!(pages.paths(), vec!["/a", "/b", "/a", "/b"]);
}

#[tokio::test]
async fn http_errors_name_the_status() {
    let pages = PageServer::start(vec![("/boom", Route::status(500, "<h1>oops</h1>"))]).await;
    let model = MockServer::start(Script::new([])).await.unwrap();
    let tool = tool(&model, config());

    assert_eq!(
        error(fetch(&tool, &pages.url("/missing"), "x").await),
        format!("{} answered HTTP 404 Not Found.", pages.url("/missing"))
    );
    assert_eq!(
        error(fetch(&tool, &pages.url("/boom"), "x").await),
        format!(
            "{} answered HTTP 500 Internal Server Error.",
            pages.url("/boom")
        )
    );
    assert_eq!(model.requests().len(), 0);
}

#[tokio::test]
async fn a_huge_body_is_read_up_to_the_cap_only() {
    const TOTAL: usize = 50 * 1024 * 1024;
    let pages = PageServer::start(vec![(
        "/huge.txt",
        Route::Stream {
            content_type: "text/plain".into(),
            total: TOTAL,
        },
    )])
    .await;
    let model = MockServer::start(Script::new([Reply::text("A long list of characters.")]))
        .await
        .unwrap();
    // A 1 MiB cap keeps what the kernel buffers (several MB on loopback) well
    // apart from what the server would send if the client kept reading.
    let cap = 1024 * 1024;
    let tool = tool(
        &model,
        WebFetchConfig {
            max_bytes: cap,
            ..config()
        },
    );

    let out = fetch(&tool, &pages.url("/huge.txt"), "What is this?")
        .await
        .unwrap();

    assert_eq!(
        out.content.to_text(),
        format!(
            "A long list of characters.\n\n[Note: the page is larger than 1 MB; only its first {cap} bytes were read.]"
        )
    );
    assert_eq!(structured(&out)["bytes"], json!(cap));
    // The client stopped reading and hung up: the server could not send it all.
    pages.wait_until(|s| !s.streamed().is_empty()).await;
    let [streamed] = pages.streamed()[..] else {
        panic!("{:?}", pages.streamed())
    };
    assert!(!streamed.completed, "{streamed:?}");
    assert!(streamed.written < TOTAL / 3, "{streamed:?}");
    // The small model got the first 100,000 characters, and was told about both cuts.
    let text = model.requests()[0].body["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        text.contains(&format!(
            "\n\n[Content truncated: the first 100000 of {cap} characters are shown.]\n\
             [The page is longer than could be downloaded: only its first {cap} bytes were read.]\n---\n"
        )),
        "{}",
        &text[text.len() - 800..]
    );
    assert!(text.len() < 101_000 + 1_000, "{}", text.len());
}

/// Real time, with a short cap: the workspace's tokio has no `test-util`
/// (paused clock), and turning it on for one crate would change the feature set
/// every other crate is built with.
#[tokio::test]
async fn a_server_that_never_answers_hits_the_time_cap() {
    let pages = PageServer::start(vec![("/slow", Route::Hang)]).await;
    let model = MockServer::start(Script::new([])).await.unwrap();
    let cap = Duration::from_millis(300);
    let tool = tool(
        &model,
        WebFetchConfig {
            timeout: cap,
            ..config()
        },
    );

    let started = std::time::Instant::now();
    let message = error(fetch(&tool, &pages.url("/slow"), "x").await);
    let took = started.elapsed();

    assert_eq!(
        message,
        format!(
            "Fetching {} took longer than 0.3 s and was stopped.",
            pages.url("/slow")
        )
    );
    assert!(took >= cap && took < Duration::from_secs(5), "{took:?}");
    assert_eq!(pages.paths(), vec!["/slow"]);
}

#[tokio::test]
async fn cancelling_stops_a_fetch_in_flight() {
    let pages = Arc::new(PageServer::start(vec![("/slow", Route::Hang)]).await);
    let model = MockServer::start(Script::new([])).await.unwrap();
    let tool = tool(&model, config());
    let ctx = ctx();
    let cancel = ctx.cancel.clone();
    let waiter = pages.clone();
    tokio::spawn(async move {
        waiter.wait_until(|s| !s.paths().is_empty()).await;
        cancel.cancel();
    });

    let result = tool
        .call(json!({"url": pages.url("/slow"), "prompt": "x"}), &ctx)
        .await;

    assert_eq!(error(result), "The fetch was cancelled.");
}

#[tokio::test]
async fn non_text_content_is_refused() {
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01";
    let pages = PageServer::start(vec![
        ("/logo.png", Route::ok("image/png", png)),
        ("/doc.pdf", Route::ok("application/pdf", b"%PDF-1.7\n")),
        ("/blob", Route::ok("application/octet-stream", png)),
        (
            "/notes",
            Route::ok("application/octet-stream", b"plain notes\n"),
        ),
    ])
    .await;
    let model = MockServer::start(Script::new([Reply::text("Notes.")]))
        .await
        .unwrap();
    let tool = tool(&model, config());
    let refused = |url: String, what: &str| {
        format!(
            "{url} returned {what} content, which WebFetch cannot read: it reads HTML and text only (not images, PDFs, archives or other binary files)."
        )
    };

    assert_eq!(
        error(fetch(&tool, &pages.url("/logo.png"), "x").await),
        refused(pages.url("/logo.png"), "image/png")
    );
    assert_eq!(
        error(fetch(&tool, &pages.url("/doc.pdf"), "x").await),
        refused(pages.url("/doc.pdf"), "application/pdf")
    );
    assert_eq!(
        error(fetch(&tool, &pages.url("/blob"), "x").await),
        refused(pages.url("/blob"), "binary application/octet-stream")
    );
    // A generic type with text inside is read as text.
    let out = fetch(&tool, &pages.url("/notes"), "x").await.unwrap();
    assert_eq!(out.content.to_text(), "Notes.");
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
async fn http_is_upgraded_to_https_for_other_hosts() {
    // `docs.example.test` resolves to the plain-HTTP page server: an upgraded
    // request arrives there as a TLS ClientHello and the handshake fails.
    let pages = PageServer::start(vec![("/page", Route::html(PAGE))]).await;
    let model = MockServer::start(Script::new([])).await.unwrap();
    let tool = tool(
        &model,
        WebFetchConfig {
            resolver: MapResolver::with(&["docs.example.test"]),
            ..config()
        },
    );
    let url = format!("http://docs.example.test:{}/page", pages.port());

    let message = error(fetch(&tool, &url, "x").await);

    let https = format!("https://docs.example.test:{}/page", pages.port());
    assert!(
        message.starts_with(&format!("TLS handshake with {https} failed: ")),
        "{message}"
    );
    assert!(
        message.ends_with("The site's certificate or TLS setup was not accepted."),
        "{message}"
    );
    assert_eq!(pages.hits(), vec![Hit::TlsHello]);
}

#[tokio::test]
async fn loopback_names_stay_on_http() {
    let pages = PageServer::start(vec![("/page", Route::html(PAGE))]).await;
    let model = MockServer::start(Script::new([Reply::text("ok")]))
        .await
        .unwrap();
    let tool = tool(&model, config());

    let url = format!("http://localhost:{}/page", pages.port());
    let out = fetch(&tool, &url, "x").await.unwrap();

    assert_eq!(out.content.to_text(), "ok");
    assert_eq!(pages.paths(), vec!["/page"]);
}

#[tokio::test]
async fn dns_failures_and_refused_connections_are_named() {
    let model = MockServer::start(Script::new([])).await.unwrap();
    let tool = tool(&model, config());

    assert_eq!(
        error(fetch(&tool, "https://nxdomain.example.test/x", "x").await),
        "DNS lookup failed for nxdomain.example.test: no such host `nxdomain.example.test`. Check the domain name in the URL."
    );

    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let url = format!("http://127.0.0.1:{port}/");
    assert_eq!(
        error(fetch(&tool, &url, "x").await),
        format!("Connection refused by 127.0.0.1:{port} ({url}): nothing is listening there.")
    );
}

#[tokio::test]
async fn pages_are_cached_for_fifteen_minutes() {
    let pages = PageServer::start(vec![("/widgets", Route::html(PAGE))]).await;
    let model = MockServer::start(Script::new([
        Reply::text("one"),
        Reply::text("two"),
        Reply::text("three"),
    ]))
    .await
    .unwrap();
    let clock = ManualClock::new();
    let tool = tool(
        &model,
        WebFetchConfig {
            clock: clock.clone(),
            ..config()
        },
    );
    let url = pages.url("/widgets");

    assert_eq!(
        fetch(&tool, &url, "first").await.unwrap().content.to_text(),
        "one"
    );
    clock.advance(Duration::from_secs(14 * 60 + 59));
    assert_eq!(
        fetch(&tool, &url, "second")
            .await
            .unwrap()
            .content
            .to_text(),
        "two"
    );
    assert_eq!(pages.paths(), vec!["/widgets"], "served from the cache");
    // Each call asks its own question about the same page.
    let texts: Vec<Value> = model
        .requests()
        .iter()
        .map(|r| r.body["messages"][0]["content"][0]["text"].clone())
        .collect();
    assert_eq!(
        texts,
        vec![
            json!(side_prompt(PAGE_MARKDOWN, "first")),
            json!(side_prompt(PAGE_MARKDOWN, "second"))
        ]
    );

    clock.advance(Duration::from_secs(1));
    assert_eq!(
        fetch(&tool, &url, "third").await.unwrap().content.to_text(),
        "three"
    );
    assert_eq!(
        pages.paths(),
        vec!["/widgets", "/widgets"],
        "expired after 15 minutes"
    );
}

#[tokio::test]
async fn bad_input_is_refused_before_any_request() {
    let model = MockServer::start(Script::new([])).await.unwrap();
    let tool = tool(&model, config());
    let ctx = ctx();
    let refused = |input: Value| tool.validate(&input, &ctx).unwrap_err().message;

    assert_eq!(
        refused(json!({"url": "ftp://example.com/x", "prompt": "x"})),
        "`ftp` URLs cannot be fetched: only http and https are supported"
    );
    assert_eq!(
        refused(json!({"url": "https://example.com", "prompt": " "})),
        "`prompt` is empty: say what you want to know from the page."
    );
    assert_eq!(
        refused(json!({"url": "https://example.com"})),
        "InputValidationError: WebFetch failed: missing field `prompt`. Expected input: {url: string, prompt: string}"
    );
    assert_eq!(
        refused(json!({"url": "not a url", "prompt": "x"})),
        "`not a url` is not a valid URL (relative URL without a base); give a fully-formed URL such as https://example.com/page"
    );
}

#[tokio::test]
async fn the_definition_matches_claude_codes() {
    let model = MockServer::start(Script::new([])).await.unwrap();
    let tool = tool(&model, config());
    assert_eq!(tool.name(), "WebFetch");
    assert_eq!(
        tool.input_schema(),
        json!({
            "type": "object",
            "properties": {
                "url": {"type": "string", "format": "uri", "description": "The URL to fetch content from"},
                "prompt": {"type": "string", "description": "The prompt to run on the fetched content"}
            },
            "required": ["url", "prompt"],
            "additionalProperties": false
        })
    );
    let input = json!({"url": "https://example.com", "prompt": "x"});
    assert!(tool.is_read_only(&input) && tool.is_concurrency_safe(&input));
}
