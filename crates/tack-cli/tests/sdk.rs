//! The official Agent SDKs drive the real `tack` binary (issue 13): each test
//! scripts the model server, runs one scenario of `tests/sdk/drive.py` (Python
//! claude-agent-sdk) or `tests/sdk/drive.mjs` (TypeScript
//! @anthropic-ai/claude-agent-sdk) with the SDK pointed at tack and the API at
//! the server, and asserts on the one JSON line of observations the driver
//! prints, on the files in the project and on the requests the server saw.
//!
//! The SDKs come from `.ci/install-sdks.sh` (under `target/sdk`, or
//! `$TACK_SDK_DIR`); a test whose SDK is not installed prints why and passes,
//! unless `TACK_REQUIRE_SDKS` is set (`.ci/run` sets it): then it fails.
//! Every driver report also carries `parser`: each record tack printed, put
//! through the SDK's own parser and checked against the keys the SDK's types
//! require (`tests/sdk/records.json`); it must come back clean.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// How long one driver run may take (the slow answer alone is 20 s).
const DRIVER_TIMEOUT: Duration = Duration::from_secs(90);
/// Claude Code answers an interrupt in 25 ms; the issue asks for under 200.
const INTERRUPT_BUDGET_MS: u64 = 200;

/// One SDK and how to run its driver.
pub(crate) struct Sdk {
    name: &'static str,
    program: PathBuf,
    /// Before the scenario name.
    script: PathBuf,
    /// After the tack binary.
    extra_args: Vec<PathBuf>,
}

pub(crate) fn sdk_dir() -> PathBuf {
    match std::env::var_os("TACK_SDK_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/sdk"),
    }
}

fn driver(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/sdk")
        .join(file)
}

pub(crate) fn python() -> Result<Sdk, String> {
    let program = sdk_dir().join("py/bin/python");
    if !program.exists() {
        return Err(format!(
            "{} not found: run .ci/install-sdks.sh",
            program.display()
        ));
    }
    Ok(Sdk {
        name: "python",
        program,
        script: driver("drive.py"),
        extra_args: Vec::new(),
    })
}

pub(crate) fn typescript() -> Result<Sdk, String> {
    let module = sdk_dir().join("ts/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs");
    if !module.exists() {
        return Err(format!(
            "{} not found: run .ci/install-sdks.sh (needs node and npm)",
            module.display()
        ));
    }
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err()
    {
        return Err("node is not on PATH".into());
    }
    Ok(Sdk {
        name: "typescript",
        program: "node".into(),
        script: driver("drive.mjs"),
        extra_args: vec![module],
    })
}

/// A test that cannot run for `reason` (an SDK, or what it drives, is not
/// installed): it says why and passes, but fails under `TACK_REQUIRE_SDKS`,
/// where a missing SDK is an install step that did not run.
pub(crate) fn skip(reason: &str) {
    assert!(
        std::env::var_os("TACK_REQUIRE_SDKS").is_none(),
        "TACK_REQUIRE_SDKS is set but {reason}"
    );
    println!("skipped: {reason}");
}

/// Runs `scenario` of the SDK's driver in `env`'s project; `None` (after
/// [`skip`]) when the SDK is not installed.
pub(crate) async fn drive(sdk: &Result<Sdk, String>, scenario: &str, env: &Env) -> Option<Value> {
    drive_with(sdk, scenario, env, &[]).await
}

/// [`drive`] with more environment for the driver (and so for tack).
pub(crate) async fn drive_with(
    sdk: &Result<Sdk, String>,
    scenario: &str,
    env: &Env,
    extra_env: &[(&str, &Path)],
) -> Option<Value> {
    let sdk = match sdk {
        Ok(sdk) => sdk,
        Err(reason) => {
            skip(reason);
            return None;
        }
    };
    let mut args = vec![sdk.script.as_os_str(), scenario.as_ref()];
    args.push(env!("CARGO_BIN_EXE_tack").as_ref());
    args.extend(sdk.extra_args.iter().map(|a| a.as_os_str()));
    let report = run_driver(sdk.name, &sdk.program, &args, env, extra_env).await;
    // The driver's failure (the SDK's exception) is the most useful message.
    assert_eq!(report.get("error"), None, "{} driver: {report:#}", sdk.name);
    Some(report)
}

/// Runs a driver program with `args` in `env`'s project and returns the
/// JSON report it prints last.
pub(crate) async fn run_driver(
    name: &str,
    program: &Path,
    args: &[&std::ffi::OsStr],
    env: &Env,
    extra_env: &[(&str, &Path)],
) -> Value {
    let child = tokio::process::Command::new(program)
        .args(args)
        .env_clear()
        .envs(env.vars())
        .envs(extra_env.iter().copied())
        .current_dir(env.cwd())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start the {name} driver: {e}"));
    let out = tokio::time::timeout(DRIVER_TIMEOUT, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("the {name} driver ran over {DRIVER_TIMEOUT:?}"))
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stdout
        .lines()
        .last()
        .unwrap_or_else(|| panic!("the {name} driver printed nothing; stderr:\n{stderr}"));
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}\nstderr:\n{stderr}"))
}

/// The SDK took every record as it takes Claude Code's; returns the record kinds.
fn clean_parser_kinds(report: &Value) -> Vec<String> {
    let parser = &report["parser"];
    for key in ["rejected", "unknown", "missing", "warnings"] {
        assert_eq!(parser[key], json!([]), "parser.{key} in {report:#}");
    }
    serde_json::from_value(parser["kinds"].clone()).unwrap()
}

fn path_in(env: &Env, name: &str) -> String {
    env.cwd().join(name).to_string_lossy().into_owned()
}

// ----- scenarios ------------------------------------------------------------

async fn deny_write(sdk: Result<Sdk, String>) {
    let env = Env::new(Script::new([])).await;
    let input = json!({"file_path": path_in(&env, "out.txt"), "content": "hi"});
    env.server
        .push(Reply::tool_use("toolu_w1", "Write", input.clone()));
    env.server.push(Reply::text("I did not write it."));
    let Some(report) = drive(&sdk, "deny_write", &env).await else {
        return;
    };
    assert_eq!(
        clean_parser_kinds(&report),
        [
            "system/init",
            "assistant",
            "user",
            "assistant",
            "result/success"
        ]
    );
    assert_eq!(
        report["observations"],
        json!({
            "callback_calls": [{"tool_name": "Write", "input": input, "tool_use_id": "toolu_w1"}],
            "file_exists": false,
            "tool_results": [{"tool_use_id": "toolu_w1", "is_error": true, "content": "Writes are not allowed"}],
            "result": {
                "subtype": "success", "is_error": false, "num_turns": 2,
                "result": "I did not write it.", "terminal_reason": "completed",
                "permission_denials": [{"tool_name": "Write", "tool_use_id": "toolu_w1", "tool_input": input}],
            },
        })
    );
    // The model was told why.
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 2);
    let last = bodies[1]["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(
        last["content"][0]["content"],
        json!("Writes are not allowed"),
        "{last}"
    );
}

async fn hook(sdk: Result<Sdk, String>) {
    let env = Env::new(Script::new([])).await;
    std::fs::write(env.cwd().join("a.txt"), "alpha\n").unwrap();
    let read = json!({"file_path": path_in(&env, "a.txt")});
    let glob = json!({"pattern": "*.txt"});
    let write = json!({"file_path": path_in(&env, "b.txt"), "content": "made by the model"});
    env.server.push(
        Reply::message()
            .tool_use("toolu_r1", "Read", read.clone())
            .tool_use("toolu_g1", "Glob", glob.clone())
            .into(),
    );
    env.server
        .push(Reply::tool_use("toolu_w1", "Write", write.clone()));
    env.server.push(Reply::text("All done."));
    let Some(report) = drive(&sdk, "hook", &env).await else {
        return;
    };
    assert_eq!(
        clean_parser_kinds(&report),
        [
            "system/init",
            "assistant",
            "assistant",
            "user",
            "user",
            "assistant",
            "user",
            "assistant",
            "result/success"
        ]
    );
    let call = |id: &str, tool: &str, input: &Value| {
        json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input,
               "tool_use_id": id, "tool_use_id_argument": id})
    };
    assert_eq!(
        report["observations"],
        json!({
            "hook_calls": [
                call("toolu_g1", "Glob", &glob),
                call("toolu_r1", "Read", &read),
                call("toolu_w1", "Write", &write),
            ],
            "b_txt": "made by the model",
            "result": {
                "subtype": "success", "is_error": false, "num_turns": 3, "result": "All done.",
                "terminal_reason": "completed", "permission_denials": [],
            },
        })
    );
}

async fn interrupt(sdk: Result<Sdk, String>) {
    let env = Env::new(Script::new([])).await;
    // 48 × "slow " = 240 characters = 20 text deltas; 26 events 800 ms apart:
    // about 20 s if nobody stops it.
    env.server.push(
        Reply::message()
            .text(&"slow ".repeat(48))
            .pacing(Duration::from_millis(800))
            .into(),
    );
    env.server.push(Reply::text("Second answer."));
    let Some(report) = drive(&sdk, "interrupt", &env).await else {
        return;
    };
    let mut observations = report["observations"].clone();
    let map = observations.as_object_mut().unwrap();
    let to_result = map.remove("interrupt_to_result_ms");
    let ack = map.remove("interrupt_ack_ms");
    // The interrupted request finished no content block, so it produced no
    // assistant message: tack's num_turns counts the model's messages.
    assert_eq!(
        observations,
        json!({
            "saw_delta": true,
            "first": {
                "subtype": "error_during_execution", "is_error": true, "num_turns": 0, "result": null,
                "terminal_reason": "aborted_streaming", "permission_denials": [],
            },
            "second": {
                "subtype": "success", "is_error": false, "num_turns": 1, "result": "Second answer.",
                "terminal_reason": "completed", "permission_denials": [],
            },
            "same_session": true,
        }),
        "interrupt acknowledged in {ack:?} ms, turn ended {to_result:?} ms after it"
    );
    let to_result = to_result.and_then(|v| v.as_u64()).expect("timed");
    let ack = ack.and_then(|v| v.as_u64()).expect("timed");
    println!(
        "{}: interrupt acknowledged in {ack} ms, result {to_result} ms after it was sent",
        report["sdk"]
    );
    assert!(
        ack <= to_result && to_result < INTERRUPT_BUDGET_MS,
        "interrupt acknowledged in {ack} ms, turn ended {to_result} ms after it"
    );
    let kinds = clean_parser_kinds(&report);
    let results: Vec<&String> = kinds.iter().filter(|k| k.starts_with("result")).collect();
    assert_eq!(results, ["result/error_during_execution", "result/success"]);
    // The slow answer's HTTP stream was dropped, not read to its end.
    tokio::time::timeout(Duration::from_secs(5), env.server.wait_abandoned_streams(1))
        .await
        .expect("the interrupted request is cancelled");
    assert_eq!(env.server.abandoned_streams(), 1);
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 2);
    let last = bodies[1]["messages"].as_array().unwrap().last().unwrap();
    assert!(last.to_string().contains("Now a short one"), "{last}");
}

async fn result_fields(sdk: Result<Sdk, String>) {
    let env = Env::new(Script::new([Reply::message()
        .text("Hello there.")
        .usage(100, 20)
        .cache(0, 0)
        .into()]))
    .await;
    let Some(report) = drive(&sdk, "result_fields", &env).await else {
        return;
    };
    assert_eq!(
        clean_parser_kinds(&report),
        ["system/init", "assistant", "result/success"]
    );
    let mut observations = report["observations"].clone();
    let cost = observations["result"]
        .as_object_mut()
        .unwrap()
        .remove("total_cost_usd")
        .and_then(|v| v.as_f64())
        .expect("total_cost_usd is a number");
    // claude-sonnet-4-5: $3 per million input tokens, $15 per million output.
    let expected_cost = 100.0 * 3.0 / 1e6 + 20.0 * 15.0 / 1e6;
    assert!((cost - expected_cost).abs() < 1e-12, "cost {cost}");
    assert_eq!(
        observations,
        json!({
            "result": {
                "subtype": "success", "is_error": false, "num_turns": 1, "result": "Hello there.",
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 100, "output_tokens": 20,
                          "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
                "model_usage_models": ["claude-sonnet-4-5"],
                "permission_denials": [],
                "duration_ms_is_int": true,
                "uuid_is_set": true,
            },
            "session_ids_agree": true,
            "init": {"model": "claude-sonnet-4-5", "permissionMode": "default",
                     "apiKeySource": "ANTHROPIC_API_KEY", "cwd": env.cwd().to_string_lossy(),
                     "output_style": "default"},
            "assistant_texts": ["Hello there."],
        })
    );
}

async fn control(sdk: Result<Sdk, String>) {
    let env = Env::new(Script::new([Reply::message()
        .text("Hello there.")
        .usage(100, 20)
        .into()]))
    .await;
    let Some(report) = drive(&sdk, "control", &env).await else {
        return;
    };
    assert_eq!(
        report["observations"],
        json!({
            "context_usage": {
                "categories": ["System prompt", "System tools", "Memory files", "Messages", "Free space"],
                "totalTokens": 120,
                "rawMaxTokens": 1_000_000,
                "model": tack_runtime::DEFAULT_MODEL,
            },
            "stop_task": "No task found with ID: nope",
        })
    );
}

/// File checkpointing: the first turn edits `keep.txt`, the second edits it
/// again and creates `new.txt`; rewinding to the first prompt puts both back.
async fn rewind(sdk: Result<Sdk, String>) {
    let env = Env::new(Script::new([])).await;
    let (keep, new) = (path_in(&env, "keep.txt"), path_in(&env, "new.txt"));
    std::fs::write(&keep, "original\nshared\n").unwrap();
    let edit = |id: &str, old: &str, new_text: &str| {
        Reply::tool_use(
            id,
            "Edit",
            json!({"file_path": keep, "old_string": old, "new_string": new_text}),
        )
    };
    env.server.push(Reply::tool_use(
        "toolu_r",
        "Read",
        json!({"file_path": keep}),
    ));
    env.server.push(edit("toolu_e1", "original", "first"));
    env.server.push(Reply::text("Changed."));
    env.server.push(
        Reply::message()
            .tool_use(
                "toolu_e2",
                "Edit",
                json!({"file_path": keep, "old_string": "first", "new_string": "second\nthird"}),
            )
            .tool_use(
                "toolu_w",
                "Write",
                json!({"file_path": new, "content": "new\n"}),
            )
            .into(),
    );
    env.server.push(Reply::text("Changed again."));
    let Some(report) = drive(&sdk, "rewind", &env).await else {
        return;
    };
    let mut expected = json!({
        "prompt_uuids": 2,
        "after_turns": {"keep": "second\nthird\nshared\n", "new": "new\n"},
        "after_rewind": {"keep": "original\nshared\n", "new": null},
        "unknown": "No file checkpoint found for this message.",
    });
    if sdk.as_ref().is_ok_and(|s| s.name == "typescript") {
        // Only TypeScript returns the answer: a dry run first, then the rewind.
        let answer = json!({"canRewind": true, "filesChanged": [keep, new],
                            "insertions": 1, "deletions": 3});
        let extra = json!({
            "dry_run": answer,
            "after_dry_run": expected["after_turns"],
            "rewind": answer,
            "unknown_dry_run": {"canRewind": false, "error": "No file checkpoint found for this message."},
        });
        expected
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
    }
    assert_eq!(report["observations"], expected);
    clean_parser_kinds(&report);
    // The backups: keep.txt before each turn's first change (new.txt did not
    // exist), under the session's file-history folder.
    let history = env.config_dir().join("file-history");
    let sessions: Vec<_> = std::fs::read_dir(&history).unwrap().collect();
    assert_eq!(sessions.len(), 1);
    let mut backups: Vec<String> = std::fs::read_dir(sessions[0].as_ref().unwrap().path())
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            std::fs::read_to_string(e.path()).unwrap()
        })
        .collect();
    backups.sort();
    assert_eq!(backups, ["first\nshared\n", "original\nshared\n"]);
}

/// Structured output through the SDK's own option (`output_format` /
/// `outputFormat`), nested schema: a Read first, an invalid answer the model
/// is told about, then the answer the SDK's result message carries.
async fn structured(sdk: Result<Sdk, String>) {
    let schema: Value = serde_json::from_str(include_str!("sdk/structured_schema.json")).unwrap();
    let env = Env::new(Script::new([])).await;
    std::fs::write(env.cwd().join("a.txt"), "alpha\nbeta\n").unwrap();
    let read = json!({"file_path": path_in(&env, "a.txt")});
    let wrong = json!({"verdict": "maybe", "file": {"name": "a.txt"}});
    let answer =
        json!({"verdict": "pass", "file": {"name": "a.txt", "lines": 2}, "tags": ["small"]});
    env.server.push(Reply::tool_use("toolu_r1", "Read", read));
    env.server
        .push(Reply::tool_use("toolu_s1", "StructuredOutput", wrong));
    env.server.push(Reply::tool_use(
        "toolu_s2",
        "StructuredOutput",
        answer.clone(),
    ));
    let Some(report) = drive(&sdk, "structured", &env).await else {
        return;
    };
    let mut kinds = vec!["system/init"];
    kinds.extend(["assistant", "user"].repeat(3));
    kinds.push("result/success");
    assert_eq!(clean_parser_kinds(&report), kinds);
    let invalid = "<tool_use_error>Output does not match required schema: \
                   /verdict: value must be one of 'pass', 'fail'; \
                   /file: missing properties 'lines'</tool_use_error>";
    assert_eq!(
        report["observations"],
        json!({
            "result": {
                "subtype": "success", "is_error": false, "num_turns": 3, "result": "",
                "terminal_reason": "completed", "permission_denials": [],
            },
            "structured_output": answer,
            "tool_results": [
                {"tool_use_id": "toolu_r1", "is_error": null, "content": "1\talpha\n2\tbeta\n"},
                {"tool_use_id": "toolu_s1", "is_error": true, "content": invalid},
                {"tool_use_id": "toolu_s2", "is_error": null, "content": "Structured output provided successfully"},
            ],
        })
    );
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 3);
    let tool = common::request_tool(&bodies[0], "StructuredOutput");
    assert_eq!(tool["input_schema"], schema);
}

async fn hook_events(sdk: Result<Sdk, String>) {
    let env = Env::new(Script::new([
        Reply::tool_use("toolu_b1", "Bash", json!({"command": "echo hi"})),
        Reply::text("Done."),
    ]))
    .await;
    let Some(report) = drive(&sdk, "hook_events", &env).await else {
        return;
    };
    let hook = |subtype: &str, event: &str, name: &str, end: Option<(&str, i32, &str, &str)>| {
        let (outcome, exit_code, stdout, stderr) = match end {
            Some((o, c, out, err)) => (json!(o), json!(c), json!(out), json!(err)),
            None => (Value::Null, Value::Null, Value::Null, Value::Null),
        };
        json!({"subtype": subtype, "hook_event_name": event, "hook_name": name,
               "outcome": outcome, "exit_code": exit_code, "stdout": stdout, "stderr": stderr})
    };
    assert_eq!(
        report["observations"],
        json!({
            "hooks": [
                hook("hook_started", "SessionStart", "SessionStart:startup", None),
                hook("hook_response", "SessionStart", "SessionStart:startup",
                     Some(("success", 0, "started\n", ""))),
                hook("hook_started", "PreToolUse", "PreToolUse:Bash", None),
                hook("hook_response", "PreToolUse", "PreToolUse:Bash",
                     Some(("success", 0, "", "pre\n"))),
                hook("hook_started", "PostToolUse", "PostToolUse:Bash", None),
                hook("hook_response", "PostToolUse", "PostToolUse:Bash",
                     Some(("error", 3, "", ""))),
            ],
            "result": {
                "subtype": "success", "is_error": false, "num_turns": 2, "result": "Done.",
                "terminal_reason": "completed", "permission_denials": [],
            },
        })
    );
    let kinds = clean_parser_kinds(&report);
    let hooks = kinds
        .iter()
        .filter(|k| k.starts_with("system/hook_"))
        .count();
    assert_eq!((kinds[2].as_str(), hooks), ("system/init", 6), "{kinds:?}");
}

async fn clear(sdk: Result<Sdk, String>) {
    let env = Env::new(Script::new([
        Reply::text("First answer."),
        Reply::text("Second answer."),
    ]))
    .await;
    let Some(report) = drive(&sdk, "clear", &env).await else {
        return;
    };
    assert_eq!(
        clean_parser_kinds(&report),
        [
            "system/init",
            "assistant",
            "result/success",
            "conversation_reset",
            "result/success",
            "assistant",
            "result/success"
        ]
    );
    // The session ids, named: the first turn's is `old`, the reset's new one `new`.
    let mut observations = report["observations"].to_string();
    let old = report["observations"]["turns"][0]["session_id"].clone();
    let new = report["observations"]["turns"][1]["resets"][0]["new_conversation_id"].clone();
    assert!(
        old.is_string() && new.is_string() && old != new,
        "{report:#}"
    );
    for (id, name) in [(&old, "old"), (&new, "new")] {
        observations = observations.replace(&id.to_string(), &json!(name).to_string());
    }
    let result = |turns: u32, text: &str| {
        json!({"subtype": "success", "is_error": false, "num_turns": turns, "result": text,
               "terminal_reason": "completed", "permission_denials": []})
    };
    let cleared = result(0, "");
    assert_eq!(
        serde_json::from_str::<Value>(&observations).unwrap(),
        json!({"turns": [
            {"prompt": "remember FIRST-TOPIC", "resets": [], "session_id": "old",
             "result": result(1, "First answer.")},
            {"prompt": "/clear", "resets": [{"new_conversation_id": "new", "session_id": "old"}],
             "session_id": "new", "result": cleared},
            {"prompt": "what was the topic?", "resets": [], "session_id": "new",
             "result": result(1, "Second answer.")},
        ]})
    );
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 2);
    let sent = bodies[1]["messages"].to_string();
    assert!(
        sent.contains("what was the topic?") && !sent.contains("FIRST-TOPIC"),
        "{sent}"
    );
}

async fn replay(sdk: Result<Sdk, String>) {
    let env = Env::new(Script::new([Reply::text("Hello there.")])).await;
    let Some(report) = drive(&sdk, "replay", &env).await else {
        return;
    };
    assert_eq!(
        clean_parser_kinds(&report),
        ["user", "system/init", "assistant", "result/success"]
    );
    assert_eq!(
        report["observations"],
        json!({
            "replayed": [{"uuid": "0b1c4c2e-5d4e-4b8a-9f1e-2a3b4c5d6e7f", "content": ["Say hello"]}],
            "result": {
                "subtype": "success", "is_error": false, "num_turns": 1, "result": "Hello there.",
                "terminal_reason": "completed", "permission_denials": [],
            },
        })
    );
}

/// In-process tools: the model calls five tools of the SDK's server "calc"
/// in turn; each tool's answer (or why it did not run) is in the next request.
async fn sdk_mcp(sdk: Result<Sdk, String>) {
    let calls = [
        ("t1", "add", json!({"a": 2, "b": 3})),
        ("t2", "divide", json!({"a": 1, "b": 0})),
        ("t3", "chart", json!({})),
        ("t4", "wipe", json!({})),
        ("t5", "secret", json!({})),
    ];
    let mut replies: Vec<Reply> = calls
        .iter()
        .map(|(id, name, input)| Reply::tool_use(id, &format!("mcp__calc__{name}"), input.clone()))
        .collect();
    replies.push(Reply::text("Done."));
    let env = Env::new(Script::new(replies)).await;
    let Some(report) = drive(&sdk, "sdk_mcp", &env).await else {
        return;
    };
    // 14: t4's refusal by a deny rule (no prompt) is a
    // system/permission_denied record too.
    assert_eq!(clean_parser_kinds(&report).len(), 14, "{report:#}");
    let pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    let image = json!([{"type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": pixel}}]);
    let secret = "mcp__calc__secret requires approval (no permission prompt available)";
    // What each tool call came back as, in the next request (t4: a deny rule
    // keeps the tool from the model; t5: no rule allows it, nobody to ask).
    let answers = [
        json!({"tool_use_id": "t1", "content": "5"}),
        json!({"tool_use_id": "t2", "is_error": true,
               "content": "<tool_use_error>cannot divide by zero</tool_use_error>"}),
        json!({"tool_use_id": "t3", "content": image}),
        json!({"tool_use_id": "t4", "is_error": true,
               "content": "<tool_use_error>Error: No such tool available: mcp__calc__wipe</tool_use_error>"}),
        json!({"tool_use_id": "t5", "is_error": true, "content": secret}),
    ];
    assert_eq!(
        report["observations"],
        json!({
            // The SDK's own functions ran for the three allowed tools only.
            "calls": [["add", {"a": 2, "b": 3}], ["divide", {"a": 1, "b": 0}], ["chart", {}]],
            "mcp_servers": [{"name": "calc", "status": "connected"}],
            "mcp_tools": ["mcp__calc__add", "mcp__calc__divide", "mcp__calc__chart", "mcp__calc__secret"],
            "tool_results": answers.iter().map(|a| json!({
                "tool_use_id": a["tool_use_id"],
                "is_error": a.get("is_error").cloned().unwrap_or(Value::Null),
                "content": a["content"],
            })).collect::<Vec<_>>(),
            "result": {
                "subtype": "success", "is_error": false, "num_turns": 6, "result": "Done.",
                "terminal_reason": "completed",
                "permission_denials": [{"tool_name": "mcp__calc__secret", "tool_use_id": "t5", "tool_input": {}}],
            },
        })
    );
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 6);
    for (body, answer) in bodies[1..].iter().zip(&answers) {
        let mut block = answer.clone();
        block["type"] = json!("tool_result");
        block["cache_control"] = json!({"type": "ephemeral"});
        let last = body["messages"].as_array().unwrap().last().unwrap();
        assert_eq!(last["content"], json!([block]));
    }
    let calc = common::request_tool(&bodies[0], "mcp__calc__add");
    assert_eq!(calc["description"], json!("Add two numbers"));
}

async fn plugins(sdk: Result<Sdk, String>) {
    let env = Env::new(Script::new([Reply::text("Committed.")])).await;
    let root = env.home.path().join("plugins/kit");
    common::write(
        root.join(".claude-plugin/plugin.json"),
        r#"{"name": "kit", "version": "1.2.0"}"#,
    );
    common::write(
        root.join("commands/commit.md"),
        "---\ndescription: Commit\n---\nEcho: !`echo from the shell`\nCommit: $ARGUMENTS\n",
    );
    common::write(
        root.join("skills/review/SKILL.md"),
        "---\ndescription: Reviews\n---\nR\n",
    );
    let Some(report) = drive_with(&sdk, "plugins", &env, &[("TACK_TEST_PLUGIN", &root)]).await
    else {
        return;
    };
    clean_parser_kinds(&report);
    assert_eq!(
        report["observations"],
        json!({
            "plugins": [{"name": "kit", "path": root, "source": "kit@inline", "version": "1.2.0"}],
            "slash_commands": ["clear", "compact", "init", "kit:commit", "kit:review"],
            "skills": ["kit:review"],
            "result": {"subtype": "success", "is_error": false, "num_turns": 1,
                "result": "Committed.", "terminal_reason": "completed", "permission_denials": []},
        })
    );
    let sent = env.request_bodies()[0]["messages"].to_string();
    assert!(
        sent.contains("Echo: from the shell\\nCommit: fix typo"),
        "{sent}"
    );
}

// ----- one test per SDK and scenario ----------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn python_in_process_mcp_tools() {
    sdk_mcp(python()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_in_process_mcp_tools() {
    sdk_mcp(typescript()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_permission_prompts_none_denies_without_asking() {
    let env = Env::new(Script::new([])).await;
    let input = json!({"file_path": path_in(&env, "out.txt"), "content": "hi"});
    env.server
        .push(Reply::tool_use("toolu_w1", "Write", input.clone()));
    env.server.push(Reply::text("DENIED"));
    let Some(report) = drive(&typescript(), "prompts_none", &env).await else {
        return;
    };
    let denial = "Write requires approval (no permission prompt available)";
    assert_eq!(
        report["observations"],
        json!({
            "callback_calls": [],
            "file_exists": false,
            "tool_results": [{"tool_use_id": "toolu_w1", "is_error": true, "content": denial}],
            "result": {
                "subtype": "success", "is_error": false, "num_turns": 2, "result": "DENIED",
                "terminal_reason": "completed",
                "permission_denials": [{"tool_name": "Write", "tool_use_id": "toolu_w1", "tool_input": input}],
            },
        })
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_in_process_tools_list_changed() {
    let env = Env::new(Script::new([
        Reply::tool_use("t1", "mcp__calc__add", json!({"a": 2, "b": 3})),
        Reply::text("Five."),
        Reply::tool_use("t2", "mcp__calc__square", json!({"x": 4})),
        Reply::text("Sixteen."),
    ]))
    .await;
    let Some(report) = drive(&typescript(), "sdk_mcp_list_changed", &env).await else {
        return;
    };
    assert_eq!(
        report["observations"]["calls"],
        json!([["add", {"a": 2, "b": 3}], ["square", {"x": 4}]])
    );
    let mcp_tools = |body: &Value| -> Vec<String> {
        let tools = body["tools"].as_array().unwrap().iter();
        tools
            .filter_map(|t| t["name"].as_str().filter(|n| n.starts_with("mcp__")))
            .map(str::to_owned)
            .collect()
    };
    let first = ["add", "divide", "chart", "wipe", "secret"].map(|t| format!("mcp__calc__{t}"));
    let mut second = first.to_vec();
    second.push("mcp__calc__square".into());
    let bodies = env.request_bodies();
    let offered: Vec<Vec<String>> = bodies.iter().map(mcp_tools).collect();
    assert_eq!(
        offered,
        [first.to_vec(), first.to_vec(), second.clone(), second]
    );
    let last = bodies[3]["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["content"][0]["content"], json!("16"));
}

#[tokio::test(flavor = "multi_thread")]
async fn python_plugins_option_loads_a_local_plugin() {
    plugins(python()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_plugins_option_loads_a_local_plugin() {
    plugins(typescript()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_structured_output_with_a_nested_schema() {
    structured(python()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_structured_output_with_a_nested_schema() {
    structured(typescript()).await;
}

/// Callback hooks for PostToolUseFailure and PermissionRequest get Claude
/// Code's input fields, and their answers count (context for the model; an
/// allowed Write that nobody else would have approved).
async fn new_hook_events(sdk: Result<Sdk, String>) {
    let env = Env::new(Script::new([])).await;
    let read = json!({"file_path": path_in(&env, "notes.txt")});
    let write = json!({"file_path": path_in(&env, "b.txt"), "content": "allowed by a hook"});
    env.server
        .push(Reply::tool_use("toolu_r1", "Read", read.clone()));
    env.server
        .push(Reply::tool_use("toolu_w1", "Write", write.clone()));
    env.server.push(Reply::text("Done."));
    let Some(report) = drive(&sdk, "new_hook_events", &env).await else {
        return;
    };
    let obs = &report["observations"];
    let error = obs["hook_calls"][0]["error"].clone();
    assert!(error.as_str().unwrap().contains("does not exist"), "{obs}");
    let read_result = obs["tool_results"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(read_result.contains("the notes moved to docs/"), "{obs}");
    assert_eq!(
        obs["hook_calls"],
        json!([
            {"hook_event_name": "PostToolUseFailure", "tool_name": "Read", "tool_input": read,
             "tool_use_id": "toolu_r1", "tool_use_id_argument": "toolu_r1",
             "error": error, "is_interrupt": false},
            {"hook_event_name": "PermissionRequest", "tool_name": "Write", "tool_input": write,
             "tool_use_id": null, "tool_use_id_argument": null,
             "error": null, "is_interrupt": null},
        ])
    );
    assert_eq!(obs["b_txt"], "allowed by a hook");
    assert_eq!(obs["result"]["result"], "Done.");
}

#[tokio::test(flavor = "multi_thread")]
async fn python_callbacks_get_the_new_hook_events() {
    new_hook_events(python()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_callbacks_get_the_new_hook_events() {
    new_hook_events(typescript()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_include_hook_events() {
    hook_events(python()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_include_hook_events() {
    hook_events(typescript()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_clear_starts_a_new_conversation() {
    clear(python()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_clear_starts_a_new_conversation() {
    clear(typescript()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_replay_user_messages() {
    replay(python()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_replay_user_messages() {
    replay(typescript()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_get_context_usage_and_stop_task() {
    control(python()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_can_use_tool_denies_write() {
    deny_write(python()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_can_use_tool_denies_write() {
    deny_write(typescript()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_pre_tool_use_hook_sees_every_tool() {
    hook(python()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_pre_tool_use_hook_sees_every_tool() {
    hook(typescript()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_interrupt_then_next_query() {
    interrupt(python()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_interrupt_then_next_query() {
    interrupt(typescript()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_result_message_fields() {
    result_fields(python()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_result_message_fields() {
    result_fields(typescript()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_rewind_files_restores_the_first_prompts_files() {
    rewind(python()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_rewind_files_restores_the_first_prompts_files() {
    rewind(typescript()).await;
}

/// A session tack wrote (with a sub-agent), read back through the SDK's own
/// session functions, `CLAUDE_CONFIG_DIR` set for the driver and tack.
async fn sessions(sdk: Result<Sdk, String>) {
    let env = Env::new(Script::new([
        Reply::tool_use(
            "toolu_agent",
            "Task",
            json!({"description": "part A", "prompt": "SUBTASK-A: say ok", "subagent_type": "general-purpose"}),
        ),
        Reply::text("RESULT-A-OK"),
        Reply::text("The sub-agent reported."),
    ]))
    .await;
    let claude = tempfile::tempdir().unwrap();
    let Some(report) = drive_with(
        &sdk,
        "sessions",
        &env,
        &[("CLAUDE_CONFIG_DIR", claude.path())],
    )
    .await
    else {
        return;
    };
    assert_eq!(
        report["observations"],
        json!({
            "sessions": [{"same_id": true, "summary": "delegate it", "first_prompt": "delegate it", "cwd": true}],
            "messages": [
                ["user", "delegate it"],
                ["assistant", ["Task"]],
                ["user", ["toolu_agent"]],
                ["assistant", ["The sub-agent reported."]],
            ],
            "messages_in_any_project": 4,
            "subagents": 1,
            "subagent_messages": [[["user", "SUBTASK-A: say ok"], ["assistant", ["RESULT-A-OK"]]]],
            "subagent_parent_tool_use_ids": ["toolu_agent"],
        })
    );
    // Nothing went to HOME's `.claude` or tack's own dir.
    assert!(!env.claude_dir().exists() && !env.config_dir().join("projects").exists());
}

/// `session_store` (`--session-mirror`): every record tack writes reaches
/// the SDK's store as written (the sub-agent's too); a resume from the store
/// alone (tack's files deleted) continues the conversation.
async fn session_store(sdk: Result<Sdk, String>) {
    let env = Env::new(Script::new([
        Reply::tool_use(
            "toolu_agent",
            "Agent",
            json!({"description": "part A", "prompt": "SUBTASK-A: say ok", "subagent_type": "general-purpose"}),
        ),
        Reply::text("RESULT-A-OK"),
        Reply::text("The sub-agent reported."),
        Reply::text("Still here."),
    ]))
    .await;
    let claude = tempfile::tempdir().unwrap();
    let vars = [("CLAUDE_CONFIG_DIR", claude.path())];
    let Some(report) = drive_with(&sdk, "session_store", &env, &vars).await else {
        return;
    };
    let result = |turns: u32, text: &str| {
        json!({"subtype": "success", "is_error": false, "num_turns": turns, "result": text,
               "terminal_reason": "completed", "permission_denials": []})
    };
    assert_eq!(
        report["observations"],
        json!({
            "first": result(2, "The sub-agent reported."),
            "mirrored": {
                "main_same_as_file": true, "subagents": 1, "subagents_same_as_files": [true],
                "subagent_metadata": [[{"type": "agent_metadata", "agentType": "general-purpose",
                                        "toolUseId": "toolu_agent"}]],
                "subagent_parent_tool_use_ids": ["toolu_agent"],
            },
            "second": result(1, "Still here."),
            "second_same_session": true,
            "records_added_by_the_resumed_turn": 2,
        })
    );
    // The resumed request carried the first turn, read from the store's copy.
    let last = env.request_bodies().pop().unwrap()["messages"].to_string();
    assert!(
        last.contains("delegate it") && last.contains("The sub-agent reported."),
        "{last}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn python_mirrors_sessions_into_a_session_store_and_resumes_from_it() {
    session_store(python()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_reads_tacks_sessions_with_its_session_functions() {
    sessions(python()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_reads_tacks_sessions_with_its_session_functions() {
    sessions(typescript()).await;
}
