//! End-to-end: the models of Claude Code 2.1.328's table (issue 37) through
//! the real binary against the scripted server: the `model` each alias and
//! variable sends, the `max_tokens` asked, `total_cost_usd` for fixed token
//! counts, `contextWindow` and `maxOutputTokens`, the fallback after three
//! 529s, and `opusplan` switching with plan mode.

use crate::common;

use common::{Env, lines, stderr};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{MessageReply, Reply, Script};

/// `tack -p hi` with `args` and `vars`; the result record.
fn run(env: &Env, args: &[&str], vars: &[(&str, &str)]) -> Value {
    let out = env
        .tack()
        .args(["-p", "hi", "--output-format", "stream-json", "--verbose"])
        .args(args)
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?} {vars:?}: {}", stderr(&out));
    lines(&out.stdout).pop().unwrap()
}

/// The `model` of every request the server received, in order.
fn sent_models(env: &Env) -> Vec<Value> {
    env.request_bodies()
        .iter()
        .map(|b| b["model"].clone())
        .collect()
}

/// Flags, environment, the model the server should receive.
type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);

#[tokio::test(flavor = "multi_thread")]
async fn every_alias_and_variable_sends_the_model_of_the_table() {
    let env = Env::new(Script::new([Reply::text("ok")]).looping()).await;
    let plan = ["--permission-mode", "plan"];
    let cases: &[Case] = &[
        (&[], &[], "claude-opus-5-5"),
        (&["--model", "opus"], &[], "claude-opus-5-5"),
        (&["--model", "best"], &[], "claude-opus-5-5"),
        (&["--model", "default"], &[], "claude-opus-5-5"),
        (&["--model", "opus[1m]"], &[], "claude-opus-5-5"),
        (&["--model", "sonnet"], &[], "claude-sonnet-5-5"),
        (&["--model", "sonnet[1m]"], &[], "claude-sonnet-5-5"),
        (&["--model", "haiku"], &[], "claude-haiku-5-5"),
        (&["--model", "haiku[1m]"], &[], "claude-haiku-5-5"),
        (&["--model", "fable"], &[], "claude-fable-5-2"),
        (&["--model", "opusplan"], &[], "claude-sonnet-5-5"),
        (
            &["--model", "opusplan", plan[0], plan[1]],
            &[],
            "claude-opus-5-5",
        ),
        (&["--model", "claude-sonnet-4-5"], &[], "claude-sonnet-4-5"),
        (&["--model", "my-model-7"], &[], "my-model-7"),
        (&[], &[("ANTHROPIC_MODEL", "sonnet")], "claude-sonnet-5-5"),
        (
            &["--model", "haiku"],
            &[("ANTHROPIC_MODEL", "sonnet")],
            "claude-haiku-5-5",
        ),
        (
            &[],
            &[("ANTHROPIC_DEFAULT_MODEL", "pinned-default")],
            "pinned-default",
        ),
        (
            &[],
            &[("ANTHROPIC_DEFAULT_MODEL", "fable")],
            "claude-fable-5-2",
        ),
        (
            &[],
            &[
                ("ANTHROPIC_DEFAULT_MODEL", "pinned-default"),
                ("ANTHROPIC_DEFAULT_OPUS_MODEL", "pinned-opus"),
            ],
            "pinned-default",
        ),
        (
            &[],
            &[("ANTHROPIC_DEFAULT_OPUS_MODEL", "pinned-opus")],
            "pinned-opus",
        ),
        (
            &["--model", "best"],
            &[("ANTHROPIC_DEFAULT_OPUS_MODEL", "pinned-opus")],
            "pinned-opus",
        ),
        (
            &["--model", "opusplan", plan[0], plan[1]],
            &[("ANTHROPIC_DEFAULT_OPUS_MODEL", "pinned-opus")],
            "pinned-opus",
        ),
        (
            &["--model", "opusplan"],
            &[("ANTHROPIC_DEFAULT_SONNET_MODEL", "pinned-sonnet")],
            "pinned-sonnet",
        ),
        (
            &["--model", "sonnet"],
            &[("ANTHROPIC_DEFAULT_SONNET_MODEL", "pinned-sonnet")],
            "pinned-sonnet",
        ),
        (
            &["--model", "haiku"],
            &[("ANTHROPIC_DEFAULT_HAIKU_MODEL", "pinned-haiku")],
            "pinned-haiku",
        ),
        (
            &["--model", "fable"],
            &[("ANTHROPIC_DEFAULT_FABLE_MODEL", "pinned-fable")],
            "pinned-fable",
        ),
    ];
    for (args, vars, _) in cases {
        run(&env, args, vars);
    }
    let sent = sent_models(&env);
    let wanted: Vec<Value> = cases.iter().map(|(_, _, model)| json!(model)).collect();
    assert_eq!(sent, wanted);
}

/// One model's figures in a result: cost (rounded to 1e-9), the request's
/// `max_tokens`, and `modelUsage`'s window and output cap.
#[derive(Debug, PartialEq)]
struct Figures {
    model: &'static str,
    what: &'static str,
    cost: f64,
    max_tokens: u64,
    window: u64,
    max_output: u64,
}

#[tokio::test(flavor = "multi_thread")]
async fn cost_limits_and_max_tokens_of_each_row() {
    let io = |m: MessageReply| m.usage(1_000_000, 1_000_000);
    let rows: Vec<(&str, &str, MessageReply)> = vec![
        ("claude-opus-5-5", "1M in, 1M out", io(Reply::message())),
        ("claude-sonnet-5-5", "1M in, 1M out", io(Reply::message())),
        ("claude-haiku-5-5", "1M in, 1M out", io(Reply::message())),
        (
            "claude-haiku-5-5",
            "100k in, 1M out",
            Reply::message().usage(100_000, 1_000_000),
        ),
        ("claude-fable-5-2", "1M in, 1M out", io(Reply::message())),
        ("claude-sonnet-4-5", "1M in, 1M out", io(Reply::message())),
        ("my-model-7", "1M in, 1M out", io(Reply::message())),
        (
            "claude-opus-5-5",
            "1M 5m + 1M 1h writes, 1M reads",
            Reply::message()
                .usage(0, 0)
                .cache(2_000_000, 1_000_000)
                .usage_field(
                    "cache_creation",
                    json!({"ephemeral_5m_input_tokens": 1_000_000,
                           "ephemeral_1h_input_tokens": 1_000_000}),
                ),
        ),
        (
            "claude-haiku-5-5",
            "1M 5m + 1M 1h writes, 1M reads",
            Reply::message()
                .usage(0, 0)
                .cache(2_000_000, 1_000_000)
                .usage_field(
                    "cache_creation",
                    json!({"ephemeral_5m_input_tokens": 1_000_000,
                           "ephemeral_1h_input_tokens": 1_000_000}),
                ),
        ),
        (
            "claude-opus-5-5",
            "1M in, 1M out, in the US",
            io(Reply::message()).usage_field("inference_geo", json!("us")),
        ),
    ];
    let script = rows
        .iter()
        .map(|(_, _, m)| -> Reply { m.clone().text("ok").into() });
    let env = Env::new(Script::new(script)).await;
    let got: Vec<Figures> = rows
        .iter()
        .zip(0..)
        .map(|((model, what, _), i)| {
            let result = run(&env, &["--model", model], &[]);
            let usage = &result["modelUsage"][*model];
            let body = &env.request_bodies()[i];
            Figures {
                model,
                what,
                cost: (result["total_cost_usd"].as_f64().unwrap() * 1e9).round() / 1e9,
                max_tokens: body["max_tokens"].as_u64().unwrap(),
                window: usage["contextWindow"].as_u64().unwrap(),
                max_output: usage["maxOutputTokens"].as_u64().unwrap(),
            }
        })
        .collect();
    let row = |model, what, cost, max_tokens, window, max_output| Figures {
        model,
        what,
        cost,
        max_tokens,
        window,
        max_output,
    };
    const M: u64 = 1_000_000;
    assert_eq!(
        got,
        [
            row(
                "claude-opus-5-5",
                "1M in, 1M out",
                24.0,
                128_000,
                M,
                128_000
            ),
            row(
                "claude-sonnet-5-5",
                "1M in, 1M out",
                12.0,
                128_000,
                M,
                128_000
            ),
            // Over 100k prompt tokens: 0.5 / 2.5.
            row(
                "claude-haiku-5-5",
                "1M in, 1M out",
                3.0,
                128_000,
                M,
                128_000
            ),
            // 100,000 is not over: 0.1 / 0.5.
            row(
                "claude-haiku-5-5",
                "100k in, 1M out",
                0.51,
                128_000,
                M,
                128_000
            ),
            row(
                "claude-fable-5-2",
                "1M in, 1M out",
                48.0,
                128_000,
                M,
                128_000
            ),
            row(
                "claude-sonnet-4-5",
                "1M in, 1M out",
                18.0,
                32_000,
                200_000,
                32_000
            ),
            // An unknown id: the default model's rate, 1M, 32k.
            row("my-model-7", "1M in, 1M out", 24.0, 32_000, M, 32_000),
            // 5 + 8 + 0.2
            row(
                "claude-opus-5-5",
                "1M 5m + 1M 1h writes, 1M reads",
                13.2,
                128_000,
                M,
                128_000
            ),
            // 0.125 + 0.2 + 0.01
            row(
                "claude-haiku-5-5",
                "1M 5m + 1M 1h writes, 1M reads",
                0.335,
                128_000,
                M,
                128_000
            ),
            row(
                "claude-opus-5-5",
                "1M in, 1M out, in the US",
                26.4,
                128_000,
                M,
                128_000
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_fallback_model_takes_over_after_three_529s() {
    let overloaded = || Reply::overloaded().retry_after_ms(1);
    let env = Env::new(Script::new([
        // Two overloaded answers: the client retries and the primary answers.
        overloaded(),
        overloaded(),
        Reply::text("Primary."),
        // Three: the fallback takes over.
        overloaded(),
        overloaded(),
        overloaded(),
        Reply::text("Fallback."),
    ]))
    .await;
    let args = ["--model", "sonnet", "--fallback-model", "haiku"];
    let retries = [("CLAUDE_CODE_MAX_RETRIES", "10")];
    let results = [run(&env, &args, &retries), run(&env, &args, &retries)];
    let sent = sent_models(&env);
    let (sonnet, haiku) = ("claude-sonnet-5-5", "claude-haiku-5-5");
    assert_eq!(
        (sent, results.map(|r| r["result"].clone())),
        (
            [sonnet, sonnet, sonnet, sonnet, sonnet, sonnet, haiku]
                .map(Value::from)
                .to_vec(),
            [json!("Primary."), json!("Fallback.")]
        )
    );
}

/// Each step waits for its answer (a result, a control response) before the
/// next is written: a mode change applies to the turns after it.
#[tokio::test(flavor = "multi_thread")]
async fn opusplan_plans_on_opus_and_works_on_sonnet() {
    use std::io::{BufRead, Write};
    let env = Env::new(Script::new([Reply::text("ok")]).looping()).await;
    let mut child = env.stream_json_with(&["--model", "opusplan", "--permission-mode", "plan"]);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut step = |line: Value, until: &str| {
        writeln!(stdin, "{line}").unwrap();
        loop {
            let record: Value = serde_json::from_str(&stdout.next().unwrap().unwrap()).unwrap();
            if record["type"] == until {
                return;
            }
        }
    };
    let mode = |mode: &str| {
        json!({"type": "control_request", "request_id": mode,
               "request": {"subtype": "set_permission_mode", "mode": mode}})
    };
    step(common::user_line("plan it"), "result");
    step(mode("default"), "control_response");
    step(common::user_line("do it"), "result");
    step(mode("plan"), "control_response");
    step(common::user_line("plan again"), "result");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let sent = sent_models(&env);
    assert_eq!(
        sent,
        ["claude-opus-5-5", "claude-sonnet-5-5", "claude-opus-5-5"].map(Value::from)
    );
}

/// Claude Code's sample (`claude-code-max-tokens.stream.jsonl`): an answer
/// cut at a 128k model's cap is continued, not escalated; an unknown id
/// asked at 32k is escalated to 64k first.
#[tokio::test(flavor = "multi_thread")]
async fn a_cut_answer_is_continued_at_the_cap_and_escalated_below_it() {
    let cut = || -> Reply {
        Reply::message()
            .text("This i")
            .stop_reason("max_tokens")
            .into()
    };
    let env = Env::new(Script::new([
        cut(),
        Reply::text("s the rest."),
        cut(),
        Reply::text("This is all."),
    ]))
    .await;
    let results = [
        run(&env, &[], &[])["result"].clone(),
        run(&env, &["--model", "my-model-7"], &[])["result"].clone(),
    ];
    let asked: Vec<(Value, Value, usize)> = env
        .request_bodies()
        .iter()
        .map(|b| {
            let messages = b["messages"].as_array().unwrap().len();
            (b["model"].clone(), b["max_tokens"].clone(), messages)
        })
        .collect();
    let (opus, other) = (json!("claude-opus-5-5"), json!("my-model-7"));
    assert_eq!(
        asked,
        [
            (opus.clone(), json!(128_000), 1),
            // The cut answer kept, then the request to resume.
            (opus, json!(128_000), 3),
            (other.clone(), json!(32_000), 1),
            // The same request again, with room.
            (other, json!(64_000), 1),
        ]
    );
    assert_eq!(results[1], json!("This is all."));
}

/// Claude Code picks the main loop's model per request: a mode left in the
/// middle of a turn (here by the SDK's answer to an ask, with a `setMode`
/// update, as an approved plan leaves plan mode) moves `opusplan` to Sonnet
/// for the turn's next request, and the session stays there.
#[tokio::test(flavor = "multi_thread")]
async fn opusplan_leaves_opus_within_the_turn_that_leaves_plan_mode() {
    use crate::sdk_protocol::{Sdk, initialize};
    let read = Reply::message().tool_use("toolu_1", "Read", json!({"file_path": "plan.md"}));
    let env = Env::new(Script::new([
        read.into(),
        Reply::text("on it"),
        Reply::text("still"),
    ]))
    .await;
    std::fs::write(env.cwd().join("plan.md"), "the plan\n").unwrap();
    std::fs::create_dir_all(env.cwd().join(".claude")).unwrap();
    std::fs::write(
        env.cwd().join(".claude/settings.json"),
        json!({"permissions": {"ask": ["Read"]}}).to_string(),
    )
    .unwrap();
    let args = [
        "--model",
        "opusplan",
        "--permission-mode",
        "plan",
        "--permission-prompt-tool",
        "stdio",
    ];
    let mut sdk = Sdk::start(&env, &args, &[]);
    sdk.request("init", initialize(Value::Null)).await;
    sdk.response("init").await;
    sdk.user("plan, then go", json!({})).await;
    let ask = sdk.tack_request().await;
    assert_eq!(ask["request"]["tool_name"], json!("Read"));
    let id = ask["request_id"].as_str().unwrap().to_owned();
    let leave_plan = json!({"type": "setMode", "mode": "default", "destination": "session"});
    sdk.answer(
        &id,
        json!({"behavior": "allow", "updatedInput": {"file_path": "plan.md"},
               "updatedPermissions": [leave_plan]}),
    )
    .await;
    assert_eq!(sdk.result().await["result"], json!("on it"));
    sdk.user("and now", json!({})).await;
    assert_eq!(sdk.result().await["result"], json!("still"));
    let (code, _, stderr) = sdk.finish().await;
    assert_eq!(code, Some(0), "{stderr}");
    let sent = sent_models(&env);
    assert_eq!(
        sent,
        ["claude-opus-5-5", "claude-sonnet-5-5", "claude-sonnet-5-5"].map(Value::from)
    );
}
