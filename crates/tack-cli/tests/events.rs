//! Issue 21's stream-json records through the real binary: hook lifecycle
//! records (`--include-hook-events`, SessionStart's always), `/clear` (a
//! `conversation_reset`, a new session id, a conversation without the old
//! messages), and `system/init`'s `output_style` from settings.

use crate::common;

use common::{Env, kinds, lines};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// Hooks on five events: SessionStart says something, PreToolUse writes to
/// stderr, PostToolUse fails, Stop and UserPromptSubmit are silent.
fn hook_settings() -> String {
    let hook = |matcher: &str, command: &str| json!([{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]);
    json!({"hooks": {
        "SessionStart": hook("", "echo started"),
        "UserPromptSubmit": hook("", "true"),
        "PreToolUse": hook("Bash", "echo pre >&2"),
        "PostToolUse": hook("Bash", "exit 3"),
        "Stop": hook("", "true"),
    }})
    .to_string()
}

/// The hook records of `records`, each start paired with its response by
/// `hook_id` (then left out), session ids checked and left out.
fn hook_records(records: &[Value]) -> Vec<Value> {
    let session = records[0]["session_id"].clone();
    let mut started = Vec::new();
    let mut out = Vec::new();
    for r in records {
        let subtype = r["subtype"].as_str().unwrap_or("");
        if r["type"] != "system" || !subtype.starts_with("hook_") {
            continue;
        }
        let mut r = r.clone();
        assert_eq!(r["session_id"], session, "{r}");
        let id = r["hook_id"].clone();
        if subtype == "hook_started" {
            started.push((id, r["hook_name"].clone()));
        } else {
            let at = started.iter().position(|(i, _)| *i == id);
            let (_, name) = started.remove(at.unwrap_or_else(|| panic!("unpaired: {r}")));
            assert_eq!(r["hook_name"], name);
        }
        let map = r.as_object_mut().unwrap();
        for key in ["hook_id", "uuid", "session_id"] {
            assert!(map.remove(key).is_some_and(|v| v.is_string()), "{key}");
        }
        out.push(r);
    }
    assert_eq!(started, Vec::new(), "hooks that never ended");
    out
}

fn started(name: &str, event: &str) -> Value {
    json!({"type": "system", "subtype": "hook_started", "hook_name": name, "hook_event": event})
}

fn response(name: &str, event: &str, stdout: &str, stderr: &str, exit_code: i32) -> Value {
    json!({"type": "system", "subtype": "hook_response", "hook_name": name, "hook_event": event,
           "output": format!("{stdout}{stderr}"), "stdout": stdout, "stderr": stderr,
           "exit_code": exit_code, "outcome": if exit_code == 0 { "success" } else { "error" }})
}

/// The records that are not hook records.
fn without_hooks(records: &[Value]) -> Vec<String> {
    kinds(records)
        .into_iter()
        .filter(|k| !k.starts_with("system/hook_"))
        .collect()
}

/// The records of `tack -p` (stream-json) with [`hook_settings`] and `extra`
/// flags, around one Bash call the model makes.
async fn bash_session(extra: &[&str]) -> Vec<Value> {
    let env = Env::new(Script::new([
        Reply::tool_use("toolu_b1", "Bash", json!({"command": "echo hi"})),
        Reply::text("Done."),
    ]))
    .await;
    let out = env
        .tack()
        .args(["-p", "run it", "--output-format", "stream-json"])
        .args(["--verbose", "--allowedTools", "Bash"])
        .args(["--settings", &hook_settings()])
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    lines(&out.stdout)
}

#[tokio::test(flavor = "multi_thread")]
async fn include_hook_events_reports_every_hook_run() {
    let records = bash_session(&["--include-hook-events"]).await;
    assert_eq!(
        hook_records(&records),
        [
            started("SessionStart:startup", "SessionStart"),
            response("SessionStart:startup", "SessionStart", "started\n", "", 0),
            started("UserPromptSubmit", "UserPromptSubmit"),
            response("UserPromptSubmit", "UserPromptSubmit", "", "", 0),
            started("PreToolUse:Bash", "PreToolUse"),
            response("PreToolUse:Bash", "PreToolUse", "", "pre\n", 0),
            started("PostToolUse:Bash", "PostToolUse"),
            response("PostToolUse:Bash", "PostToolUse", "", "", 3),
            started("Stop", "Stop"),
            response("Stop", "Stop", "", "", 0),
        ]
    );
    assert_eq!(
        without_hooks(&records),
        [
            "system/init",
            "assistant",
            "user",
            "assistant",
            "result/success"
        ]
    );
    // SessionStart's and UserPromptSubmit's come before `system/init`, Stop's
    // before the result. (Hook records go out as the hooks run, so a hook of
    // the loop may come before the record of the message it follows.)
    let all = kinds(&records);
    assert_eq!(
        all[..5].join(" "),
        "system/hook_started system/hook_response system/hook_started system/hook_response system/init"
    );
    assert_eq!(
        all[all.len() - 2..],
        ["system/hook_response", "result/success"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn without_the_flag_only_session_start_is_reported() {
    let records = bash_session(&[]).await;
    assert_eq!(
        kinds(&records),
        [
            "system/hook_started",
            "system/hook_response",
            "system/init",
            "assistant",
            "user",
            "assistant",
            "result/success"
        ]
    );
    assert_eq!(
        hook_records(&records),
        [
            started("SessionStart:startup", "SessionStart"),
            response("SessionStart:startup", "SessionStart", "started\n", "", 0),
        ]
    );
    // Text output shows none of it.
    let env = Env::new(Script::new([Reply::text("Plain.")])).await;
    let out = env
        .tack()
        .args(["-p", "hi", "--settings", &hook_settings()])
        .output()
        .unwrap();
    assert_eq!(common::stdout(&out), "Plain.\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn include_hook_events_needs_stream_json_output() {
    let env = Env::new(Script::new([])).await;
    let out = env
        .tack()
        .args(["-p", "hi", "--include-hook-events"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(
        common::stderr(&out).trim_end(),
        "Error: --include-hook-events requires --output-format=stream-json"
    );
    assert!(env.request_bodies().is_empty());
}

/// SessionStart and SessionEnd hooks append their input to `hooks.jsonl`.
fn logging_hooks() -> String {
    let log = json!([{"hooks": [{"type": "command", "command": "cat >> hooks.jsonl; echo >> hooks.jsonl"}]}]);
    json!({"hooks": {"SessionStart": log, "SessionEnd": log}}).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn clear_starts_a_new_conversation_under_a_new_session_id() {
    let env = Env::new(Script::new([
        Reply::text("First answer."),
        Reply::text("Second answer."),
    ]))
    .await;
    let user = |text: &str, uuid: &str| {
        json!({"type": "user", "message": {"role": "user", "content": text}, "uuid": uuid})
            .to_string()
    };
    let input = [
        user("remember FIRST-TOPIC", "m1"),
        user("/clear", "m2"),
        user("what was the topic?", "m3"),
    ]
    .join("\n");
    let out = env
        .tack()
        .args(common::STREAM_JSON)
        .args(["--settings", &logging_hooks()])
        .write_stdin(input + "\n")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let records = lines(&out.stdout);
    assert_eq!(
        without_hooks(&records),
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
    let records: Vec<&Value> = records
        .iter()
        .filter(|r| !kinds(&[(*r).clone()])[0].starts_with("system/hook_"))
        .collect();
    let old = records[0]["session_id"].as_str().unwrap().to_owned();
    let reset = records[3].clone();
    let new = reset["new_conversation_id"].as_str().unwrap().to_owned();
    assert_ne!(old, new);
    let mut shown = reset.clone();
    for key in ["uuid", "timestamp", "new_conversation_id"] {
        shown.as_object_mut().unwrap().remove(key);
    }
    assert_eq!(
        shown,
        json!({"type": "conversation_reset", "session_id": old, "trigger": "clear",
               "user_message_uuid": "m2"})
    );
    // The /clear message's result, and everything after, is the new session's.
    let clear_result = records[4];
    assert_eq!(
        [
            &clear_result["session_id"],
            &clear_result["result"],
            &clear_result["num_turns"],
            &clear_result["user_message_uuid"],
            &clear_result["terminal_reason"],
            &clear_result["total_cost_usd"],
        ],
        [
            &json!(new),
            &json!(""),
            &json!(0),
            &json!("m2"),
            &json!("completed"),
            &json!(0.0)
        ]
    );
    // The totals start again (Claude Code's results after a reset).
    assert!(records[2]["total_cost_usd"].as_f64().unwrap() > 0.0);
    assert_eq!(records[5]["session_id"], json!(new));
    assert_eq!(records[6]["session_id"], json!(new));
    assert_eq!(records[1]["session_id"], json!(old));

    // The second request knows nothing of the first conversation.
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 2);
    // (One user message: the user context reminder, then the prompt.)
    let messages = bodies[1]["messages"].as_array().unwrap();
    let blocks = messages[0]["content"].as_array().unwrap();
    assert_eq!(
        (messages.len(), &blocks[blocks.len() - 1]["text"]),
        (1, &json!("what was the topic?"))
    );
    let sent = bodies[1].to_string();
    assert!(!sent.contains("FIRST-TOPIC") && !sent.contains("First answer."));

    // Two transcripts: the old conversation's and the new one's.
    let transcripts = env.transcripts();
    assert_eq!(transcripts.len(), 2);
    let mut stems: Vec<String> = transcripts
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    stems.sort();
    let mut want = [new.clone(), old.clone()];
    want.sort();
    assert_eq!(stems, want);
    let newer = transcripts
        .iter()
        .find(|p| p.ends_with(format!("{new}.jsonl")));
    let newer = std::fs::read_to_string(newer.unwrap()).unwrap();
    assert!(newer.contains("what was the topic?") && !newer.contains("FIRST-TOPIC"));

    // Hooks: the old session ends (`clear`), the new one starts (`clear`).
    let log = std::fs::read_to_string(env.cwd().join("hooks.jsonl")).unwrap();
    let seen: Vec<Value> = log
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let what = v.get("source").or(v.get("reason")).cloned();
            json!([v["hook_event_name"], what, v["session_id"] == json!(new)])
        })
        .collect();
    assert_eq!(
        seen,
        [
            json!(["SessionStart", "startup", false]),
            json!(["SessionEnd", "clear", false]),
            json!(["SessionStart", "clear", true]),
            json!(["SessionEnd", "other", true]),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn clear_in_print_mode_is_a_result_with_no_request() {
    let env = Env::new(Script::new([])).await;
    let out = env
        .tack()
        .args([
            "-p",
            "/clear",
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let records = lines(&out.stdout);
    assert_eq!(
        kinds(&records),
        ["system/init", "conversation_reset", "result/success"]
    );
    assert_eq!(records[2]["session_id"], records[1]["new_conversation_id"]);
    assert!(env.request_bodies().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn init_and_initialize_report_the_output_style_setting() {
    let env = Env::new(Script::new([Reply::text("Hi.")])).await;
    let settings = json!({"outputStyle": "Explanatory"}).to_string();
    let input = concat!(
        r#"{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize"}}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":"hi"}}"#,
        "\n",
    );
    let out = env
        .tack()
        .args(common::STREAM_JSON)
        .args(["--settings", &settings])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let records = lines(&out.stdout);
    let answer = &records[0]["response"]["response"];
    assert_eq!(
        [
            &answer["output_style"],
            &answer["available_output_styles"],
            &records[1]["output_style"]
        ],
        [
            &json!("Explanatory"),
            &json!(["default", "Proactive", "Concise", "Explanatory", "Learning"]),
            &json!("Explanatory")
        ]
    );
    let commands: Vec<&Value> = answer["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["name"])
        .collect();
    assert_eq!(
        commands,
        [&json!("clear"), &json!("compact"), &json!("init")]
    );
    assert_eq!(
        records[1]["slash_commands"],
        json!(["clear", "compact", "init"])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn every_alias_of_clear_fires_the_same_hooks_in_print_and_sdk_mode() {
    let want: Vec<(String, String)> = [
        ("SessionStart", "startup"),
        ("SessionEnd", "clear"),
        ("SessionStart", "clear"),
        ("SessionEnd", "other"),
    ]
    .map(|(a, b)| (a.to_owned(), b.to_owned()))
    .to_vec();
    for alias in ["/clear", "/reset", "/new"] {
        for sdk in [false, true] {
            let env = Env::new(Script::new(Vec::<Reply>::new())).await;
            let mut tack = env.tack();
            tack.args(["--settings", &logging_hooks()]);
            let out = if sdk {
                let line = common::user_line(alias).to_string();
                tack.args(common::STREAM_JSON)
                    .write_stdin(line + "\n")
                    .output()
                    .unwrap()
            } else {
                tack.args(["-p", alias]).output().unwrap()
            };
            assert!(out.status.success(), "{alias}: {}", common::stderr(&out));
            assert_eq!(
                common::session_hooks(&env.cwd()),
                want,
                "{alias} (sdk: {sdk})"
            );
            assert_eq!(env.server.requests().len(), 0, "{alias}: no model call");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn init_in_print_mode_asks_for_a_claude_md() {
    let env = Env::new(Script::new([Reply::text("Wrote CLAUDE.md.")])).await;
    let out = env.tack().args(["-p", "/init"]).output().unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert_eq!(common::stdout(&out), "Wrote CLAUDE.md.\n");
    let bodies = env.request_bodies();
    let texts = common::last_texts(&bodies[0]);
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("Please look through this repository and write a CLAUDE.md")),
        "{texts:?}"
    );
    assert!(!texts.iter().any(|t| t.contains("/init")), "{texts:?}");
}
