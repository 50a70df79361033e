//! End-to-end: a model server whose answer never ends (issue 35). An SSE
//! stream of one line that never gets its line end, or an HTTP 500 whose body
//! never ends, must end tack with an error that names the cause, in bounded
//! time and memory, for the Anthropic client and the OpenAI-compatible one.

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
                let (status, first) = match hostile {
                    Hostile::EndlessLine => ("200 OK\r\ncontent-type: text/event-stream", "data: "),
                    Hostile::EndlessError => {
                        ("500 Internal Server Error\r\ncontent-type: text/plain", "")
                    }
                };
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
                let mut sent = 0;
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
    let started = Instant::now();
    let (out, rss) = output_and_peak_rss_within(cmd, Some(Duration::from_secs(20)))
        .expect("tack still running after 20 s");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains(cause),
        "took {:?}; stderr: {stderr}",
        started.elapsed()
    );
    assert!(rss < 128 << 20, "tack's peak RSS was {} MiB", rss >> 20);
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
