//! End-to-end: other model providers (issue 24) through the real binary. The
//! testkit server speaks Chat Completions and Responses from the same script,
//! so each test names a provider in `--settings` and asserts on what tack sent.

use crate::common;

use common::{Env, kinds, lines};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// `--settings` with provider `local` (api `api`) at the test server, its key
/// in `LOCAL_KEY`, plus `extra` top-level keys.
fn settings(env: &Env, api: &str, extra: Value) -> String {
    let mut s = json!({"providers": {"local": {
        "api": api,
        "baseUrl": format!("{}/v1", env.server.base_url()),
        "apiKeyEnv": "LOCAL_KEY",
        "headers": {"X-Team": "a"},
        "extraBody": {"top_k": 20},
    }}});
    if let (Some(s), Value::Object(extra)) = (s.as_object_mut(), extra) {
        s.extend(extra);
    }
    s.to_string()
}

/// `tack -p PROMPT` on model `local/qwen3` with no Anthropic key at all.
fn local_tack(env: &Env, api: &str, extra: Value) -> assert_cmd::Command {
    let mut cmd = env.tack();
    cmd.env_remove("ANTHROPIC_API_KEY")
        .env("LOCAL_KEY", "k-local")
        .args(["--settings", &settings(env, api, extra)])
        .args(["--model", "local/qwen3"]);
    cmd
}

fn succeed(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn two_tools() -> Script {
    Script::new([
        Reply::message()
            .text("Checking.")
            .tool_use("call_1", "Bash", json!({"command": "echo from-bash"}))
            .tool_use("call_2", "Read", json!({"file_path": "notes.txt"}))
            .into(),
        Reply::text("Both done."),
    ])
}

/// The model's calls and the tool results tack sent back, from the second
/// request of a Chat Completions session.
fn chat_round_trip(env: &Env) -> Vec<Value> {
    let requests = env.server.requests();
    assert_eq!(requests.len(), 2);
    for r in &requests {
        assert_eq!(
            (
                r.path.as_str(),
                r.header("authorization"),
                r.header("x-team"),
                r.body["model"].as_str(),
                &r.body["top_k"]
            ),
            (
                "/v1/chat/completions",
                Some("Bearer k-local"),
                Some("a"),
                Some("qwen3"),
                &json!(20)
            )
        );
    }
    let messages = requests[1].body["messages"].as_array().unwrap().clone();
    assert_eq!(messages[0]["role"], "system");
    messages[messages.len() - 3..].to_vec()
}

/// `tack -p` on `api` over [`two_tools`], with the file Read reads; its
/// answer checked.
async fn run_two_tools(api: &str) -> Env {
    let env = Env::new(two_tools()).await;
    std::fs::write(env.cwd().join("notes.txt"), "from-file\n").unwrap();
    let out = local_tack(&env, api, json!({}))
        .args(["-p", "check", "--allowedTools", "Bash,Read"])
        .output()
        .unwrap();
    succeed(&out);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Both done.\n");
    env
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_completions_runs_two_tools_and_sends_their_results_back() {
    let env = run_two_tools("openai-chat").await;
    let tail = chat_round_trip(&env);
    assert_eq!(
        tail[0],
        json!({"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "Bash", "arguments": "{\"command\":\"echo from-bash\"}"}},
            {"id": "call_2", "type": "function", "function": {"name": "Read", "arguments": "{\"file_path\":\"notes.txt\"}"}},
        ]})
    );
    assert_eq!(
        tail[1],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "from-bash"})
    );
    assert_eq!(
        tail[2],
        json!({"role": "tool", "tool_call_id": "call_2", "content": "1\tfrom-file\n"})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn responses_runs_two_tools_and_sends_their_results_back() {
    let env = run_two_tools("openai-responses").await;
    let requests = env.server.requests();
    let paths: Vec<&str> = requests.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, ["/v1/responses", "/v1/responses"]);
    let input = requests[1].body["input"].as_array().unwrap();
    let items: Vec<Value> = input[input.len() - 5..]
        .iter()
        .map(|i| {
            let mut i = i.clone();
            if i["type"] == "function_call_output" && i["call_id"] == "call_2" {
                i["output"] = json!("[read]");
            }
            i
        })
        .collect();
    assert_eq!(
        items,
        vec![
            json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Checking."}]}),
            json!({"type": "function_call", "call_id": "call_1", "name": "Bash", "arguments": "{\"command\":\"echo from-bash\"}"}),
            json!({"type": "function_call", "call_id": "call_2", "name": "Read", "arguments": "{\"file_path\":\"notes.txt\"}"}),
            json!({"type": "function_call_output", "call_id": "call_1", "output": "from-bash"}),
            json!({"type": "function_call_output", "call_id": "call_2", "output": "[read]"}),
        ]
    );
    assert!(requests[1].body["instructions"].is_string());
}

/// The shape of a value: object keys with their shapes, scalars by type.
/// `service_tier` is Anthropic's alone; `modelUsage` is keyed by model name.
fn shape(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| *k != "service_tier")
                .map(|(k, v)| {
                    let k = if k == "local/qwen3" {
                        "claude-sonnet-4-5"
                    } else {
                        k
                    };
                    (k.to_owned(), shape(v))
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(shape).collect()),
        Value::String(_) => json!("string"),
        Value::Number(_) => json!("number"),
        Value::Bool(_) => json!("bool"),
        Value::Null => json!("null"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn stream_json_has_the_same_records_as_on_anthropic() {
    let script = || {
        Script::new([
            Reply::message()
                .text("Listing.")
                .tool_use("call_1", "Bash", json!({"command": "echo x"}))
                .usage(100, 20)
                .into(),
            Reply::message().text("Done.").usage(150, 5).into(),
        ])
    };
    let args = [
        "-p",
        "go",
        "--allowedTools",
        "Bash",
        "--output-format",
        "stream-json",
        "--verbose",
    ];
    let anthropic = Env::new(script()).await;
    let out = anthropic
        .tack()
        .args(args)
        .args(["--model", "claude-sonnet-4-5"])
        .output()
        .unwrap();
    succeed(&out);
    let expected = lines(&out.stdout);
    let local = Env::new(script()).await;
    let out = local_tack(&local, "openai-chat", json!({}))
        .args(args)
        .output()
        .unwrap();
    succeed(&out);
    let got = lines(&out.stdout);
    assert_eq!(kinds(&got), kinds(&expected));
    assert_eq!(
        kinds(&got),
        [
            "system/init",
            "assistant",
            "assistant",
            "user",
            "assistant",
            "result/success"
        ]
    );
    let shapes = |records: &[Value]| records.iter().map(shape).collect::<Vec<_>>();
    assert_eq!(shapes(&got), shapes(&expected));
    assert_eq!(got[0]["model"], "local/qwen3");
    assert_eq!(got[1]["message"]["model"], "local/qwen3");
    assert_eq!(got[5]["usage"]["input_tokens"], 250);
    // A local server costs nothing.
    assert_eq!(got[5]["total_cost_usd"], 0.0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_length_stop_is_continued_like_max_tokens() {
    let env = Env::new(Script::new([
        Reply::message()
            .text("The first half")
            .stop_reason("max_tokens")
            .into(),
        Reply::message()
            .text("The first half")
            .stop_reason("max_tokens")
            .into(),
        Reply::text(" and the rest."),
    ]))
    .await;
    let out = local_tack(&env, "openai-chat", json!({}))
        .args(["-p", "write"])
        .output()
        .unwrap();
    succeed(&out);
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 3);
    // Escalated once (the same request with a larger cap), then asked to resume.
    let caps: Vec<&Value> = bodies.iter().map(|b| &b["max_tokens"]).collect();
    assert!(caps[1].as_u64() > caps[0].as_u64(), "{caps:?}");
    let last = bodies[2]["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["role"], "user");
    assert!(
        last["content"]
            .as_str()
            .unwrap()
            .contains("Resume directly"),
        "{last}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).ends_with(" and the rest.\n"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_429_is_retried_on_a_provider() {
    let env = Env::new(Script::new([
        Reply::http_error(429, "rate_limit_error", "slow down").retry_after_ms(5),
        Reply::text("after the wait"),
    ]))
    .await;
    let out = local_tack(&env, "openai-chat", json!({}))
        .env("CLAUDE_CODE_MAX_RETRIES", "2")
        .args(["-p", "hi", "--output-format", "stream-json", "--verbose"])
        .output()
        .unwrap();
    succeed(&out);
    let records = lines(&out.stdout);
    assert_eq!(
        kinds(&records),
        [
            "system/init",
            "system/api_retry",
            "assistant",
            "result/success"
        ]
    );
    assert_eq!(records[3]["result"], "after the wait");
    assert_eq!(env.server.requests().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn max_budget_counts_model_prices_of_a_provider() {
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use("call_1", "Glob", json!({"pattern": "*"}))
            .usage(1_000_000, 1000)
            .into(),
        Reply::text("never"),
    ]))
    .await;
    let prices = json!({"modelPrices": {"local/qwen3": {"input": 2.0, "output": 8.0}}});
    let out = local_tack(&env, "openai-chat", prices)
        .args([
            "-p",
            "go",
            "--max-budget-usd",
            "1",
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let records = lines(&out.stdout);
    let result = records.last().unwrap();
    assert_eq!(result["subtype"], "error_max_budget_usd", "{result}");
    // 1M input at $2 + 1000 output at $8 per million.
    assert_eq!(result["total_cost_usd"], 2.008);
    assert_eq!(env.server.requests().len(), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("no price known"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_that_cannot_call_tools_is_a_clear_error() {
    let env = Env::new(Script::new([Reply::http_error(
        400,
        "invalid_request_error",
        "registry/library/gemma3 does not support tools",
    )]))
    .await;
    let out = local_tack(&env, "openai-chat", json!({}))
        .args(["-p", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Error: invalid request: model `local/qwen3` cannot call tools here (the server said: \
         registry/library/gemma3 does not support tools). tack needs a model with tool calling: \
         choose another model, or fix provider `local` in the `providers` setting (its server \
         may need tool calling turned on)\n"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_overloaded_claude_falls_back_to_a_provider_model() {
    let env = Env::new(Script::new([
        Reply::overloaded(),
        Reply::text("Answer from qwen."),
    ]))
    .await;
    let out = env
        .tack()
        .env("LOCAL_KEY", "k-local")
        .args(["--settings", &settings(&env, "openai-chat", json!({}))])
        .args([
            "-p",
            "q",
            "--model",
            "claude-sonnet-4-5",
            "--fallback-model",
            "local/qwen3",
        ])
        .output()
        .unwrap();
    succeed(&out);
    let requests = env.server.requests();
    let sent: Vec<(&str, &Value)> = requests
        .iter()
        .map(|r| (r.path.as_str(), &r.body["model"]))
        .collect();
    assert_eq!(
        sent,
        [
            ("/v1/messages", &json!("claude-sonnet-4-5")),
            ("/v1/chat/completions", &json!("qwen3"))
        ]
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Answer from qwen.\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_context_length_error_compacts_and_retries_on_a_provider() {
    let env = Env::new(Script::new([
        Reply::text("First answer."),
        Reply::prompt_too_long(9000, 8192),
        Reply::text("<summary>The user asked about TOPIC-A.</summary>"),
        Reply::text("Second answer."),
    ]))
    .await;
    let input = concat!(
        r#"{"type":"user","message":{"role":"user","content":"tell me about TOPIC-A"}}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":"and now?"}}"#,
        "\n",
    );
    let out = local_tack(&env, "openai-chat", json!({}))
        .args(common::STREAM_JSON)
        .write_stdin(input)
        .output()
        .unwrap();
    succeed(&out);
    let records = lines(&out.stdout);
    assert_eq!(
        kinds(&records),
        [
            "system/init",
            "assistant",
            "result/success",
            "system/compact_boundary",
            "assistant",
            "result/success"
        ]
    );
    assert_eq!(records[3]["compact_metadata"]["trigger"], "reactive");
    let requests = env.server.requests();
    assert_eq!(requests.len(), 4);
    assert!(requests.iter().all(|r| r.path == "/v1/chat/completions"));
    let retried = requests[3].body["messages"].to_string();
    assert!(
        retried.contains("The user asked about TOPIC-A."),
        "{retried}"
    );
    assert!(!retried.contains("tell me about TOPIC-A"), "{retried}");
    assert_eq!(records[5]["result"], "Second answer.");
}

/// Records up to and including the next `result` (or `control_response` for
/// `until_control`).
fn read_until(rx: &std::sync::mpsc::Receiver<Value>, until_control: bool) -> Vec<Value> {
    let mut records = Vec::new();
    loop {
        let record = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("a record");
        let last = record["type"]
            == if until_control {
                "control_response"
            } else {
                "result"
            };
        records.push(record);
        if last {
            return records;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn set_model_switches_to_a_provider_and_an_interrupt_stops_its_stream() {
    use std::io::{BufRead, BufReader, Write};
    use std::time::{Duration, Instant};
    let env = Env::new(Script::new([
        Reply::message()
            .text("This answer takes a long time to write out in full.")
            .stall_after(4, Duration::from_secs(20))
            .into(),
        Reply::text("Second answer."),
    ]))
    .await;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tack"))
        .env_clear()
        .envs(env.vars())
        .env("LOCAL_KEY", "k-local")
        .current_dir(env.cwd())
        .args(common::STREAM_JSON)
        .args(["--settings", &settings(&env, "openai-chat", json!({}))])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(serde_json::from_str(&line).unwrap());
        }
    });
    let send = |stdin: &mut std::process::ChildStdin, line: Value| {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    };
    let user = |text: &str| json!({"type": "user", "message": {"role": "user", "content": text}});
    send(
        &mut stdin,
        json!({"type": "control_request", "request_id": "m",
                "request": {"subtype": "set_model", "model": "local/qwen3"}}),
    );
    let answered = read_until(&rx, true);
    assert_eq!(answered.last().unwrap()["response"]["subtype"], "success");
    send(&mut stdin, user("write a lot"));
    let deadline = Instant::now() + Duration::from_secs(10);
    while env.server.requests().is_empty() {
        assert!(Instant::now() < deadline, "no request was sent");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(300));
    let interrupted_at = Instant::now();
    send(
        &mut stdin,
        json!({"type": "control_request", "request_id": "i", "request": {"subtype": "interrupt"}}),
    );
    let first = read_until(&rx, false);
    assert!(interrupted_at.elapsed() < Duration::from_secs(2));
    assert_eq!(first.last().unwrap()["subtype"], "error_during_execution");
    env.server.wait_abandoned_streams(1).await;
    send(&mut stdin, user("again"));
    let second = read_until(&rx, false);
    assert_eq!(kinds(&second), ["assistant", "result/success"]);
    assert_eq!(second[0]["message"]["model"], "local/qwen3");
    assert_eq!(second[1]["result"], "Second answer.");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let sent: Vec<(String, Value)> = env
        .server
        .requests()
        .into_iter()
        .map(|r| (r.path, r.body["model"].clone()))
        .collect();
    let chat = || ("/v1/chat/completions".to_owned(), json!("qwen3"));
    assert_eq!(sent, [chat(), chat()]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sub_agent_whose_definition_names_a_provider_model_runs_there() {
    let env = Env::new(Script::new([
        Reply::tool_use(
            "toolu_agent",
            "Task",
            json!({"description": "count", "prompt": "How many files?", "subagent_type": "counter"}),
        ),
        Reply::text("There are none."),
        Reply::text("The agent says none."),
    ]))
    .await;
    let agents = r#"{"counter": {"description": "Counts files", "prompt": "You count files.", "tools": ["Glob"], "model": "local/qwen3"}}"#;
    let out = env
        .tack()
        .env("LOCAL_KEY", "k-local")
        .args(["--settings", &settings(&env, "openai-chat", json!({}))])
        .args([
            "-p",
            "count",
            "--model",
            "claude-sonnet-4-5",
            "--agents",
            agents,
        ])
        .output()
        .unwrap();
    succeed(&out);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "The agent says none.\n"
    );
    let requests = env.server.requests();
    let sent: Vec<(&str, &Value)> = requests
        .iter()
        .map(|r| (r.path.as_str(), &r.body["model"]))
        .collect();
    assert_eq!(
        sent,
        [
            ("/v1/messages", &json!("claude-sonnet-4-5")),
            ("/v1/chat/completions", &json!("qwen3")),
            ("/v1/messages", &json!("claude-sonnet-4-5")),
        ]
    );
}

/// `ANTHROPIC_CUSTOM_HEADERS` (a gateway's credential) go to the host they were
/// set for: the default API's, and a provider entry at that same host, never a
/// provider with `api: anthropic` elsewhere.
#[tokio::test(flavor = "multi_thread")]
async fn custom_headers_stay_with_the_host_they_were_set_for() {
    let env = Env::new(Script::new([Reply::text("main"), Reply::text("same")])).await;
    let other = tack_testkit::MockServer::start(Script::new([Reply::text("other")]))
        .await
        .unwrap();
    let settings = json!({"providers": {
        "gw": {"api": "anthropic", "baseUrl": other.base_url(), "apiKeyEnv": "GW_KEY"},
        "same": {"api": "anthropic", "baseUrl": format!("{}/", env.server.base_url())},
    }})
    .to_string();
    for model in ["gw/claude-x", "claude-sonnet-4-5", "same/claude-y"] {
        let out = env
            .tack()
            .env(
                "ANTHROPIC_CUSTOM_HEADERS",
                "X-Gateway-Key: g-secret\nX-Team: a",
            )
            .env("GW_KEY", "k-gw")
            .args(["--settings", &settings, "--model", model, "-p", "hi"])
            .output()
            .unwrap();
        succeed(&out);
    }
    let seen =
        |server: &tack_testkit::MockServer| -> Vec<(String, Option<String>, Option<String>)> {
            server
                .requests()
                .iter()
                .map(|r| {
                    (
                        r.body["model"].as_str().unwrap_or_default().to_owned(),
                        r.header("x-gateway-key").map(str::to_owned),
                        r.header("x-team").map(str::to_owned),
                    )
                })
                .collect()
        };
    assert_eq!(seen(&other), vec![("claude-x".to_owned(), None, None)]);
    let with = |model: &str| {
        (
            model.to_owned(),
            Some("g-secret".to_owned()),
            Some("a".to_owned()),
        )
    };
    assert_eq!(
        seen(&env.server),
        vec![with("claude-sonnet-4-5"), with("claude-y")]
    );
}

/// A provider URL tack cannot use is refused when the settings are read, with
/// the provider's key named: not at its first request.
#[tokio::test(flavor = "multi_thread")]
async fn a_provider_url_that_is_not_http_is_refused_at_start() {
    let env = Env::new(Script::new([Reply::text("main")])).await;
    let mut errors = Vec::new();
    for url in ["file:///etc/passwd", "http//127.0.0.1:8080/v1", "https://"] {
        let settings = json!({"providers": {"local": {"api": "openai-chat", "baseUrl": url}}});
        let out = env
            .tack()
            .args(["--settings", &settings.to_string(), "-p", "hi"])
            .output()
            .unwrap();
        assert!(!out.status.success());
        errors.push(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let at = "Error: invalid settings in --settings:1:";
    assert_eq!(
        errors,
        [
            format!(
                "{at}74: `providers.local.baseUrl`: `file:///etc/passwd` is not an http or https URL\n"
            ),
            format!(
                "{at}79: `providers.local.baseUrl`: `http//127.0.0.1:8080/v1` is not a URL (relative URL without a base)\n"
            ),
            format!("{at}64: `providers.local.baseUrl`: `https://` is not a URL (empty host)\n"),
        ]
    );
    assert_eq!(env.server.requests().len(), 0);
}

/// `OPENAI_BASE_URL` tack cannot send requests to is refused at start, the
/// variable named, whatever model the session runs: not at its first request.
#[tokio::test(flavor = "multi_thread")]
async fn a_malformed_openai_base_url_is_refused_at_start() {
    let env = Env::new(Script::new([Reply::text("main")])).await;
    let mut errors = Vec::new();
    for (url, model) in [
        ("file:///etc/passwd", "openai/gpt-x"),
        ("127.0.0.1:8080/v1", "openai/gpt-x"),
        ("http//127.0.0.1:8080/v1", "claude-sonnet-4-5"),
    ] {
        let out = env
            .tack()
            .env("OPENAI_BASE_URL", url)
            .args(["--model", model, "-p", "hi"])
            .output()
            .unwrap();
        errors.push((
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    let refused = |why: &str| (Some(1), format!("Error: OPENAI_BASE_URL: {why}\n"));
    assert_eq!(
        errors,
        [
            refused("`file:///etc/passwd` is not an http or https URL"),
            refused("`127.0.0.1:8080/v1` is not a URL (relative URL without a base)"),
            refused("`http//127.0.0.1:8080/v1` is not a URL (relative URL without a base)"),
        ]
    );
    assert_eq!(env.server.requests().len(), 0);
}

/// `extraBody` may not set what the client owns (`stream`, `model`, the
/// conversation): refused when the settings are read, the key named.
#[tokio::test(flavor = "multi_thread")]
async fn extra_body_may_not_set_what_the_client_owns() {
    let env = Env::new(Script::new([Reply::text("main")])).await;
    let mut errors = Vec::new();
    for (api, extra) in [
        ("openai-chat", json!({"stream": false})),
        ("openai-responses", json!({"top_k": 2, "input": []})),
        ("anthropic", json!({"model": "x"})),
    ] {
        let settings = json!({"providers": {"p": {"api": api, "extraBody": extra}}});
        let out = env
            .tack()
            .args([
                "--settings",
                &settings.to_string(),
                "--model",
                "p/m",
                "-p",
                "hi",
            ])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        errors.push(stderr.split_once(": `").map(|(_, e)| e.to_owned()));
    }
    let owned = |key: &str| {
        Some(format!(
            "providers.p.extraBody`: `{key}` is set by tack for every request (model, messages, input, stream); remove it\n"
        ))
    };
    assert_eq!(errors, [owned("stream"), owned("input"), owned("model")]);
    assert_eq!(env.server.requests().len(), 0);
}
