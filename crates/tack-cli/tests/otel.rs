//! OpenTelemetry export end to end: the real `tack -p` against the scripted
//! model server, exporting to a real OTLP receiver (`otel/receiver.rs`, on
//! the official protobuf definitions) over each protocol.

mod receiver;

use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};
use tack_testkit::{Reply, Script};

use crate::common::Env;
use receiver::Receiver;

/// A session with a Read, a Bash call (a `git commit`) and an Edit. Git's
/// automatic maintenance is off: its detached child holds the Bash tool's
/// output open for 2 s, which would blur the timing test.
fn script() -> Script {
    let commit = "git init -q && git -c maintenance.auto=false commit -q --allow-empty -m init";
    Script::new([
        Reply::message()
            .tool_use("t0", "Read", json!({"file_path": "app.txt"}))
            .tool_use("t1", "Bash", json!({"command": commit}))
            .usage(10, 5)
            .into(),
        Reply::message()
            .tool_use(
                "t2",
                "Edit",
                json!({"file_path": "app.txt", "old_string": "two", "new_string": "2\n3"}),
            )
            .usage(20, 6)
            .into(),
        Reply::message().text("Done.").usage(30, 7).into(),
    ])
}

async fn session_env() -> Env {
    let env = Env::new(script()).await;
    std::fs::write(env.cwd().join("app.txt"), "one\ntwo\n").unwrap();
    env
}

/// Runs the session with `vars`; its stderr and how long it took.
fn run(env: &Env, vars: &[(&str, &str)]) -> (String, Duration) {
    run_args(env, &["--allowedTools", "Bash,Edit"], vars, 0)
}

/// As [`run`], with `args`; the run exits with `code` (1: a call was
/// refused for want of a prompt).
fn run_args(env: &Env, args: &[&str], vars: &[(&str, &str)], code: i32) -> (String, Duration) {
    let start = Instant::now();
    let out = env
        .tack()
        .args(["-p", "commit and edit"])
        .args(args)
        .envs([
            ("GIT_AUTHOR_NAME", "t"),
            ("GIT_AUTHOR_EMAIL", "t@example.com"),
            ("GIT_COMMITTER_NAME", "t"),
            ("GIT_COMMITTER_EMAIL", "t@example.com"),
        ])
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Done.\n", "{stderr}");
    (stderr, start.elapsed())
}

/// `{key: stringValue}` of an OTLP attribute list, with the values that
/// change from run to run replaced.
fn attrs(list: &Value) -> Value {
    let mut out = Map::new();
    for kv in list.as_array().into_iter().flatten() {
        let key = kv["key"].as_str().unwrap().to_owned();
        let value = kv["value"]["stringValue"].clone();
        let value = match key.as_str() {
            "session.id" | "event.timestamp" | "duration_ms" | "service.version" => {
                assert!(value.as_str().is_some_and(|v| !v.is_empty()), "{key}");
                json!(format!("<{key}>"))
            }
            "cost_usd" => {
                let cost: f64 = value.as_str().unwrap().parse().unwrap();
                assert!(cost > 0.0, "{cost}");
                json!("<cost>")
            }
            _ => value,
        };
        out.insert(key, value);
    }
    Value::Object(out)
}

/// The metrics request: resource, scope, and each metric's points.
fn metrics_view(body: &Value) -> Value {
    let rm = &body["resourceMetrics"][0];
    let sm = &rm["scopeMetrics"][0];
    let metrics: Vec<Value> = sm["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let sum = &m["sum"];
            let points: Vec<Value> = sum["dataPoints"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    let value = p["asDouble"].as_f64().unwrap();
                    let value = match m["name"].as_str().unwrap() {
                        "claude_code.cost.usage" | "claude_code.active_time.total" => {
                            assert!(value > 0.0);
                            json!("<positive>")
                        }
                        _ => json!(value),
                    };
                    json!({"attributes": attrs(&p["attributes"]), "value": value})
                })
                .collect();
            json!({
                "name": m["name"],
                "unit": m["unit"],
                "temporality": sum["aggregationTemporality"],
                "monotonic": sum["isMonotonic"],
                "points": points,
            })
        })
        .collect();
    json!({
        "resource": attrs(&rm["resource"]["attributes"]),
        "scope": sm["scope"]["name"],
        "metrics": metrics,
    })
}

/// The events, sorted (tool calls run while their message streams).
fn events_view(body: &Value) -> Value {
    let records = &body["resourceLogs"][0]["scopeLogs"][0]["logRecords"];
    let mut events: Vec<Value> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!({"body": r["body"]["stringValue"], "attributes": attrs(&r["attributes"])}))
        .collect();
    events.sort_by_key(|e| e.to_string());
    Value::Array(events)
}

fn expected_metrics() -> Value {
    let session = json!({"session.id": "<session.id>"});
    let with = |extra: Value| {
        let mut a = session.as_object().unwrap().clone();
        a.extend(extra.as_object().unwrap().clone());
        Value::Object(a)
    };
    let sum = |name: &str, unit: &str, points: Vec<Value>| json!({"name": name, "unit": unit, "temporality": 1, "monotonic": true, "points": points});
    let model = "claude-sonnet-4-5";
    let tokens = |kind: &str, n: f64| json!({"attributes": with(json!({"model": model, "type": kind})), "value": n});
    json!({
        "resource": {
            "service.name": "claude-code",
            "service.version": "<service.version>",
            "os.type": "linux",
            "host.arch": if cfg!(target_arch = "aarch64") { "arm64" } else { "amd64" },
            "team": "infra",
        },
        "scope": "com.anthropic.claude_code",
        "metrics": [
            sum("claude_code.session.count", "count", vec![json!({"attributes": session, "value": 1.0})]),
            sum("claude_code.lines_of_code.count", "count", vec![
                json!({"attributes": with(json!({"type": "added"})), "value": 2.0}),
                json!({"attributes": with(json!({"type": "removed"})), "value": 1.0}),
            ]),
            sum("claude_code.commit.count", "count", vec![json!({"attributes": session, "value": 1.0})]),
            sum("claude_code.cost.usage", "USD", vec![
                json!({"attributes": with(json!({"model": model})), "value": "<positive>"}),
            ]),
            sum("claude_code.token.usage", "tokens", vec![
                tokens("cacheCreation", 0.0),
                tokens("cacheRead", 0.0),
                tokens("input", 60.0),
                tokens("output", 18.0),
            ]),
            sum("claude_code.code_edit_tool.decision", "count", vec![json!({
                "attributes": with(json!({
                    "tool_name": "Edit", "decision": "accept", "source": "config", "language": "Plain text"
                })),
                "value": 1.0
            })]),
            sum("claude_code.active_time.total", "s", vec![json!({"attributes": session, "value": "<positive>"})]),
        ],
    })
}

fn expected_events() -> Value {
    let model = "claude-sonnet-4-5";
    let event = |name: &str, extra: Value| {
        let mut a = json!({
            "session.id": "<session.id>",
            "event.name": name,
            "event.timestamp": "<event.timestamp>",
        })
        .as_object()
        .unwrap()
        .clone();
        a.extend(extra.as_object().unwrap().clone());
        json!({"body": format!("claude_code.{name}"), "attributes": a})
    };
    let api = |input: u32, output: u32| {
        event(
            "api_request",
            json!({
                "model": model, "cost_usd": "<cost>", "duration_ms": "<duration_ms>",
                "input_tokens": input.to_string(), "output_tokens": output.to_string(),
                "cache_read_tokens": "0", "cache_creation_tokens": "0",
            }),
        )
    };
    let commit = "git init -q && git -c maintenance.auto=false commit -q --allow-empty -m init";
    let mut events = vec![
        event("user_prompt", json!({"prompt_length": "15"})),
        api(10, 5),
        api(20, 6),
        api(30, 7),
        event(
            "tool_decision",
            json!({"tool_name": "Bash", "decision": "accept", "source": "config"}),
        ),
        event(
            "tool_decision",
            json!({"tool_name": "Edit", "decision": "accept", "source": "config"}),
        ),
        event(
            "tool_decision",
            json!({"tool_name": "Read", "decision": "accept", "source": "config"}),
        ),
        event(
            "tool_result",
            json!({
                "tool_name": "Read", "success": "true", "duration_ms": "<duration_ms>",
                "decision": "accept", "source": "config",
            }),
        ),
        event(
            "tool_result",
            json!({
                "tool_name": "Bash", "success": "true", "duration_ms": "<duration_ms>",
                "decision": "accept", "source": "config",
                "tool_parameters": json!({"bash_command": "git", "full_command": commit}).to_string(),
            }),
        ),
        event(
            "tool_result",
            json!({
                "tool_name": "Edit", "success": "true", "duration_ms": "<duration_ms>",
                "decision": "accept", "source": "config",
            }),
        ),
    ];
    events.sort_by_key(|e| e.to_string());
    Value::Array(events)
}

/// The variables that turn export on, to `endpoint` over `protocol`.
fn otlp_vars<'a>(protocol: &'a str, endpoint: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("CLAUDE_CODE_ENABLE_TELEMETRY", "1"),
        ("OTEL_METRICS_EXPORTER", "otlp"),
        ("OTEL_LOGS_EXPORTER", "otlp"),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", protocol),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint),
        (
            "OTEL_EXPORTER_OTLP_HEADERS",
            "Authorization=Bearer%20secret",
        ),
        ("OTEL_RESOURCE_ATTRIBUTES", "team=infra"),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_is_exported_over_each_protocol() {
    for protocol in ["grpc", "http/protobuf", "http/json"] {
        let receiver = Receiver::start().await;
        let env = session_env().await;
        let (stderr, _) = run(&env, &otlp_vars(protocol, &receiver.url));
        assert_eq!(stderr, "", "{protocol}");
        let received = receiver.received();
        let how: Vec<_> = received
            .iter()
            .map(|r| (r.protocol, r.signal, r.authorization.as_deref()))
            .collect();
        let auth = Some("Bearer secret");
        assert_eq!(how.len(), 2, "{protocol}: {how:?}");
        assert!(how.contains(&(protocol, "metrics", auth)), "{how:?}");
        assert!(how.contains(&(protocol, "logs", auth)), "{how:?}");
        let body = |signal: &str| &received.iter().find(|r| r.signal == signal).unwrap().body;
        assert_eq!(events_view(body("logs")), expected_events(), "{protocol}");
        assert_eq!(
            metrics_view(body("metrics")),
            expected_metrics(),
            "{protocol}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_is_exported_unless_telemetry_is_enabled() {
    let receiver = Receiver::start().await;
    let env = session_env().await;
    let vars: Vec<_> = otlp_vars("http/protobuf", &receiver.url)
        .into_iter()
        .filter(|(k, _)| *k != "CLAUDE_CODE_ENABLE_TELEMETRY")
        .collect();
    run(&env, &vars);
    assert_eq!(receiver.received().len(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dead_collector_neither_fails_nor_holds_up_a_session() {
    // Accepts connections and never answers.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", silent.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            held.push(socket);
        }
    });
    let env = session_env().await;
    let (_, baseline) = run(&env, &[]);
    let env = session_env().await;
    let (_, slow) = run(&env, &otlp_vars("http/protobuf", &url));
    assert!(
        slow < baseline + Duration::from_millis(3500),
        "{slow:?} against {baseline:?}"
    );

    // Nobody listens: one warning, and the session succeeds.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let env = session_env().await;
    let (stderr, _) = run(&env, &otlp_vars("grpc", &url));
    assert_eq!(
        stderr.matches("telemetry export failed").count(),
        1,
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_console_exporter_writes_otlp_json_lines_on_stderr() {
    let env = session_env().await;
    let vars = [
        ("CLAUDE_CODE_ENABLE_TELEMETRY", "1"),
        ("OTEL_METRICS_EXPORTER", "console"),
        ("OTEL_LOGS_EXPORTER", "console"),
    ];
    let (stderr, _) = run(&env, &vars);
    let lines: Vec<Value> = stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let shapes: Vec<Vec<&str>> = lines
        .iter()
        .map(|l| l.as_object().unwrap().keys().map(String::as_str).collect())
        .collect();
    assert_eq!(shapes, vec![vec!["resourceMetrics"], vec!["resourceLogs"]]);
    let names: Vec<&str> = lines[0]["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "claude_code.session.count",
            "claude_code.lines_of_code.count",
            "claude_code.commit.count",
            "claude_code.cost.usage",
            "claude_code.token.usage",
            "claude_code.code_edit_tool.decision",
            "claude_code.active_time.total",
        ]
    );
    assert_eq!(events_view(&lines[1]), expected_events());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_settings_env_can_turn_export_on() {
    let receiver = Receiver::start().await;
    let env = session_env().await;
    let vars: serde_json::Map<String, Value> = otlp_vars("http/json", &receiver.url)
        .into_iter()
        .map(|(k, v)| (k.to_owned(), json!(v)))
        .collect();
    let settings = env.claude_dir().join("settings.json");
    std::fs::create_dir_all(env.claude_dir()).unwrap();
    std::fs::write(settings, json!({"env": vars}).to_string()).unwrap();
    run(&env, &[]);
    let mut how: Vec<_> = receiver
        .received()
        .iter()
        .map(|r| (r.protocol, r.signal))
        .collect();
    how.sort();
    assert_eq!(how, [("http/json", "logs"), ("http/json", "metrics")]);
}

/// Every `name` point's value in the metrics requests received, in order.
fn points_of(received: &[receiver::Received], name: &str) -> Vec<(i64, f64)> {
    let mut out = Vec::new();
    for r in received.iter().filter(|r| r.signal == "metrics") {
        for m in r.body["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["name"] == name)
        {
            let temporality = m["sum"]["aggregationTemporality"].as_i64().unwrap();
            for p in m["sum"]["dataPoints"].as_array().unwrap() {
                out.push((temporality, p["asDouble"].as_f64().unwrap()));
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn exports_run_every_interval_in_delta_or_cumulative_sums() {
    for (preference, temporality) in [("delta", 1), ("cumulative", 2)] {
        let receiver = Receiver::start().await;
        let env = Env::new(Script::new([
            Reply::message()
                .tool_use("t1", "Bash", json!({"command": "sleep 0.6"}))
                .into(),
            Reply::text("Done."),
        ]))
        .await;
        let mut vars = otlp_vars("http/protobuf", &receiver.url);
        vars.extend([
            ("OTEL_METRIC_EXPORT_INTERVAL", "100"),
            ("OTEL_LOGS_EXPORT_INTERVAL", "100"),
            (
                "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE",
                preference,
            ),
        ]);
        run(&env, &vars);
        let received = receiver.received();
        let exports = received.iter().filter(|r| r.signal == "metrics").count();
        assert!(exports >= 2, "{preference}: {exports} metrics exports");
        let sessions = points_of(&received, "claude_code.session.count");
        match preference {
            // Each export carries what changed since the last: the session
            // is counted once, in one of them.
            "delta" => assert_eq!(sessions, [(temporality, 1.0)]),
            _ => assert_eq!(sessions, vec![(temporality, 1.0); exports]),
        }
        let logs = received.iter().filter(|r| r.signal == "logs").count();
        assert!(logs >= 2, "{preference}: {logs} log exports");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn api_errors_and_prompts_are_events() {
    let receiver = Receiver::start().await;
    let env = Env::new(Script::new([
        Reply::overloaded().retry_after_ms(5),
        Reply::http_error(400, "invalid_request_error", "bad request"),
    ]))
    .await;
    let out = env
        .tack()
        .args(["-p", "hello"])
        .envs(otlp_vars("http/protobuf", &receiver.url))
        .envs([
            ("CLAUDE_CODE_MAX_RETRIES", "1"),
            ("OTEL_LOG_USER_PROMPTS", "1"),
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let received = receiver.received();
    let logs = &received.iter().find(|r| r.signal == "logs").unwrap().body;
    let events: Vec<Value> = events_view(logs)
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["attributes"].clone())
        .collect();
    let event = |extra: Value| {
        let mut a = json!({"session.id": "<session.id>", "event.timestamp": "<event.timestamp>"});
        a.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        a
    };
    let error = |status: &str, attempt: &str, message: &str| {
        event(json!({
            "event.name": "api_error", "model": "claude-sonnet-4-5", "error": message,
            "status_code": status, "duration_ms": "<duration_ms>", "attempt": attempt,
        }))
    };
    let mut expected = vec![
        event(json!({"event.name": "user_prompt", "prompt_length": "5", "prompt": "hello"})),
        error("529", "1", "API overloaded: Overloaded"),
        error("400", "2", "API Error: 400 invalid request: bad request"),
    ];
    expected.sort_by_key(|e| json!({"attributes": e}).to_string());
    assert_eq!(events, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn decisions_say_where_they_came_from() {
    let receiver = Receiver::start().await;
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use("t1", "Bash", json!({"command": "git push --dry-run"}))
            .tool_use(
                "t2",
                "Write",
                json!({"file_path": "../outside.rs", "content": "x"}),
            )
            .into(),
        Reply::text("Done."),
    ]))
    .await;
    // A PreToolUse hook allows Bash; nothing allows a Write outside the
    // project (print mode: denied).
    let allow = json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "allow"}});
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": format!("echo '{allow}'")}]}]}});
    std::fs::create_dir_all(env.claude_dir()).unwrap();
    std::fs::write(env.claude_dir().join("settings.json"), hooks.to_string()).unwrap();
    // The refused Write: exit 1 (`tack-cli/src/refusals.rs`).
    run_args(&env, &[], &otlp_vars("grpc", &receiver.url), 1);
    let received = receiver.received();
    let logs = &received.iter().find(|r| r.signal == "logs").unwrap().body;
    let decisions: Vec<(String, String, String)> = events_view(logs)
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["attributes"])
        .filter(|a| a["event.name"] == "tool_decision")
        .map(|a| {
            let s = |k: &str| a[k].as_str().unwrap().to_owned();
            (s("tool_name"), s("decision"), s("source"))
        })
        .collect();
    let d = |t: &str, decision: &str, source: &str| (t.into(), decision.into(), source.into());
    assert_eq!(
        decisions,
        [d("Bash", "accept", "hook"), d("Write", "reject", "config")]
    );
    let metrics = metrics_view(
        &received
            .iter()
            .find(|r| r.signal == "metrics")
            .unwrap()
            .body,
    );
    let edits: Vec<&Value> = metrics["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["name"] == "claude_code.code_edit_tool.decision")
        .collect();
    assert_eq!(
        edits,
        [&json!({
            "name": "claude_code.code_edit_tool.decision", "unit": "count",
            "temporality": 1, "monotonic": true,
            "points": [{"attributes": {
                "session.id": "<session.id>", "tool_name": "Write", "decision": "reject",
                "source": "config", "language": "Rust"}, "value": 1.0}],
        })]
    );
}

/// The settings' `otelHeadersHelper` at `env`'s user level.
fn headers_helper(env: &Env, command: &str) {
    std::fs::create_dir_all(env.claude_dir()).unwrap();
    std::fs::write(
        env.claude_dir().join("settings.json"),
        json!({"otelHeadersHelper": command}).to_string(),
    )
    .unwrap();
}

/// `(signal, authorization)` of each request received, sorted.
fn authorizations(receiver: &Receiver) -> Vec<(&'static str, Option<String>)> {
    let mut how: Vec<_> = receiver
        .received()
        .iter()
        .map(|r| (r.signal, r.authorization.clone()))
        .collect();
    how.sort();
    how
}

#[tokio::test(flavor = "multi_thread")]
async fn an_otel_headers_helper_gives_the_exporters_their_headers() {
    let receiver = Receiver::start().await;
    let env = session_env().await;
    headers_helper(
        &env,
        r#"printf '{"authorization": "Bearer from-helper", "X-Team": "infra"}'"#,
    );
    let (stderr, _) = run(&env, &otlp_vars("http/protobuf", &receiver.url));
    assert_eq!(stderr, "");
    let helper = Some("Bearer from-helper".to_owned());
    assert_eq!(
        authorizations(&receiver),
        vec![("logs", helper.clone()), ("metrics", helper)]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_headers_helper_that_fails_is_a_warning_that_never_shows_its_output() {
    let receiver = Receiver::start().await;
    let env = session_env().await;
    let token = env.home.path().join("token");
    std::fs::write(&token, "Bearer s3cret-token\n").unwrap();
    headers_helper(&env, &format!("cat '{}'", token.display()));
    let (stderr, _) = run(&env, &otlp_vars("http/protobuf", &receiver.url));
    assert!(
        stderr.contains("did not print a JSON object of string values"),
        "{stderr}"
    );
    assert!(!stderr.contains("s3cret"), "{stderr}");
    // The configured headers are sent still.
    let configured = Some("Bearer secret".to_owned());
    assert_eq!(
        authorizations(&receiver),
        vec![("logs", configured.clone()), ("metrics", configured)]
    );
}
