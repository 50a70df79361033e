//! End-to-end: a server whose answer never ends (issue 35). An SSE stream of
//! one line that never gets its line end, or an HTTP 500 whose body never
//! ends, must end tack's use of it with an error that names the cause, in
//! bounded time and memory: for the Anthropic client and the
//! OpenAI-compatible one, MCP servers over legacy SSE (tack's transport) and
//! streamable HTTP (rmcp's, with its response limits), and an OTLP gRPC
//! collector.

use std::io::{Read, Write};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{Env, output_and_peak_rss_within};

/// What the hostile server answers every request with.
#[derive(Clone, Copy)]
enum Hostile {
    /// 200 `text/event-stream`, then `data: ` and `x` for ever, no line end.
    EndlessLine,
    /// 500 with a chunked body of `x` for ever.
    EndlessError,
    /// 200 `application/json` with a chunked body of `x` for ever.
    EndlessJson,
    /// A legacy MCP SSE server: a GET gets the stream and its `endpoint`
    /// event (then silence); a POST gets [`Hostile::EndlessError`].
    SseEndpointThenEndlessError,
}

impl Hostile {
    /// The status line and content type, the body's first bytes, and whether
    /// `x` follows for ever, for a request that starts with `head`.
    fn answer(self, head: &[u8]) -> (&'static str, &'static str, bool) {
        let error = (
            "500 Internal Server Error\r\ncontent-type: text/plain",
            "",
            true,
        );
        match self {
            Hostile::EndlessLine => ("200 OK\r\ncontent-type: text/event-stream", "data: ", true),
            Hostile::EndlessError => error,
            Hostile::EndlessJson => ("200 OK\r\ncontent-type: application/json", "", true),
            Hostile::SseEndpointThenEndlessError if head.starts_with(b"GET") => (
                "200 OK\r\ncontent-type: text/event-stream",
                "event: endpoint\ndata: /messages\n\n",
                false,
            ),
            Hostile::SseEndpointThenEndlessError => error,
        }
    }
}

/// The most the server sends per connection: far above every cap tack has, and
/// low enough that a tack which holds it all does not starve the machine.
const SERVED_MAX: usize = 384 << 20;

/// A raw HTTP/1.1 server at `http://127.0.0.1:PORT` answering every request as
/// `hostile` says, until the test ends.
fn serve(hostile: Hostile) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                let mut head = [0u8; 65536];
                let _ = stream.read(&mut head);
                let (status, first, endless) = hostile.answer(&head);
                let head = format!("HTTP/1.1 {status}\r\ntransfer-encoding: chunked\r\n\r\n");
                let chunk = |body: &[u8]| {
                    let mut c = format!("{:x}\r\n", body.len()).into_bytes();
                    c.extend_from_slice(body);
                    c.extend_from_slice(b"\r\n");
                    c
                };
                let x = chunk(&[b'x'; 64 * 1024]);
                if stream.write_all(head.as_bytes()).is_err()
                    || (!first.is_empty() && stream.write_all(&chunk(first.as_bytes())).is_err())
                {
                    return;
                }
                let mut sent = if endless { 0 } else { SERVED_MAX };
                while sent < SERVED_MAX {
                    if stream.write_all(&x).is_err() {
                        return;
                    }
                    sent += x.len();
                }
                // Then silence, the connection held open.
                std::thread::sleep(Duration::from_secs(120));
            });
        }
    });
    format!("http://{addr}")
}

/// `tack -p hi` against `base` (the Anthropic API, or provider `local`
/// speaking `api` when given), ended within 20 s with `cause` in its stderr
/// and its memory under 128 MiB.
async fn ends_with(hostile: Hostile, api: Option<&str>, cause: &str) {
    let env = Env::new(tack_testkit::Script::new([])).await;
    let base = serve(hostile);
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("tack"));
    cmd.env_clear()
        .envs(env.vars())
        .current_dir(env.cwd())
        .args(["-p", "hi"]);
    match api {
        None => {
            cmd.env("ANTHROPIC_BASE_URL", &base);
        }
        Some(api) => {
            let settings = json!({"providers": {"local": {
                "api": api, "baseUrl": format!("{base}/v1"), "apiKeyEnv": "LOCAL_KEY",
            }}});
            cmd.env("LOCAL_KEY", "k")
                .args(["--settings", &settings.to_string()])
                .args(["--model", "local/qwen3"]);
        }
    }
    let out = ends_in_bounds(cmd, cause);
    assert!(!out.status.success());
}

/// Runs `cmd`, which must end within 20 s with `cause` in its stderr and
/// its memory under 128 MiB: its output.
fn ends_in_bounds(cmd: Command, cause: &str) -> std::process::Output {
    let started = Instant::now();
    let (out, rss) = output_and_peak_rss_within(cmd, Some(Duration::from_secs(20)))
        .expect("tack still running after 20 s");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(cause),
        "took {:?}; stderr: {stderr}",
        started.elapsed()
    );
    assert!(rss < 128 << 20, "tack's peak RSS was {} MiB", rss >> 20);
    out
}

/// `tack -p hi` (its model the scripted server, answering `Done.`) with the
/// MCP server `hostile` at `url` over `transport`: the session goes on, the
/// server reported failed with `cause`.
async fn mcp_server_fails(transport: &str, hostile: Hostile, path: &str, cause: &str) {
    let env = Env::new(tack_testkit::Script::new([tack_testkit::Reply::text(
        "Done.",
    )]))
    .await;
    let url = format!("{}{path}", serve(hostile));
    let config = json!({"mcpServers": {"hostile": {"type": transport, "url": url}}});
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("tack"));
    cmd.env_clear()
        .envs(env.vars())
        .current_dir(env.cwd())
        .args(["-p", "hi", "--mcp-config", &config.to_string()]);
    let out = ends_in_bounds(cmd, cause);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("MCP server \"hostile\" failed: "),
        "{stderr}"
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Done.\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_legacy_sse_mcp_servers_endless_line_is_cut() {
    mcp_server_fails(
        "sse",
        Hostile::EndlessLine,
        "/sse",
        "SSE event larger than 16 MiB",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_legacy_sse_mcp_servers_endless_error_body_is_cut() {
    // What the server said, cut to 500 characters (read to 64 KiB).
    let said = format!("HTTP 500: {}", "x".repeat(500));
    mcp_server_fails("sse", Hostile::SseEndpointThenEndlessError, "/sse", &said).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_streamable_http_mcp_servers_endless_answers_are_cut() {
    for (hostile, cause) in [
        // rmcp's limits: its SSE event cap (16 MiB) ends the stream with
        // no word of why; its JSON cap is 16 MiB; its error body cap 64 KiB.
        (
            Hostile::EndlessLine,
            "the server closed the connection during initialization",
        ),
        (
            Hostile::EndlessJson,
            "HTTP response body exceeded the maximum size of 16777216 bytes",
        ),
        (
            Hostile::EndlessError,
            "HTTP 500, when send initialize request",
        ),
    ] {
        mcp_server_fails("http", hostile, "/mcp", cause).await;
    }
}

/// An OTLP gRPC collector (h2c) answering every export 200 with a body of
/// zeros for ever.
async fn endless_grpc_collector() -> String {
    use futures::StreamExt;
    let endless = || {
        let chunk = axum::body::Bytes::from(vec![0u8; 64 * 1024]);
        let stream = futures::stream::repeat(chunk)
            .take(SERVED_MAX / (64 * 1024))
            .map(Ok::<_, std::io::Error>);
        axum::response::Response::builder()
            .header("content-type", "application/grpc")
            .body(axum::body::Body::from_stream(stream))
            .unwrap()
    };
    let app = axum::Router::new().fallback(move || async move { endless() });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endless_grpc_answer_is_a_failed_export() {
    let env = Env::new(tack_testkit::Script::new([tack_testkit::Reply::text(
        "Done.",
    )]))
    .await;
    let url = endless_grpc_collector().await;
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("tack"));
    cmd.env_clear()
        .envs(env.vars())
        .envs([
            ("CLAUDE_CODE_ENABLE_TELEMETRY", "1"),
            ("OTEL_METRICS_EXPORTER", "otlp"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", url.as_str()),
        ])
        .current_dir(env.cwd())
        .args(["-p", "hi"]);
    let out = ends_in_bounds(cmd, "the answer is larger than 64 KiB");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("telemetry export failed"), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Done.\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_sse_line_without_end_ends_the_anthropic_request() {
    ends_with(Hostile::EndlessLine, None, "SSE event larger than 16 MiB").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_sse_line_without_end_ends_the_openai_request() {
    ends_with(
        Hostile::EndlessLine,
        Some("openai-chat"),
        "SSE event larger than 16 MiB",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endless_error_body_ends_the_anthropic_request() {
    ends_with(
        Hostile::EndlessError,
        None,
        "x (the body was cut at 64 KiB)",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endless_error_body_ends_the_openai_request() {
    ends_with(
        Hostile::EndlessError,
        Some("openai-responses"),
        "x (the body was cut at 64 KiB)",
    )
    .await;
}
