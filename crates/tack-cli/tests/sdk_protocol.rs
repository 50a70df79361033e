//! The Agent SDK control protocol end to end, without the SDKs: the test plays
//! the SDK on the real binary's stdin/stdout (`--input-format stream-json`)
//! against the scripted server. The SDKs themselves drive tack in `sdk.rs`.

use crate::common;

use std::process::Stdio;
use std::time::Duration;

use common::{Env, kinds};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// Longest wait for one line (the slowest thing here is a hook timeout).
const LINE_TIMEOUT: Duration = Duration::from_secs(20);

/// tack in SDK mode, with the test as its SDK.
pub(crate) struct Sdk {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
    /// Every line read so far.
    seen: Vec<Value>,
}

impl Sdk {
    pub(crate) fn start(env: &Env, args: &[&str], vars: &[(&str, &str)]) -> Sdk {
        let mut child = tokio::process::Command::new(assert_cmd::cargo::cargo_bin("tack"))
            .env_clear()
            .envs(env.vars())
            .envs(vars.iter().copied())
            .current_dir(env.cwd())
            .args([
                "--output-format",
                "stream-json",
                "--verbose",
                "--input-format",
                "stream-json",
            ])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Sdk {
            child,
            stdin,
            stdout,
            seen: Vec::new(),
        }
    }

    pub(crate) async fn send(&mut self, line: Value) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        stdin.flush().await.unwrap();
    }

    pub(crate) async fn user(&mut self, text: &str, extra: Value) {
        let mut line = json!({"type": "user", "session_id": "",
            "message": {"role": "user", "content": text}, "parent_tool_use_id": null});
        for (k, v) in extra.as_object().unwrap() {
            line[k] = v.clone();
        }
        self.send(line).await;
    }

    pub(crate) async fn request(&mut self, id: &str, request: Value) {
        self.send(json!({"type": "control_request", "request_id": id, "request": request}))
            .await;
    }

    /// The next line tack prints.
    pub(crate) async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(LINE_TIMEOUT, self.stdout.next_line())
            .await
            .unwrap_or_else(|_| panic!("no line within {LINE_TIMEOUT:?}; seen: {:#?}", self.seen))
            .unwrap()
            .unwrap_or_else(|| panic!("stdout closed; seen: {:#?}", self.seen));
        let value: Value = serde_json::from_str(&line).unwrap();
        self.seen.push(value.clone());
        value
    }

    /// Lines up to and including the first that `done` accepts.
    pub(crate) async fn until(&mut self, done: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut out = Vec::new();
        loop {
            let line = self.next().await;
            let stop = done(&line);
            out.push(line);
            if stop {
                return out;
            }
        }
    }

    /// The answer to `id`, read already or next (answers come when ready,
    /// not in request order).
    pub(crate) async fn response(&mut self, id: &str) -> Value {
        let is_it =
            |l: &Value| l["type"] == "control_response" && l["response"]["request_id"] == id;
        if let Some(line) = self.seen.iter().find(|l| is_it(l)) {
            return line["response"].clone();
        }
        let lines = self.until(is_it).await;
        lines.last().unwrap()["response"].clone()
    }

    /// The next control request tack sends.
    pub(crate) async fn tack_request(&mut self) -> Value {
        let lines = self.until(|l| l["type"] == "control_request").await;
        lines.last().unwrap().clone()
    }

    pub(crate) async fn result(&mut self) -> Value {
        self.until(|l| l["type"] == "result").await.pop().unwrap()
    }

    pub(crate) async fn answer(&mut self, id: &str, response: Value) {
        self.send(json!({"type": "control_response",
            "response": {"subtype": "success", "request_id": id, "response": response}}))
            .await;
    }

    /// Closes stdin and waits for the exit: (code, the rest of stdout, stderr).
    pub(crate) async fn finish(mut self) -> (Option<i32>, Vec<Value>, String) {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        while let Ok(Some(line)) = tokio::time::timeout(LINE_TIMEOUT, self.stdout.next_line())
            .await
            .unwrap()
        {
            rest.push(serde_json::from_str(&line).unwrap());
        }
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .await
            .unwrap();
        let status = tokio::time::timeout(LINE_TIMEOUT, self.child.wait())
            .await
            .unwrap()
            .unwrap();
        (status.code(), rest, stderr)
    }
}

pub(crate) fn initialize(hooks: Value) -> Value {
    json!({"subtype": "initialize", "hooks": hooks})
}

fn callback(matcher: Option<&str>, ids: &[&str], timeout: Option<f64>) -> Value {
    let mut m = json!({"matcher": matcher, "hookCallbackIds": ids});
    if let Some(t) = timeout {
        m["timeout"] = json!(t);
    }
    m
}

#[tokio::test(flavor = "multi_thread")]
async fn initialize_is_answered_before_the_session_and_hook_callbacks_rewrite_and_deny() {
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use("toolu_1", "Bash", json!({"command": "echo original"}))
            .tool_use("toolu_2", "Bash", json!({"command": "rm -rf build"}))
            .into(),
        Reply::text("done"),
    ]))
    .await;
    let mut sdk = Sdk::start(&env, &[], &[]);
    sdk.request(
        "init",
        initialize(json!({"PreToolUse": [callback(Some("Bash"), &["hook_0"], None)]})),
    )
    .await;
    let init = sdk.response("init").await;
    assert_eq!(
        (
            &init["subtype"],
            &init["response"]["hooks_applied"],
            &init["response"]["commands"][0]["name"],
            &init["response"]["account"]["apiKeySource"],
            &init["response"]["models"][0]["value"],
        ),
        (
            &json!("success"),
            &json!(true),
            &json!("clear"),
            &json!("ANTHROPIC_API_KEY"),
            &json!("default")
        )
    );
    // The answer came before anything else: no system/init until a message.
    assert_eq!(kinds(&sdk.seen), ["control_response"]);
    sdk.user("tidy up", json!({"uuid": "u-1"})).await;
    let mut calls = Vec::new();
    for _ in 0..2 {
        let request = sdk.tack_request().await;
        let id = request["request_id"].as_str().unwrap().to_owned();
        let r = &request["request"];
        calls.push((
            r["input"]["tool_input"]["command"].clone(),
            r["tool_use_id"].clone(),
        ));
        let answer = if r["tool_use_id"] == "toolu_1" {
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "allow", "updatedInput": {"command": "echo rewritten"}}})
        } else {
            json!({"decision": "block", "reason": "not in this repo"})
        };
        assert_eq!(
            (
                &r["subtype"],
                &r["callback_id"],
                &r["input"]["hook_event_name"]
            ),
            (
                &json!("hook_callback"),
                &json!("hook_0"),
                &json!("PreToolUse")
            )
        );
        sdk.answer(&id, answer).await;
    }
    calls.sort_by_key(|c| c.1.to_string());
    assert_eq!(
        calls,
        [
            (json!("echo original"), json!("toolu_1")),
            (json!("rm -rf build"), json!("toolu_2"))
        ]
    );
    let result = sdk.result().await;
    assert_eq!(
        (
            &result["subtype"],
            &result["user_message_uuid"],
            &result["permission_denials"]
        ),
        (
            &json!("success"),
            &json!("u-1"),
            &json!([{"tool_name": "Bash", "tool_use_id": "toolu_2", "tool_input": {"command": "rm -rf build"}}])
        )
    );
    let init_record = sdk.seen.iter().find(|l| l["subtype"] == "init").unwrap();
    assert_eq!(
        (&init_record["capabilities"], &init_record["slash_commands"]),
        (
            &json!([
                "interrupt_receipt_v1",
                "interrupt_cancel_queued_v1",
                "sdk_mcp_tools_list_changed",
                "sdk_mcp_manifests"
            ]),
            &json!(["clear", "compact", "init"])
        )
    );
    let (code, _, stderr) = sdk.finish().await;
    assert_eq!(code, Some(0), "{stderr}");
    let second = env.request_bodies()[1]["messages"].to_string();
    assert!(second.contains("rewritten"), "{second}");
    assert!(second.contains("not in this repo"), "{second}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hook_callback_that_never_answers_times_out_and_is_cancelled() {
    let env = Env::new(Script::new([Reply::text("hello")])).await;
    let mut sdk = Sdk::start(&env, &[], &[]);
    sdk.request(
        "init",
        initialize(json!({"UserPromptSubmit": [callback(None, &["slow"], Some(0.3))]})),
    )
    .await;
    sdk.response("init").await;
    sdk.user("hi", json!({})).await;
    let request = sdk.tack_request().await;
    let id = request["request_id"].clone();
    // Never answered: after 0.3 s tack gives up, tells the SDK, and goes on.
    let lines = sdk.until(|l| l["type"] == "result").await;
    let cancels: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "control_cancel_request")
        .collect();
    assert_eq!(
        cancels,
        [&json!({"type": "control_cancel_request", "request_id": id})]
    );
    assert_eq!(lines.last().unwrap()["result"], "hello");
    let (code, _, stderr) = sdk.finish().await;
    assert_eq!(code, Some(0));
    assert!(
        stderr.contains(
            "UserPromptSubmit hook error: `callback slow` failed: did not answer within 0.3s"
        ),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn can_use_tool_timeouts_and_malformed_answers_deny_with_a_reason() {
    let env = Env::new(Script::new([
        Reply::tool_use(
            "toolu_1",
            "Write",
            json!({"file_path": "a.txt", "content": "a"}),
        ),
        Reply::tool_use(
            "toolu_2",
            "Write",
            json!({"file_path": "b.txt", "content": "b"}),
        ),
        Reply::tool_use(
            "toolu_3",
            "Write",
            json!({"file_path": "c.txt", "content": "c"}),
        ),
        Reply::text("gave up"),
    ]))
    .await;
    let mut sdk = Sdk::start(
        &env,
        &["--permission-prompt-tool", "stdio"],
        &[("TACK_PERMISSION_CALLBACK_TIMEOUT_MS", "300")],
    );
    sdk.request("init", initialize(Value::Null)).await;
    sdk.response("init").await;
    sdk.user("write three files", json!({})).await;

    // 1: never answered.
    let first = sdk.tack_request().await;
    assert_eq!(
        (
            &first["request"]["subtype"],
            &first["request"]["tool_name"],
            &first["request"]["tool_use_id"]
        ),
        (&json!("can_use_tool"), &json!("Write"), &json!("toolu_1"))
    );
    let cancel = sdk
        .until(|l| l["type"] == "control_cancel_request")
        .await
        .pop()
        .unwrap();
    assert_eq!(cancel["request_id"], first["request_id"]);
    // 2: an answer that is not a permission result.
    let second = sdk.tack_request().await;
    let id = second["request_id"].as_str().unwrap().to_owned();
    sdk.answer(&id, json!({"behavior": "perhaps"})).await;
    // 3: a control_response line that is not one.
    let third = sdk.tack_request().await;
    let id = third["request_id"].as_str().unwrap().to_owned();
    sdk.send(
        json!({"type": "control_response", "response": {"request_id": id, "behaviour": "allow"}}),
    )
    .await;
    let result = sdk.result().await;
    let denied: Vec<&Value> = result["permission_denials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["tool_use_id"])
        .collect();
    assert_eq!(denied, ["toolu_1", "toolu_2", "toolu_3"]);
    let (code, _, stderr) = sdk.finish().await;
    assert_eq!(code, Some(0), "{stderr}");
    for f in ["a.txt", "b.txt", "c.txt"] {
        assert!(!env.cwd().join(f).exists(), "{f} was written");
    }
    let bodies = env.request_bodies();
    let result_text = |i: usize| {
        bodies[i]["messages"].as_array().unwrap().last().unwrap()["content"][0]["content"].clone()
    };
    assert_eq!(
        result_text(1),
        json!("The can_use_tool callback did not answer within 0.3s; the tool call was denied")
    );
    assert_eq!(
        result_text(2),
        json!(
            "The can_use_tool callback returned a malformed answer (unknown variant `perhaps`, expected `allow` or `deny`); the tool call was denied"
        )
    );
    let third = result_text(3).as_str().unwrap().to_owned();
    assert!(
        third.starts_with("The can_use_tool callback failed: invalid control_response: "),
        "{third}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn should_query_false_appends_and_replay_echoes_every_user_line() {
    let env = Env::new(Script::new([Reply::text("noted")])).await;
    let mut sdk = Sdk::start(&env, &["--replay-user-messages"], &[]);
    sdk.user(
        "the build is red",
        json!({"uuid": "ctx-1", "shouldQuery": false}),
    )
    .await;
    sdk.user("what now?", json!({"uuid": "q-1"})).await;
    let lines = sdk.until(|l| l["type"] == "result").await;
    assert_eq!(
        kinds(&lines),
        ["user", "user", "system/init", "assistant", "result/success"]
    );
    let replay = |text: &str, uuid: &str| {
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": text}]},
            "parent_tool_use_id": null, "session_id": lines[2]["session_id"], "uuid": uuid, "isReplay": true})
    };
    assert_eq!(lines[0], replay("the build is red", "ctx-1"));
    assert_eq!(lines[1], replay("what now?", "q-1"));
    assert_eq!(lines[4]["user_message_uuid"], "q-1");
    let (code, rest, _) = sdk.finish().await;
    assert_eq!((code, rest), (Some(0), vec![]));
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 1);
    let sent = bodies[0]["messages"].to_string();
    assert!(
        sent.contains("the build is red") && sent.contains("what now?"),
        "{sent}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_tack_cannot_serve_get_clear_errors_and_the_rest_apply() {
    let env = Env::new(Script::new([Reply::message()
        .text("hi")
        .model("claude-haiku-4-5")
        .into()]))
    .await;
    let mut sdk = Sdk::start(&env, &[], &[]);
    sdk.request("init", initialize(Value::Null)).await;
    sdk.response("init").await;
    let requests = [
        ("r1", json!({"subtype": "mcp_status"})),
        (
            "r2",
            json!({"subtype": "rewind_files", "user_message_id": "u-1"}),
        ),
        ("r3", json!({"subtype": "seed_read_state", "x": 1})),
        (
            "r4",
            json!({"subtype": "set_permission_mode", "mode": "bypassPermissions"}),
        ),
        (
            "r5",
            json!({"subtype": "set_permission_mode", "mode": "acceptEdits"}),
        ),
        ("r6", json!({"subtype": "set_permission_mode"})),
        ("r7", json!({"subtype": "set_model", "model": "haiku"})),
        ("r8", json!({"subtype": "interrupt"})),
        ("r9", json!({"subtype": "initialize"})),
    ];
    for (id, request) in &requests {
        sdk.request(id, request.clone()).await;
    }
    let mut answers = Vec::new();
    for (id, _) in &requests {
        answers.push(sdk.response(id).await);
    }
    let error =
        |id: &str, error: &str| json!({"subtype": "error", "request_id": id, "error": error});
    let ok = |id: &str, response: Value| json!({"subtype": "success", "request_id": id, "response": response});
    assert_eq!(
        answers,
        [
            ok("r1", json!({"mcpServers": []})),
            // Without `enable_file_checkpointing` there is nothing to rewind to.
            error("r2", "File rewinding is not enabled."),
            json!({"subtype": "error", "request_id": "r3", "error": "Unsupported control request subtype: seed_read_state", "error_code": "unsupported_request"}),
            json!({"subtype": "error", "request_id": "r4",
                "error": "bypassPermissions mode is not available in this session: start it with --dangerously-skip-permissions or --allow-dangerously-skip-permissions (and without permissions.disableBypassPermissionsMode)",
                "error_code": "bypass_permissions_unavailable"}),
            ok("r5", json!({"mode": "acceptEdits"})),
            error(
                "r6",
                "invalid control request: invalid `set_permission_mode` control request: missing field `mode`"
            ),
            ok("r7", json!({})),
            ok("r8", json!({"still_queued": []})),
            error("r9", "Already initialized"),
        ]
    );
    sdk.user("hi", json!({})).await;
    sdk.result().await;
    let init = sdk.seen.iter().find(|l| l["subtype"] == "init").unwrap();
    assert_eq!(
        (&init["permissionMode"], &init["model"]),
        (&json!("acceptEdits"), &json!("claude-haiku-5-5"))
    );
    assert_eq!(env.request_bodies()[0]["model"], "claude-haiku-5-5");
    let (code, _, _) = sdk.finish().await;
    assert_eq!(code, Some(0));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_initialize_tack_cannot_honour_is_refused_before_anything_runs() {
    let env = Env::new(Script::new([Reply::text("never")])).await;
    let mut sdk = Sdk::start(&env, &[], &[]);
    sdk.request(
        "init",
        json!({"subtype": "initialize",
               "hooks": {"Stop": [{"hookCallbackIds": ["h"], "onFailure": "retry"}]}}),
    )
    .await;
    let refusal = "hooks.Stop: onFailure must be \"continue\" or \"block\" (got \"retry\")";
    assert_eq!(
        sdk.response("init").await,
        json!({"subtype": "error", "request_id": "init", "error": refusal})
    );
    let (code, rest, stderr) = sdk.finish().await;
    assert_eq!((code, rest), (Some(1), vec![]));
    assert_eq!(stderr, format!("Error: {refusal}\n"));
    assert!(env.request_bodies().is_empty());
    assert!(env.transcripts().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn agents_defined_in_initialize_are_offered_and_listed() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let mut sdk = Sdk::start(&env, &[], &[]);
    sdk.request(
        "init",
        json!({"subtype": "initialize",
               "agents": {"reviewer": {"description": "Reviews diffs", "prompt": "Review.", "model": "haiku"}}}),
    )
    .await;
    let answer = sdk.response("init").await;
    let listed: Vec<(&str, &str)> = answer["response"]["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["name"].as_str().unwrap(),
                a["description"].as_str().unwrap(),
            )
        })
        .filter(|(name, _)| *name == "reviewer")
        .collect();
    assert_eq!(listed, [("reviewer", "Reviews diffs")]);
    sdk.user("hi", json!({})).await;
    sdk.result().await;
    let init = sdk.seen.iter().find(|l| l["subtype"] == "init").unwrap();
    assert!(
        init["agents"]
            .as_array()
            .unwrap()
            .contains(&json!("reviewer")),
        "{init}"
    );
    let tools = env.request_bodies()[0]["tools"].clone();
    let agent = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Agent")
        .unwrap();
    assert!(
        agent["description"]
            .as_str()
            .unwrap()
            .contains("reviewer: Reviews diffs"),
        "{agent}"
    );
    let (code, _, _) = sdk.finish().await;
    assert_eq!(code, Some(0));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupt_can_drop_the_queue_and_its_receipt_precedes_the_result() {
    let env = Env::new(Script::new([
        Reply::message()
            .text("a very long answer")
            .stall_after(3, Duration::from_secs(30))
            .into(),
        Reply::text("never asked"),
    ]))
    .await;
    let mut sdk = Sdk::start(&env, &[], &[]);
    sdk.user("long", json!({"uuid": "a"})).await;
    sdk.until(|l| l["subtype"] == "init").await;
    sdk.user("queued", json!({"uuid": "b"})).await;
    while env.server.requests().is_empty() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    sdk.request(
        "int",
        json!({"subtype": "interrupt", "cancel_queued": true}),
    )
    .await;
    let lines = sdk.until(|l| l["type"] == "result").await;
    let n = lines.len();
    assert_eq!(
        lines[n - 2],
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "int",
            "response": {"still_queued": [], "cancelled": ["b"]}}})
    );
    assert_eq!(
        (
            &lines[n - 1]["subtype"],
            &lines[n - 1]["terminal_reason"],
            &lines[n - 1]["user_message_uuid"],
            &lines[n - 1]["errors"]
        ),
        (
            &json!("error_during_execution"),
            &json!("aborted_streaming"),
            &json!("a"),
            &json!([])
        )
    );
    let (code, rest, _) = sdk.finish().await;
    // "b" never ran; the last turn failed, so the exit code says so.
    assert_eq!((code, rest), (Some(1), vec![]));
    assert_eq!(env.request_bodies().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn fork_session_continues_a_conversation_under_a_new_id() {
    let env = Env::new(Script::new([
        Reply::text("first answer"),
        Reply::text("forked answer"),
    ]))
    .await;
    let out = env
        .tack()
        .args(["-p", "first question", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let original: Value = serde_json::from_slice(&out.stdout).unwrap();
    let original_id = original["session_id"].as_str().unwrap().to_owned();
    let original_path = env.transcripts()[0].clone();
    let before = std::fs::read_to_string(&original_path).unwrap();

    let resume = format!("--resume={original_id}");
    let mut sdk = Sdk::start(&env, &[&resume, "--fork-session"], &[]);
    sdk.user("and then?", json!({})).await;
    let result = sdk.result().await;
    let (code, _, _) = sdk.finish().await;
    assert_eq!(code, Some(0));
    let forked_id = result["session_id"].as_str().unwrap();
    assert_ne!(forked_id, original_id);
    assert_eq!(std::fs::read_to_string(&original_path).unwrap(), before);
    let forked = env
        .transcripts()
        .into_iter()
        .find(|p| p.to_string_lossy().contains(forked_id))
        .unwrap();
    let loaded = tack_store::load(&forked).unwrap();
    let texts: Vec<String> = loaded.messages.iter().map(|m| m.text()).collect();
    assert_eq!(
        texts,
        [
            "first question",
            "first answer",
            "and then?",
            "forked answer"
        ]
    );
    let sent = env.request_bodies()[1]["messages"].to_string();
    assert!(sent.contains("first answer"), "{sent}");
}

#[tokio::test(flavor = "multi_thread")]
async fn get_context_usage_answers_with_the_last_request_s_usage() {
    let env = Env::new(Script::new([Reply::message()
        .text("hi")
        .usage(1_000, 50)
        .cache(0, 9_000)
        .into()]))
    .await;
    // A 200k model: the figures below are its.
    let mut sdk = Sdk::start(&env, &["--model", "claude-sonnet-4-5"], &[]);
    sdk.user("hi", json!({})).await;
    sdk.result().await;
    sdk.request("u1", json!({"subtype": "get_context_usage"}))
        .await;
    let answer = sdk.response("u1").await;
    // The parts are byte estimates of the prompt tack built; the total is the
    // model's own count.
    let estimate = |i: usize| answer["response"]["categories"][i]["tokens"].clone();
    for i in 0..4 {
        assert!(estimate(i).as_u64().unwrap() > 0, "{answer:#}");
    }
    let category = |name: &str, tokens: Value, color: &str| json!({"name": name, "tokens": tokens, "color": color});
    assert_eq!(
        answer,
        json!({"subtype": "success", "request_id": "u1", "response": {
            "categories": [
                category("System prompt", estimate(0), "promptBorder"),
                category("System tools", estimate(1), "inactive"),
                category("Memory files", estimate(2), "claude"),
                category("Messages", estimate(3), "purple"),
                category("Free space", json!(200_000 - 10_050), "promptBorder"),
            ],
            "totalTokens": 10_050,
            "maxTokens": 167_000,
            "rawMaxTokens": 200_000,
            "percentage": 5.025,
            "model": "claude-sonnet-4-5",
            "isAutoCompactEnabled": true,
            "memoryFiles": [],
            "mcpTools": [],
            "agents": [],
            "gridRows": [],
            "autoCompactThreshold": 167_000,
        }})
    );
    let (code, _, _) = sdk.finish().await;
    assert_eq!(code, Some(0));
}

#[tokio::test(flavor = "multi_thread")]
async fn stop_task_stops_a_background_shell_by_id() {
    let env = Env::new(Script::new([
        Reply::tool_use(
            "t1",
            "Bash",
            json!({"command": "sleep 60", "run_in_background": true, "description": "wait"}),
        ),
        Reply::text("started"),
    ]))
    .await;
    let mut sdk = Sdk::start(&env, &["--allowedTools", "Bash"], &[]);
    sdk.user("start it", json!({})).await;
    let lines = sdk.until(|l| l["type"] == "result").await;
    let result = lines
        .iter()
        .find(|l| l["type"] == "user")
        .map(|l| l["message"]["content"][0]["content"].to_string())
        .unwrap();
    let id = result
        .split("with ID: ")
        .nth(1)
        .and_then(|rest| rest.split('.').next())
        .unwrap()
        .to_owned();
    // One at a time: the second finds the task the first stopped.
    let mut answers = Vec::new();
    for (request_id, task_id) in [("s1", id.as_str()), ("s2", id.as_str()), ("s3", "nope")] {
        sdk.request(
            request_id,
            json!({"subtype": "stop_task", "task_id": task_id}),
        )
        .await;
        answers.push(sdk.response(request_id).await);
    }
    assert_eq!(
        answers,
        [
            json!({"subtype": "success", "request_id": "s1", "response": {}}),
            json!({"subtype": "error", "request_id": "s2",
                "error": format!("Task {id} is not running (status: killed).")}),
            json!({"subtype": "error", "request_id": "s3", "error": "No task found with ID: nope"}),
        ]
    );
    let (code, _, _) = sdk.finish().await;
    assert_eq!(code, Some(0));
}

/// The SDK's side of an in-process server, played by hand: each JSON-RPC
/// message is one `mcp_message` request, answered with `mcp_response`; the
/// session starts once the handshake is through, and closing stdin while a
/// call waits fails that call (and the turn goes on).
#[tokio::test(flavor = "multi_thread")]
async fn an_in_process_server_over_mcp_message_and_stdin_closing_mid_call() {
    let env = Env::new(Script::new([
        Reply::tool_use("t1", "mcp__calc__add", json!({"a": 2, "b": 3})),
        Reply::text("It failed."),
    ]))
    .await;
    let config = json!({"mcpServers": {"calc": {"type": "sdk", "name": "calc"}}}).to_string();
    let mut sdk = Sdk::start(
        &env,
        &["--mcp-config", &config, "--allowedTools", "mcp__calc__add"],
        &[],
    );
    sdk.request("init", json!({"subtype": "initialize"})).await;
    let mut sent = Vec::new();
    let answers = [
        json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}}, "serverInfo": {"name": "calc", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "result": {}}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "add",
            "inputSchema": {"type": "object"}}]}}),
    ];
    for answer in answers {
        let request = sdk.tack_request().await;
        let id = request["request_id"].as_str().unwrap().to_owned();
        let message = &request["request"]["message"];
        sent.push(json!([
            id,
            request["request"]["subtype"],
            request["request"]["server_name"],
            message["method"],
            message.get("id")
        ]));
        sdk.answer(&id, json!({"mcp_response": answer})).await;
    }
    assert_eq!(
        sent,
        [
            json!(["tack_mcp_1", "mcp_message", "calc", "initialize", 0]),
            json!([
                "tack_mcp_2",
                "mcp_message",
                "calc",
                "notifications/initialized",
                null
            ]),
            json!(["tack_mcp_3", "mcp_message", "calc", "tools/list", 1]),
        ]
    );
    assert_eq!(sdk.response("init").await["subtype"], "success");
    sdk.user("add 2 and 3", json!({})).await;
    let call = sdk.tack_request().await;
    let message = &call["request"]["message"];
    assert_eq!(
        (
            &message["method"],
            &message["params"]["name"],
            &message["params"]["arguments"]
        ),
        (
            &json!("tools/call"),
            &json!("add"),
            &json!({"a": 2, "b": 3})
        )
    );
    let (code, rest, stderr) = sdk.finish().await;
    assert_eq!(code, Some(0), "{stderr}");
    let result = rest.iter().find(|l| l["type"] == "result").unwrap();
    assert_eq!(result["result"], "It failed.");
    let bodies = env.request_bodies();
    let last = bodies[1]["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(
        (
            &last["content"][0]["is_error"],
            &last["content"][0]["content"]
        ),
        (
            &json!(true),
            &json!(
                "<tool_use_error>MCP server \"calc\" closed the connection during mcp__calc__add; the server may have crashed</tool_use_error>"
            )
        )
    );
}
