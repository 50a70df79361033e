//! `tack acp` driven as an editor drives an ACP agent (the client of
//! `acp_client.rs`): initialize, a new session in a git repository, a prompt
//! that streams text, asks permission for an Edit (allowed)
//! and for Bash, with tool-call updates and the file changed on disk; a slow
//! answer cancelled within 100 ms; `session/load` of a session `tack -p`
//! made; modes; a Read through the editor's `fs/read_text_file`.

use std::process::Command;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

use crate::acp_client::{
    AcpClient, Heard, allow, calls, cancel_slow_prompt, edit_then_bash, init_params, said,
    slow_answer,
};
use crate::common::{Env, git_repo_with};

/// `tack acp` in `env`.
pub fn tack_acp(env: &Env) -> AcpClient {
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("tack"));
    command
        .env_clear()
        .envs(env.vars())
        .current_dir(env.cwd())
        .arg("acp");
    AcpClient::spawn(command)
}

pub fn initialize(client: &mut AcpClient) -> Value {
    client.call("initialize", init_params(false, false)).0
}

/// Opens a session (`session/new` or `session/load`): the answer, the
/// updates before it, and the commands the session then lists.
pub fn open(client: &mut AcpClient, method: &str, params: Value) -> (Value, Vec<Value>, Value) {
    let (result, heard) = client.call(method, params);
    let listed = client.read_until(&mut Heard::default(), allow, |m| {
        m["params"]["update"]["sessionUpdate"] == "available_commands_update"
    });
    let commands = listed["params"]["update"]["availableCommands"].clone();
    (result, heard.updates, commands)
}

pub fn new_session(client: &mut AcpClient, env: &Env) -> String {
    let params = json!({"cwd": env.cwd(), "mcpServers": []});
    let (result, _, _) = open(client, "session/new", params);
    result["sessionId"].as_str().unwrap().to_owned()
}

pub fn prompt(text: &str, session: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_says_what_tack_offers() {
    let env = Env::new(Script::new([])).await;
    let mut client = tack_acp(&env);
    assert_eq!(
        initialize(&mut client),
        json!({
            "protocolVersion": 1,
            "agentCapabilities": {
                "loadSession": true,
                "promptCapabilities": {"image": true, "audio": false, "embeddedContext": true},
                "mcpCapabilities": {"http": true, "sse": true},
                // The schema's type says these too (the crate serializes them).
                "sessionCapabilities": {"fork": {}, "list": {}, "resume": {}, "close": {}},
                "auth": {},
                // As the adapter says: prompts sent during a turn are queued.
                "_meta": {"claudeCode": {"promptQueueing": true}},
            },
            "agentInfo": {"name": "tack", "title": "tack", "version": env!("CARGO_PKG_VERSION")},
            "authMethods": [],
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_editor_prompts_an_edit_allows_it_and_runs_bash() {
    let env = Env::new(Script::new([])).await;
    git_repo_with(&env.cwd(), "a.txt", "hello\n");
    for reply in edit_then_bash(&env.cwd()) {
        env.server.push(reply);
    }
    let mut client = tack_acp(&env);
    initialize(&mut client);
    let params = json!({"cwd": env.cwd(), "mcpServers": []});
    let (opened, _, commands) = open(&mut client, "session/new", params);
    let session = opened["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(opened["modes"]["currentModeId"], "default");
    let names: Vec<&str> = commands
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"compact") && names.contains(&"init"),
        "{names:?}"
    );

    let (answer, heard) = client.call("session/prompt", prompt("change hello to bye", &session));
    assert_eq!(answer, json!({"stopReason": "end_turn"}));
    assert_eq!(
        said(&heard.updates, "agent_message_chunk"),
        "Editing it.Done."
    );
    let file = env.cwd().join("a.txt").display().to_string();
    // The schema's types leave out what is the default: `status: "pending"`,
    // empty `locations` and `content`. The turn's usage is checked below.
    let updates: Vec<Value> = calls(&heard.updates, &["rawOutput"])
        .into_iter()
        .filter(|u| u["sessionUpdate"] != "usage_update")
        .collect();
    assert_eq!(
        updates,
        vec![
            json!({"sessionUpdate": "tool_call", "toolCallId": "toolu_edit",
                   "title": "Edit a.txt", "kind": "edit", "locations": [{"path": file}],
                   "content": [{"type": "diff", "path": file, "oldText": "hello", "newText": "bye"}],
                   "rawInput": {"file_path": file, "old_string": "hello", "new_string": "bye"},
                   "_meta": {"claudeCode": {"toolName": "Edit"}}}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "toolu_edit", "status": "completed",
                   "_meta": {"claudeCode": {"toolName": "Edit"}}}),
            json!({"sessionUpdate": "tool_call", "toolCallId": "toolu_bash",
                   "title": "touch made.txt", "kind": "execute",
                   "content": [{"type": "content", "content": {"type": "text", "text": "Make a file"}}],
                   "rawInput": {"command": "touch made.txt", "description": "Make a file"},
                   "_meta": {"claudeCode": {"toolName": "Bash"}}}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "toolu_bash", "status": "completed",
                   "content": [{"type": "content", "content": {"type": "text", "text": "(no output)"}}],
                   "_meta": {"claudeCode": {"toolName": "Bash"}}}),
        ]
    );
    let asked: Vec<Value> = heard
        .requests
        .iter()
        .map(|r| {
            json!([
                r["method"],
                r["params"]["toolCall"]["toolCallId"],
                r["params"]["options"]
            ])
        })
        .collect();
    let options = json!([
        {"kind": "allow_always", "name": "Always Allow", "optionId": "allow_always"},
        {"kind": "allow_once", "name": "Allow", "optionId": "allow"},
        {"kind": "reject_once", "name": "Reject", "optionId": "reject"},
    ]);
    assert_eq!(
        asked,
        vec![
            json!(["session/request_permission", "toolu_edit", options]),
            json!(["session/request_permission", "toolu_bash", options]),
        ]
    );
    assert_eq!(
        std::fs::read_to_string(env.cwd().join("a.txt")).unwrap(),
        "bye\n"
    );
    assert!(env.cwd().join("made.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_answer_is_cancelled_within_100_ms() {
    let env = Env::new(Script::new([slow_answer(), Reply::text("after")])).await;
    let mut client = tack_acp(&env);
    initialize(&mut client);
    let session = new_session(&mut client, &env);
    let (answer, took) = cancel_slow_prompt(&mut client, &session);
    assert_eq!(answer["result"], json!({"stopReason": "cancelled"}));
    assert!(took < Duration::from_millis(100), "cancel took {took:?}");
    // The session goes on.
    let (answer, heard) = client.call("session/prompt", prompt("again", &session));
    assert_eq!(answer, json!({"stopReason": "end_turn"}));
    assert_eq!(said(&heard.updates, "agent_message_chunk"), "after");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_made_by_tack_p_continues_in_the_editor() {
    let env = Env::new(Script::new([
        Reply::text("first answer"),
        Reply::text("second answer"),
    ]))
    .await;
    let id = &made_by_tack_p(&env, "first question");
    let mut client = tack_acp(&env);
    initialize(&mut client);
    let params = json!({"sessionId": id, "cwd": env.cwd(), "mcpServers": []});
    let (loaded, replayed, _) = open(&mut client, "session/load", params);
    let mut keys: Vec<&String> = loaded.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["configOptions", "modes"]);
    assert_eq!(loaded["modes"]["currentModeId"], "default");
    assert_eq!(
        replayed,
        vec![
            json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "first question"}}),
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "first answer"}}),
        ]
    );
    let (answer, _) = client.call("session/prompt", prompt("second question", id));
    assert_eq!(answer, json!({"stopReason": "end_turn"}));
    assert_eq!(
        texts(env.request_bodies().last().unwrap()),
        pairs(&[
            ("user", "first question"),
            ("assistant", "first answer"),
            ("user", "second question")
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modes_are_tacks_and_a_change_is_announced() {
    let env = Env::new(Script::new([])).await;
    let mut client = tack_acp(&env);
    initialize(&mut client);
    let session = new_session(&mut client, &env);
    let (answer, heard) = client.call(
        "session/set_mode",
        json!({"sessionId": session, "modeId": "acceptEdits"}),
    );
    assert_eq!(answer, json!({}));
    let kinds: Vec<&Value> = heard.updates.iter().map(|u| &u["sessionUpdate"]).collect();
    assert_eq!(kinds, ["current_mode_update", "config_option_update"]);
    assert_eq!(
        heard.updates[0],
        json!({"sessionUpdate": "current_mode_update", "currentModeId": "acceptEdits"})
    );
    // The config options follow, as the adapter's do.
    assert_eq!(
        heard.updates[1]["configOptions"][0]["currentValue"],
        "acceptEdits"
    );
    let id = client.request(
        "session/set_mode",
        json!({"sessionId": session, "modeId": "sideways"}),
    );
    let answer = client.answer_to(id, &mut Heard::default(), allow);
    assert_eq!(answer["error"]["code"], -32602);
}

/// `tack acp` start → `initialize` answered, median of 15 runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_to_initialize_answered() {
    let env = Env::new(Script::new([])).await;
    let mut took: Vec<Duration> = (0..15)
        .map(|_| {
            let started = Instant::now();
            let mut client = tack_acp(&env);
            initialize(&mut client);
            started.elapsed()
        })
        .collect();
    took.sort();
    println!(
        "tack acp: start -> initialize answered, median of 15: {:?}",
        took[7]
    );
    assert!(took[7] < Duration::from_secs(2), "{took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_shows_the_editors_unsaved_buffer() {
    let env = Env::new(Script::new([])).await;
    std::fs::write(env.cwd().join("a.txt"), "on disk\n").unwrap();
    let file = env.cwd().join("a.txt").display().to_string();
    env.server.push(Reply::tool_use(
        "toolu_read",
        "Read",
        json!({"file_path": file}),
    ));
    env.server.push(Reply::text("Read it."));
    let mut client = tack_acp(&env);
    client.call("initialize", init_params(true, false));
    let session = new_session(&mut client, &env);
    let id = client.request("session/prompt", prompt("read a.txt", &session));
    let mut heard = Heard::default();
    let answer = client.answer_to(id, &mut heard, |method, _| match method {
        "fs/read_text_file" => json!({"content": "unsaved\nbuffer\n"}),
        other => allow(other, &Value::Null),
    });
    assert_eq!(answer["result"], json!({"stopReason": "end_turn"}));
    assert_eq!(
        heard.requests,
        vec![
            json!({"method": "fs/read_text_file", "params": {"sessionId": session, "path": file}})
        ]
    );
    let bodies = env.request_bodies();
    assert_eq!(
        crate::common::last_tool_results(bodies.last().unwrap()),
        [(
            "toolu_read".to_owned(),
            "1\tunsaved\n2\tbuffer\n".to_owned()
        )]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_goes_through_the_editor_when_it_takes_writes() {
    let env = Env::new(Script::new([])).await;
    git_repo_with(&env.cwd(), "a.txt", "hello\n");
    let file = env.cwd().join("a.txt").display().to_string();
    for reply in edit_then_bash(&env.cwd()) {
        env.server.push(reply);
    }
    let mut client = tack_acp(&env);
    client.call("initialize", init_params(false, true));
    let session = new_session(&mut client, &env);
    let id = client.request("session/prompt", prompt("change hello to bye", &session));
    let mut heard = Heard::default();
    let answer = client.answer_to(id, &mut heard, |method, params| match method {
        // The editor shows the change in its buffer (and saves it later).
        "fs/write_text_file" => Value::Null,
        other => allow(other, params),
    });
    assert_eq!(answer["result"], json!({"stopReason": "end_turn"}));
    let asked: Vec<Value> = heard
        .requests
        .iter()
        .map(|r| match r["method"].as_str() {
            Some("fs/write_text_file") => r.clone(),
            _ => json!([r["method"], r["params"]["toolCall"]["toolCallId"]]),
        })
        .collect();
    assert_eq!(
        asked,
        vec![
            json!(["session/request_permission", "toolu_edit"]),
            json!({"method": "fs/write_text_file",
                   "params": {"sessionId": session, "path": file, "content": "bye\n"}}),
            json!(["session/request_permission", "toolu_bash"]),
        ]
    );
    // Written by the editor, not by tack.
    assert_eq!(
        std::fs::read_to_string(env.cwd().join("a.txt")).unwrap(),
        "hello\n"
    );
}

/// The texts of a request's messages, by role (system reminders left out).
pub fn texts(body: &Value) -> Vec<(String, String)> {
    let messages = body["messages"].as_array().unwrap();
    messages
        .iter()
        .flat_map(|m| {
            let role = m["role"].as_str().unwrap().to_owned();
            let blocks = m["content"].as_array().cloned().unwrap_or_default();
            blocks.into_iter().filter_map(move |b| {
                let text = b["text"].as_str()?;
                (!text.starts_with("<system-reminder>")).then(|| (role.clone(), text.to_owned()))
            })
        })
        .collect()
}

pub fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(r, t)| ((*r).to_owned(), (*t).to_owned()))
        .collect()
}

/// A session `tack -p` made in `env` (its answer scripted): its id.
pub fn made_by_tack_p(env: &Env, question: &str) -> String {
    made_by_tack_p_in(env, &env.cwd(), question)
}

/// A session `tack -p` made in folder `dir`: its id.
pub fn made_by_tack_p_in(env: &Env, dir: &std::path::Path, question: &str) -> String {
    let out = env
        .tack()
        .current_dir(dir)
        .args(["-p", question, "--output-format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let made: Value = serde_json::from_slice(&out.stdout).unwrap();
    made["session_id"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_listed_and_resumed_without_their_history() {
    let env = Env::new(Script::new([
        Reply::text("first answer"),
        Reply::text("second answer"),
    ]))
    .await;
    let id = made_by_tack_p(&env, "first question");
    let mut client = tack_acp(&env);
    initialize(&mut client);
    let (listed, _) = client.call("session/list", json!({"cwd": env.cwd()}));
    let sessions = listed["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1, "{listed}");
    let mut session = sessions[0].clone();
    let updated = session.as_object_mut().unwrap().remove("updatedAt");
    assert!(updated.is_some_and(|t| t.as_str().is_some_and(|t| t.ends_with('Z'))));
    assert_eq!(
        session,
        json!({"sessionId": id, "cwd": env.cwd(), "title": "first question"})
    );

    let params = json!({"sessionId": id, "cwd": env.cwd(), "mcpServers": []});
    let (resumed, replayed, _) = open(&mut client, "session/resume", params);
    assert_eq!(resumed["modes"]["currentModeId"], "default");
    assert_eq!(replayed, Vec::<Value>::new());
    let (answer, heard) = client.call("session/prompt", prompt("second question", &id));
    assert_eq!(answer, json!({"stopReason": "end_turn"}));
    assert_eq!(said(&heard.updates, "agent_message_chunk"), "second answer");
    let bodies = env.request_bodies();
    let messages = bodies.last().unwrap()["messages"].as_array().unwrap().len();
    assert_eq!(messages, 3, "the resumed conversation and the new prompt");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_turn_ends_with_its_usage_and_cost() {
    let env = Env::new(Script::new([Reply::text("hi")])).await;
    let mut client = tack_acp(&env);
    initialize(&mut client);
    let session = new_session(&mut client, &env);
    let (answer, heard) = client.call("session/prompt", prompt("hello", &session));
    assert_eq!(answer, json!({"stopReason": "end_turn"}));
    let mut usage: Vec<Value> = heard
        .updates
        .into_iter()
        .filter(|u| u["sessionUpdate"] == "usage_update")
        .collect();
    assert_eq!(usage.len(), 1, "{usage:?}");
    // The context used and the cost depend on the prompt's size (the
    // folder's path is in it): they are counted, and the cost is the turn's.
    let update = usage[0].as_object_mut().unwrap();
    let used = update.remove("used").and_then(|u| u.as_u64());
    assert!(used.is_some_and(|u| u > 0), "{update:?}");
    let cost = update["cost"]["amount"].take().as_f64();
    assert!(cost.is_some_and(|c| c > 0.0), "{update:?}");
    assert_eq!(
        usage[0],
        json!({"sessionUpdate": "usage_update", "size": 1_000_000,
               "cost": {"amount": null, "currency": "USD"}})
    );
}

/// ExitPlanMode is asked with the plan's own options, as the adapter offers
/// them: approved into a mode (which the editor hears), or kept planning.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_is_approved_into_the_mode_the_editor_picks() {
    let env = Env::new(Script::new([
        Reply::tool_use("toolu_plan", "ExitPlanMode", json!({})),
        Reply::text("Still planning."),
        Reply::tool_use("toolu_plan2", "ExitPlanMode", json!({})),
        Reply::text("Working."),
    ]))
    .await;
    let mut client = tack_acp(&env);
    initialize(&mut client);
    let session = new_session(&mut client, &env);
    let plan = json!({"sessionId": session, "modeId": "plan"});
    client.call("session/set_mode", plan);
    let mut turn = |pick: &'static str| {
        let id = client.request("session/prompt", prompt("plan it", &session));
        let mut heard = Heard::default();
        let answer = client.answer_to(id, &mut heard, |method, _| match method {
            "session/request_permission" => {
                json!({"outcome": {"outcome": "selected", "optionId": pick}})
            }
            _ => Value::Null,
        });
        assert_eq!(answer["result"], json!({"stopReason": "end_turn"}));
        heard
    };
    let kept = turn("plan");
    let approved = turn("acceptEdits");
    let options = json!([
        {"kind": "allow_always", "name": "Yes, and auto-accept edits", "optionId": "acceptEdits"},
        {"kind": "allow_once", "name": "Yes, and manually approve edits", "optionId": "default"},
        {"kind": "reject_once", "name": "No, keep planning", "optionId": "plan"},
    ]);
    for heard in [&kept, &approved] {
        assert_eq!(heard.requests.len(), 1);
        assert_eq!(heard.requests[0]["params"]["options"], options);
    }
    let modes = |heard: &Heard| -> Vec<Value> {
        (heard.updates.iter())
            .filter(|u| u["sessionUpdate"] == "current_mode_update")
            .cloned()
            .collect()
    };
    assert_eq!(modes(&kept), Vec::<Value>::new());
    // The approved call's end is retitled, as the adapter retitles it.
    let ended: Vec<(&Value, &Value)> = (approved.updates.iter())
        .filter(|u| u["sessionUpdate"] == "tool_call_update")
        .map(|u| (&u["status"], &u["title"]))
        .collect();
    assert_eq!(ended, [(&json!("completed"), &json!("Exited Plan Mode"))]);
    assert_eq!(
        modes(&approved),
        [json!({"sessionUpdate": "current_mode_update", "currentModeId": "acceptEdits"})]
    );
    let bodies = env.request_bodies();
    let results: Vec<(String, String)> = [&bodies[1], &bodies[3]]
        .into_iter()
        .flat_map(crate::common::last_tool_results)
        .collect();
    assert_eq!(
        results,
        [
            (
                "toolu_plan".to_owned(),
                "User refused permission to run tool".to_owned()
            ),
            (
                "toolu_plan2".to_owned(),
                "The user approved leaving plan mode: go on.".to_owned()
            ),
        ]
    );
}

/// The model entering plan mode is heard as a mode change, as the
/// adapter's hook tells it: the mode, then the config options.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn entering_plan_mode_is_heard_as_a_mode_change() {
    let env = Env::new(Script::new([
        Reply::tool_use("toolu_enter", "EnterPlanMode", json!({})),
        Reply::text("Planning."),
    ]))
    .await;
    let mut client = tack_acp(&env);
    initialize(&mut client);
    let session = new_session(&mut client, &env);
    let (answer, heard) = client.call("session/prompt", prompt("plan it", &session));
    assert_eq!(answer, json!({"stopReason": "end_turn"}));
    let modes: Vec<(&Value, &Value)> = (heard.updates.iter())
        .filter(|u| u["sessionUpdate"] != "usage_update")
        .filter(|u| {
            u["sessionUpdate"]
                .as_str()
                .is_some_and(|k| k.contains("mode") || k.contains("config"))
        })
        .map(|u| {
            (
                &u["sessionUpdate"],
                u.get("currentModeId")
                    .unwrap_or(&u["configOptions"][0]["currentValue"]),
            )
        })
        .collect();
    assert_eq!(
        modes,
        [
            (&json!("current_mode_update"), &json!("plan")),
            (&json!("config_option_update"), &json!("plan")),
        ]
    );
}

/// `session/close` cancels what runs (the prompt ends `cancelled`) and
/// ends the session: later requests about it find none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_session_is_cancelled_and_gone() {
    let env = Env::new(Script::new([slow_answer()])).await;
    let mut client = tack_acp(&env);
    initialize(&mut client);
    let session = new_session(&mut client, &env);
    let running = client.request("session/prompt", prompt("take your time", &session));
    client.read_until(&mut Heard::default(), allow, |m| {
        m["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    });
    let close = client.request("session/close", json!({"sessionId": session}));
    let mut answers = std::collections::BTreeMap::new();
    while answers.len() < 2 {
        let answer = client.read_until(&mut Heard::default(), allow, |m| {
            m.get("method").is_none() && [running, close].iter().any(|id| m["id"] == json!(id))
        });
        answers.insert(answer["id"].as_u64().unwrap(), answer["result"].clone());
    }
    assert_eq!(
        answers,
        [
            (running, json!({"stopReason": "cancelled"})),
            (close, json!({}))
        ]
        .into()
    );
    let gone = json!({"code": -32602, "message": format!("Session not found: {session}")});
    for (method, params) in [
        ("session/prompt", prompt("again", &session)),
        ("session/close", json!({"sessionId": session})),
    ] {
        let id = client.request(method, params);
        let answer = client.answer_to(id, &mut Heard::default(), allow);
        assert_eq!(answer["error"], gone, "{method}");
    }
}
