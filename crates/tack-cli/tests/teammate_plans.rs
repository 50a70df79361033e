//! Plan approval: a teammate spawned with `mode: "plan"` plans in a mode of
//! its own (the lead's session is not in plan mode), and its ExitPlanMode
//! asks the lead, not a person: a `plan_approval_request` in the lead's
//! inbox, answered by the lead's SendMessage `plan_approval_response`. A
//! refusal keeps it planning with the lead's feedback as the tool's result;
//! an approval ends its plan mode.

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

/// What the planner's ExitPlanMode answers once `plan` is approved.
fn approved(file: &str, plan: &str) -> String {
    format!(
        "The team lead approved your plan: plan mode is over, start the work now.\n\nThe plan is saved in {file}; refer to it as you go.\n\n## Approved plan:\n{plan}"
    )
}

/// The lead's last answers: `yes` to the planner, then a shutdown_request.
fn approve_and_stop(yes: Value) -> Vec<Reply> {
    let reply: Reply = Reply::message()
        .tool_use("toolu_yes", "SendMessage", yes)
        .tool_use(
            "toolu_bye",
            "SendMessage",
            json!({"to": "planner", "summary": "bye",
                   "message": {"type": "shutdown_request", "reason": "done"}}),
        )
        .into();
    let mut rest = vec![reply];
    rest.extend((0..6).map(|_| Reply::text("ok")));
    rest
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
            Reply::tool_use(
                "toolu_exit2",
                "ExitPlanMode",
                json!({"plan": "1. change\n2. test"}),
            ),
            Reply::tool_use("toolu_work", "Write", write("done")),
            Reply::text("planner done"),
        ]
    })
    .await;
    let wait_2 = fifo(&env.cwd(), "wait-2");
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
        approve_and_stop(answer("yes", &id2, true, None)),
    );
    release(&wait_2);
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
    // The lead's answers, as Claude Code writes them.
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
            json!({"type": "plan_approval_response", "requestId": id2, "approved": true}),
        ]
    );
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(team.join("config.json")).unwrap()).unwrap();
    assert_eq!(config["members"][1]["name"], "planner");
    assert_eq!(config["members"][1]["planModeRequired"], true);

    let planner = requests_of(&env, "PLANNER-MARK");
    assert_eq!(planner.len(), 5);
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
    assert_eq!(
        result(2),
        format!(
            "The team lead did not approve your plan: you are still in plan mode. Revise the plan in {file} as the feedback says, then call ExitPlanMode again.\n\nThe team lead's feedback:\nadd a test step"
        )
    );
    assert_eq!(result(3), approved(&file, "1. change\n2. test"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "done");
    // How long an approval takes to reach the planner's model.
    let at = |call: &str| {
        let after = |b: &Value| {
            common::last_tool_results(b)
                .iter()
                .any(|(id, _)| id == call)
        };
        (env.server.requests().into_iter())
            .find(|r| after(&r.body))
            .map(|r| r.received_at)
            .unwrap()
    };
    let took = at("toolu_exit2")
        .duration_since(at("toolu_w2"))
        .unwrap_or_default();
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
    } = planning(&["--teammate-mode", "tmux"], |write| {
        vec![
            Reply::tool_use("toolu_early", "Write", write("too early")),
            Reply::tool_use("toolu_exit", "ExitPlanMode", json!({"plan": "1. change"})),
            Reply::tool_use("toolu_work", "Write", write("done")),
            Reply::text("planner done"),
        ]
    })
    .await;
    let team = env.claude_dir().join("teams").join(TEAM);
    let lead_inbox = team.join("inboxes/team-lead.json");
    let requests = || protocol_messages(&lead_inbox, "plan_approval_request");
    wait_for("the plan", || requests().len() == 1).await;
    let request = requests()[0].clone();
    let id = request["requestId"].as_str().unwrap().to_string();
    let mut yes = answer("yes", &id, true, None);
    yes["message"]["permission_mode"] = json!("acceptEdits");
    env.server.set_route("LEAD-MARK", approve_and_stop(yes));
    release(&wait_1);
    finish(child);

    let file = request["planFilePath"].as_str().unwrap().to_string();
    assert_eq!(
        steady(request, &format!("@planner@{TEAM}")),
        json!({"type": "plan_approval_request", "from": "planner", "planFilePath": file,
               "planContent": "1. change"})
    );
    let planner = requests_of(&env, "PLANNER-MARK");
    assert_eq!(planner.len(), 4);
    let result = |i: usize| first_result(&planner[i]);
    refused_in_plan_mode(&result(1));
    assert_eq!(result(2), approved(&file, "1. change"));
    // Approved into acceptEdits: its Write runs without asking the lead.
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "done");
}
