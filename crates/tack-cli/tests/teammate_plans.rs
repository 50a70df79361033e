//! Plan approval: a teammate spawned with `mode: "plan"` plans in a mode of
//! its own (the lead's session is not in plan mode), and its ExitPlanMode
//! asks the lead, not a person: a `plan_approval_request` in the lead's
//! inbox, and the call returns at once (as Claude Code's does). The lead's
//! SendMessage `plan_approval_response` arrives later as a message: a
//! refusal keeps it planning with the lead's feedback; an approval ends its
//! plan mode, into the lead's own mode, when the message is read.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

use crate::common::{self, Env};
use crate::teams::{SESSION_A, fifo, finish, release, requests_of, tack_on, wait_for};

const TEAM: &str = "session-aaaaaaaa";

/// The protocol messages of `type` in the inbox at `path`, parsed.
pub(crate) fn protocol_messages(path: &std::path::Path, kind: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let inbox: Vec<Value> = serde_json::from_str(&text).unwrap_or_default();
    inbox
        .iter()
        .filter_map(|m| serde_json::from_str::<Value>(m["text"].as_str()?).ok())
        .filter(|v| v["type"] == kind)
        .collect()
}

/// `request` without its `timestamp` and `requestId` (checked apart).
pub(crate) fn steady(mut request: Value, id_suffix: &str) -> Value {
    let o = request.as_object_mut().unwrap();
    assert!(o.remove("timestamp").unwrap().is_string());
    let id = o.remove("requestId").unwrap();
    let id = id.as_str().unwrap();
    assert!(
        id.starts_with("plan_approval-") && id.ends_with(id_suffix),
        "{id}"
    );
    request
}

/// The answer the lead's model gives to request `id`.
pub(crate) fn answer(tool_use: &str, id: &str, approve: bool, feedback: Option<&str>) -> Value {
    let mut message =
        json!({"type": "plan_approval_response", "request_id": id, "approve": approve});
    if let Some(f) = feedback {
        message["feedback"] = json!(f);
    }
    json!({"to": "planner", "summary": format!("plan {tool_use}"), "message": message})
}

/// A `-p` lead run with `flags` whose Agent call makes the teammate
/// `planner` in plan mode, then waits on the fifo `wait-1`; the planner's
/// replies are `planner(write)`, `write(content)` its Write call's input.
struct Planning {
    env: Env,
    child: std::process::Child,
    wait_1: std::path::PathBuf,
    /// The file the planner writes.
    out: std::path::PathBuf,
}

async fn planning(
    flags: &[&str],
    planner: impl FnOnce(&dyn Fn(&str) -> Value) -> Vec<Reply>,
) -> Planning {
    let lead = vec![
        Reply::tool_use(
            "toolu_spawn",
            "Agent",
            json!({"description": "planner plans", "prompt": "PLANNER-MARK plan the change",
                   "subagent_type": "general-purpose", "name": "planner", "mode": "plan"}),
        ),
        Reply::tool_use("toolu_w1", "Bash", json!({"command": "cat wait-1"})),
    ];
    let env = Env::new(Script::routed([
        ("LEAD-MARK".to_string(), lead),
        ("PLANNER-MARK".to_string(), Vec::new()),
    ]))
    .await;
    let out = env.cwd().join("out.txt");
    let write = |content: &str| json!({"file_path": out, "content": content});
    env.server.set_route("PLANNER-MARK", planner(&write));
    let wait_1 = fifo(&env.cwd(), "wait-1");
    let child = tack_on(&env, &env.server, &[])
        .args(["-p", "LEAD-MARK run the team", "--session-id", SESSION_A])
        .args(["--allowedTools", "Bash(cat:*)"])
        .args(flags)
        .spawn()
        .unwrap();
    Planning {
        env,
        child,
        wait_1,
        out,
    }
}

/// The text of the first tool result `request` sends.
fn first_result(request: &Value) -> String {
    common::last_tool_results(request)[0].1.clone()
}

/// The planner's Write before approval was refused as plan mode refuses it.
fn refused_in_plan_mode(text: &str) {
    assert!(text.contains("not available in plan mode"), "{text}");
}

/// What the planner's ExitPlanMode answers: the plan is with the lead.
fn submitted(file: &str, id: &str) -> String {
    format!(
        "Your plan is with the team lead for approval (plan file: {file}).\n\nWhat comes next: the lead's answer arrives as a message. Approved, plan mode is over and you start the work; refused, you stay in plan mode: revise the plan as its feedback says and call ExitPlanMode again.\n\nDo not start the work before the approval arrives.\n\nRequest ID: {id}"
    )
}

/// The last message of `request` (a woken teammate's prompt), as JSON text.
fn last_message(request: &Value) -> String {
    let messages = request["messages"].as_array().unwrap();
    messages.last().unwrap().to_string()
}

/// The lead's answers: `yes` to the planner, then it waits on `fifo`.
fn approve_then_wait(yes: Value, fifo: &str) -> Vec<Reply> {
    vec![
        Reply::tool_use("toolu_yes", "SendMessage", yes),
        Reply::tool_use(
            "toolu_wy",
            "Bash",
            json!({"command": format!("cat {fifo}")}),
        ),
    ]
}

/// The lead's last answers: a shutdown_request to the planner, then "ok"s.
fn stop() -> Vec<Reply> {
    let mut rest = vec![Reply::tool_use(
        "toolu_bye",
        "SendMessage",
        json!({"to": "planner", "summary": "bye",
               "message": {"type": "shutdown_request", "reason": "done"}}),
    )];
    rest.extend((0..6).map(|_| Reply::text("ok")));
    rest
}

/// Once the planner wrote `done` to `out`, the lead stops it.
async fn stop_after_the_work(env: &Env, out: &std::path::Path, wait: &std::path::Path) {
    let done = || std::fs::read_to_string(out).is_ok_and(|t| t == "done");
    wait_for("the planner's work", done).await;
    env.server.set_route("LEAD-MARK", stop());
    release(wait);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_in_process_teammate_in_plan_mode_waits_for_the_leads_approval() {
    let Planning {
        env,
        child,
        wait_1,
        out,
    } = planning(&["--allowedTools", "Write"], |write| {
        vec![
            Reply::tool_use("toolu_early", "Write", write("too early")),
            Reply::tool_use("toolu_exit1", "ExitPlanMode", json!({"plan": "1. change"})),
            Reply::text("waiting for the lead"),
            Reply::tool_use(
                "toolu_exit2",
                "ExitPlanMode",
                json!({"plan": "1. change\n2. test"}),
            ),
            Reply::text("waiting again"),
            Reply::tool_use("toolu_work", "Write", write("done")),
            Reply::text("planner done"),
        ]
    })
    .await;
    let wait_2 = fifo(&env.cwd(), "wait-2");
    let wait_3 = fifo(&env.cwd(), "wait-3");
    let team = env.claude_dir().join("teams").join(TEAM);
    let lead_inbox = team.join("inboxes/team-lead.json");
    let requests = || protocol_messages(&lead_inbox, "plan_approval_request");

    wait_for("the first plan", || requests().len() == 1).await;
    let first = requests()[0].clone();
    let id = first["requestId"].as_str().unwrap().to_string();
    env.server.set_route(
        "LEAD-MARK",
        vec![
            Reply::tool_use(
                "toolu_no",
                "SendMessage",
                answer("no", &id, false, Some("add a test step")),
            ),
            Reply::tool_use("toolu_w2", "Bash", json!({"command": "cat wait-2"})),
        ],
    );
    release(&wait_1);
    wait_for("the second plan", || requests().len() == 2).await;
    let second = requests()[1].clone();
    let id2 = second["requestId"].as_str().unwrap().to_string();
    env.server.set_route(
        "LEAD-MARK",
        approve_then_wait(answer("yes", &id2, true, None), "wait-3"),
    );
    release(&wait_2);
    stop_after_the_work(&env, &out, &wait_3).await;
    finish(child);

    // Its requests, in Claude Code's shape, name its own plan file.
    let file = first["planFilePath"].as_str().unwrap().to_string();
    assert!(
        file.starts_with(&env.claude_dir().join("plans").display().to_string())
            && file.ends_with("-agent-planner.md"),
        "{file}"
    );
    let suffix = format!("@planner@{TEAM}");
    assert_eq!(
        [steady(first, &suffix), steady(second, &suffix)],
        [
            json!({"type": "plan_approval_request", "from": "planner", "planFilePath": file,
                   "planContent": "1. change"}),
            json!({"type": "plan_approval_request", "from": "planner", "planFilePath": file,
                   "planContent": "1. change\n2. test"}),
        ]
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "1. change\n2. test"
    );
    // The lead's answers, as Claude Code writes them: the approval carries
    // the lead's own mode (its model named none).
    let answers: Vec<Value> =
        protocol_messages(&team.join("inboxes/planner.json"), "plan_approval_response")
            .into_iter()
            .map(|mut a| {
                assert!(a.as_object_mut().unwrap().remove("timestamp").is_some());
                a
            })
            .collect();
    assert_eq!(
        answers,
        [
            json!({"type": "plan_approval_response", "requestId": id, "approved": false,
                   "feedback": "add a test step"}),
            json!({"type": "plan_approval_response", "requestId": id2, "approved": true,
                   "permissionMode": "default"}),
        ]
    );
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(team.join("config.json")).unwrap()).unwrap();
    assert_eq!(config["members"][1]["name"], "planner");
    assert_eq!(config["members"][1]["planModeRequired"], true);

    let planner = requests_of(&env, "PLANNER-MARK");
    assert_eq!(planner.len(), 7);
    assert!(
        planner[0]["messages"][0]
            .to_string()
            .contains("You are in plan mode"),
        "{}",
        planner[0]["messages"][0]
    );
    let result = |i: usize| first_result(&planner[i]);
    // In plan mode of its own (the lead's Write rule does not apply).
    refused_in_plan_mode(&result(1));
    // Each ExitPlanMode returns at once; the answers wake it as messages.
    assert_eq!(result(2), submitted(&file, &id));
    let refusal = last_message(&planner[3]);
    assert!(
        refusal.contains("add a test step") && refusal.contains(&id),
        "{refusal}"
    );
    assert_eq!(result(4), submitted(&file, &id2));
    let approval = last_message(&planner[5]);
    assert!(
        approval.contains(r#"\"approved\":true"#) && approval.contains(&id2),
        "{approval}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "done");
    // How long an approval takes to reach the planner's model.
    let after = |call: &str| {
        (env.server.requests().into_iter())
            .find(|r| {
                common::last_tool_results(&r.body)
                    .iter()
                    .any(|(i, _)| i == call)
            })
            .map(|r| r.received_at)
            .unwrap()
    };
    let woken = (env.server.requests().into_iter())
        .find(|r| last_message(&r.body).contains(r#"\"approved\":true"#))
        .map(|r| r.received_at)
        .unwrap();
    let took = woken.duration_since(after("toolu_w2")).unwrap_or_default();
    println!(
        "plan approval: the lead's request answered with the approval -> the planner's next request {:.1} ms",
        took.as_secs_f64() * 1e3
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_teammate_process_in_plan_mode_waits_for_the_leads_approval() {
    let Planning {
        env,
        child,
        wait_1,
        out,
    } = planning(
        &[
            "--teammate-mode",
            "tmux",
            "--permission-mode",
            "acceptEdits",
        ],
        |write| {
            vec![
                Reply::tool_use("toolu_early", "Write", write("too early")),
                Reply::tool_use("toolu_exit", "ExitPlanMode", json!({"plan": "1. change"})),
                Reply::text("waiting for the lead"),
                Reply::tool_use("toolu_work", "Write", write("done")),
                Reply::text("planner done"),
            ]
        },
    )
    .await;
    let wait_2 = fifo(&env.cwd(), "wait-2");
    let team = env.claude_dir().join("teams").join(TEAM);
    let lead_inbox = team.join("inboxes/team-lead.json");
    let requests = || protocol_messages(&lead_inbox, "plan_approval_request");
    wait_for("the plan", || requests().len() == 1).await;
    let request = requests()[0].clone();
    let id = request["requestId"].as_str().unwrap().to_string();
    env.server.set_route(
        "LEAD-MARK",
        approve_then_wait(answer("yes", &id, true, None), "wait-2"),
    );
    release(&wait_1);
    stop_after_the_work(&env, &out, &wait_2).await;
    finish(child);

    let file = request["planFilePath"].as_str().unwrap().to_string();
    assert_eq!(
        steady(request, &format!("@planner@{TEAM}")),
        json!({"type": "plan_approval_request", "from": "planner", "planFilePath": file,
               "planContent": "1. change"})
    );
    // The lead's SendMessage named no mode: its own (acceptEdits) went.
    let answers = protocol_messages(&team.join("inboxes/planner.json"), "plan_approval_response");
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0]["permissionMode"], "acceptEdits");
    let planner = requests_of(&env, "PLANNER-MARK");
    assert_eq!(planner.len(), 5);
    let result = |i: usize| first_result(&planner[i]);
    refused_in_plan_mode(&result(1));
    assert_eq!(result(2), submitted(&file, &id));
    // Approved into acceptEdits: its Write runs without asking the lead.
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "done");
}
