//! Plan mode as Claude Code runs it, end to end through an SDK host that
//! answers `can_use_tool`: the reminders each prompt carries (with the
//! session's plan file), the plan file as the one file plan mode writes,
//! ExitPlanMode asking for approval (a refusal keeps plan mode, an approval
//! with a `setMode` update leaves it for that mode and returns the plan),
//! EnterPlanMode, and neither offered where nobody can be asked.

use crate::common::{self, Env, last_tool_results};
use crate::sdk_protocol::{Sdk, initialize};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// The text blocks of a request's last message, joined.
fn last_texts(body: &Value) -> String {
    let last = body["messages"].as_array().unwrap().last().unwrap();
    last["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

fn tool(id: &str, name: &str, input: Value) -> Reply {
    Reply::message().tool_use(id, name, input).into()
}

async fn sdk(env: &Env, mode: &str) -> Sdk {
    let args = [
        "--permission-mode",
        mode,
        "--permission-prompt-tool",
        "stdio",
    ];
    let mut sdk = Sdk::start(env, &args, &[]);
    sdk.request("init", initialize(Value::Null)).await;
    sdk.response("init").await;
    sdk
}

/// The next `can_use_tool` request: its tool and id.
async fn asked(sdk: &mut Sdk) -> (String, String) {
    let (tool, id, _) = asked_with_input(sdk).await;
    (tool, id)
}

/// The next `can_use_tool` request: its tool, id and input.
async fn asked_with_input(sdk: &mut Sdk) -> (String, String, Value) {
    let r = sdk.tack_request().await;
    let tool = r["request"]["tool_name"].as_str().unwrap().to_owned();
    let id = r["request_id"].as_str().unwrap().to_owned();
    (tool, id, r["request"]["input"].clone())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plan_is_written_refused_revised_approved_and_plan_mode_is_left() {
    let env = Env::new(Script::new([Reply::text("Let me look first.")])).await;
    std::fs::create_dir_all(env.cwd().join("src")).unwrap();
    let mut sdk = sdk(&env, "plan").await;
    sdk.user("plan a change", json!({})).await;
    sdk.result().await;
    let first = last_texts(&env.request_bodies()[0]);
    let plans = env.home.path().join(".claude/plans");
    let file = first
        .split_whitespace()
        .find(|w| w.starts_with(plans.to_str().unwrap()))
        .map(|w| w.trim_end_matches([':', ',']))
        .unwrap_or_else(|| panic!("no plan file in {first}"))
        .to_owned();
    assert!(first.contains("Plan mode is on"), "{first}");
    assert!(first.contains("does not exist yet"), "{first}");

    for reply in [
        tool(
            "w1",
            "Write",
            json!({"file_path": file, "content": "# Plan\n1. add x\n"}),
        ),
        tool("x1", "ExitPlanMode", json!({})),
        tool(
            "e1",
            "Edit",
            json!({"file_path": file, "old_string": "1. add x\n", "new_string": "1. add x\n2. test x\n"}),
        ),
        tool(
            "s1",
            "Write",
            json!({"file_path": "src/x.rs", "content": "fn x() {}\n"}),
        ),
        tool("x2", "ExitPlanMode", json!({})),
        Reply::text("Starting."),
        Reply::text("Done."),
    ] {
        env.server.push(reply);
    }
    sdk.user("go on", json!({})).await;
    // Writing the plan asks nobody; ExitPlanMode asks, and is refused.
    let (tool_name, id) = asked(&mut sdk).await;
    assert_eq!(tool_name, "ExitPlanMode");
    sdk.answer(
        &id,
        json!({"behavior": "deny", "message": "add a test step"}),
    )
    .await;
    // The plan is edited (asks nobody); a source file is refused in plan
    // mode; the second ExitPlanMode is approved into acceptEdits.
    // The host is shown the plan and its file, as Claude Code's hosts are.
    let (tool_name, id, input) = asked_with_input(&mut sdk).await;
    assert_eq!(tool_name, "ExitPlanMode");
    assert_eq!(
        input,
        json!({"plan": "# Plan\n1. add x\n2. test x\n", "planFilePath": file})
    );
    let accept = json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"});
    let allow = json!({"behavior": "allow", "updatedInput": {}, "updatedPermissions": [accept]});
    sdk.answer(&id, allow).await;
    assert_eq!(sdk.result().await["result"], json!("Starting."));
    sdk.user("next", json!({})).await;
    assert_eq!(sdk.result().await["result"], json!("Done."));
    let (code, _, stderr) = sdk.finish().await;
    assert_eq!(code, Some(0), "{stderr}");

    let plan = "# Plan\n1. add x\n2. test x\n";
    assert_eq!(std::fs::read_to_string(&file).unwrap(), plan);
    assert!(!env.cwd().join("src/x.rs").exists());
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 8);
    let second = last_texts(&bodies[1]);
    assert!(second.contains("Plan mode is still on"), "{second}");
    let results: Vec<(String, String)> = (2..=6)
        .flat_map(|i| last_tool_results(&bodies[i]))
        .collect();
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["w1", "x1", "e1", "s1", "x2"]);
    assert!(results[1].1.contains("add a test step"), "{results:#?}");
    assert!(
        results[3].1.contains("not available in plan mode"),
        "{results:#?}"
    );
    assert_eq!(
        results[4].1,
        format!(
            "The user approved your plan: start the work now (update your todo list first if you keep one).\n\nThe plan is saved in {file}; refer to it as you go.\n\n## Approved plan:\n{plan}"
        )
    );
    let last = last_texts(&bodies[7]);
    assert!(last.contains("Plan mode is over"), "{last}");
    assert!(!last.contains("Plan mode is on"), "{last}");
}

/// EnterPlanMode asks; approved, the session plans (a source file is
/// refused) and the next prompt carries the full reminder.
#[tokio::test(flavor = "multi_thread")]
async fn enter_plan_mode_asks_and_then_the_session_plans() {
    let env = Env::new(Script::new([
        tool("p1", "EnterPlanMode", json!({})),
        tool(
            "s1",
            "Write",
            json!({"file_path": "src.rs", "content": "x"}),
        ),
        Reply::text("Planning."),
        Reply::text("Still planning."),
    ]))
    .await;
    let mut sdk = sdk(&env, "default").await;
    sdk.user("a big change", json!({})).await;
    let (tool_name, id) = asked(&mut sdk).await;
    assert_eq!(tool_name, "EnterPlanMode");
    sdk.answer(&id, json!({"behavior": "allow", "updatedInput": {}}))
        .await;
    assert_eq!(sdk.result().await["result"], json!("Planning."));
    sdk.user("go on", json!({})).await;
    assert_eq!(sdk.result().await["result"], json!("Still planning."));
    let (code, _, stderr) = sdk.finish().await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!env.cwd().join("src.rs").exists());
    let bodies = env.request_bodies();
    let results: Vec<(String, String)> = (1..=2)
        .flat_map(|i| last_tool_results(&bodies[i]))
        .collect();
    assert!(results[0].1.starts_with("Plan mode is on."), "{results:#?}");
    assert!(
        results[1].1.contains("not available in plan mode"),
        "{results:#?}"
    );
    let next = last_texts(&bodies[3]);
    assert!(
        next.contains("Plan mode is on: the user wants a plan"),
        "{next}"
    );
}

/// Where nobody can approve (`-p` without a prompt tool) neither tool is
/// offered; an SDK host that answers `can_use_tool` gets both.
#[tokio::test(flavor = "multi_thread")]
async fn the_plan_mode_tools_are_offered_only_where_someone_can_approve() {
    let env = Env::new(Script::new([Reply::text("a"), Reply::text("b")]).looping()).await;
    let tools = |args: &[&str]| -> Vec<String> {
        let out = env
            .tack()
            .args(["-p", "hi", "--output-format", "stream-json", "--verbose"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", common::stderr(&out));
        let init = common::lines(&out.stdout).into_iter().next().unwrap();
        init["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| t.ends_with("PlanMode"))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(tools(&[]), Vec::<String>::new());
    let mut sdk = sdk(&env, "default").await;
    sdk.user("hi", json!({})).await;
    let init = sdk.until(|l| l["subtype"] == "init").await.pop().unwrap();
    let offered: Vec<&str> = init["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|t| t.ends_with("PlanMode"))
        .collect();
    assert_eq!(offered, ["ExitPlanMode", "EnterPlanMode"]);
    drop(sdk);
}

/// A host's answer cannot switch a session to bypassPermissions that was not
/// started allowing it (`set_permission_mode` refuses the same): the next
/// Write is still asked about. Another mode from an answer still applies.
#[tokio::test(flavor = "multi_thread")]
async fn an_answer_cannot_switch_an_unconsenting_session_to_bypass() {
    let env = Env::new(Script::new([Reply::text("Ready.")])).await;
    let path = |name: &str| env.cwd().join(name).to_str().unwrap().to_owned();
    for (id, name) in [("w1", "a.txt"), ("w2", "b.txt"), ("w3", "c.txt")] {
        let input = json!({"file_path": path(name), "content": &name[..1]});
        env.server.push(tool(id, "Write", input));
    }
    env.server.push(Reply::text("Written."));
    let mut sdk = sdk(&env, "default").await;
    sdk.user("hello", json!({})).await;
    assert_eq!(sdk.result().await["result"], json!("Ready."));
    sdk.user("write three files", json!({})).await;
    let set_mode = |input: Value, mode: &str| {
        json!({"behavior": "allow", "updatedInput": input, "updatedPermissions": [
            {"type": "setMode", "mode": mode, "destination": "session"}]})
    };
    let (tool_name, id, input) = asked_with_input(&mut sdk).await;
    assert_eq!(tool_name, "Write");
    sdk.answer(&id, set_mode(input, "bypassPermissions")).await;
    // Still asked: the switch was ignored.
    let (tool_name, id, input) = asked_with_input(&mut sdk).await;
    assert_eq!(tool_name, "Write");
    sdk.answer(&id, set_mode(input, "acceptEdits")).await;
    // acceptEdits applies: the third Write is not asked about.
    assert_eq!(sdk.result().await["result"], json!("Written."));
    let (code, _, stderr) = sdk.finish().await;
    assert_eq!(code, Some(0), "{stderr}");
    for (name, text) in [("a.txt", "a"), ("b.txt", "b"), ("c.txt", "c")] {
        assert_eq!(std::fs::read_to_string(env.cwd().join(name)).unwrap(), text);
    }
}
