//! End-to-end: MCP servers in a session through the real binary: tools from
//! `--mcp-config` reach the model and run, a broken server beside them is
//! reported and blocks nothing, `tack mcp` edits and lists the configuration.
//! The servers are tack-mcp's rmcp fixture (built with the workspace) and the
//! reference server-everything (installed by `.ci/install-mcp-everything.sh`);
//! a test whose server is missing says so and passes.

use crate::common;

use std::path::PathBuf;

use common::stderr;
use common::{Env, kinds, lines, offered};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// The rmcp fixture server, next to the tack binary once the workspace is built.
pub(crate) fn fixture() -> Option<PathBuf> {
    let tack = assert_cmd::cargo::cargo_bin("tack");
    let path = tack.with_file_name("tack-mcp-fixture");
    path.is_file().then_some(path)
}

fn everything() -> Option<PathBuf> {
    let tack = assert_cmd::cargo::cargo_bin("tack");
    let entry = "mcp-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js";
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    tack.ancestors()
        .map(|dir| dir.join(entry))
        .find(|p| p.is_file())
        .filter(|_| node)
}

/// The tool_result blocks of the last message of a request body.
fn last_results(body: &Value) -> Vec<Value> {
    body["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_from_mcp_config_run_and_a_broken_server_blocks_nothing() {
    let Some(fixture) = fixture() else {
        println!("skipped: tack-mcp-fixture is not built (run the whole workspace's tests)");
        return;
    };
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use("toolu_1", "mcp__fix__echo", json!({"text": "hello mcp"}))
            .tool_use("toolu_2", "mcp__fix__add", json!({"a": 2, "b": 3}))
            .into(),
        Reply::text("Both worked."),
    ]))
    .await;
    let config = json!({"mcpServers": {
        "fix": {"command": fixture, "args": ["--name", "fix"]},
        "broken": {"command": "/nonexistent/mcp-server"}
    }})
    .to_string();
    let out = env
        .tack()
        .args([
            "-p",
            "use the tools",
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .args(["--mcp-config", &config, "--allowedTools", "mcp__fix"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let records = lines(&out.stdout);
    assert_eq!(
        kinds(&records),
        [
            "system/init",
            "assistant",
            "assistant",
            "user",
            "user",
            "assistant",
            "result/success"
        ]
    );
    assert_eq!(
        records[0]["mcp_servers"],
        json!([{"name": "broken", "status": "failed"}, {"name": "fix", "status": "connected"}])
    );
    let tools: Vec<&str> = records[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"mcp__fix__echo") && tools.contains(&"ListMcpResourcesTool"),
        "{tools:?}"
    );
    let err = stderr(&out);
    assert!(err.contains("MCP server \"broken\" failed"), "{err}");

    let bodies = env.request_bodies();
    let sent: Vec<&str> = bodies[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(sent.contains(&"mcp__fix__add"), "{sent:?}");
    let results = last_results(&bodies[1]);
    let texts: Vec<String> = results.iter().map(|r| r["content"].to_string()).collect();
    assert!(texts[0].contains("hello mcp"), "{texts:?}");
    assert!(texts[1].contains('5'), "{texts:?}");
    assert!(
        results.iter().all(|r| r["is_error"] != json!(true)),
        "{results:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bare_deny_rule_takes_a_servers_tools_out_of_context() {
    let Some(fixture) = fixture() else {
        println!("skipped: tack-mcp-fixture is not built (run the whole workspace's tests)");
        return;
    };
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let config = json!({"mcpServers": {"fix": {"command": fixture}}}).to_string();
    let out = env
        .tack()
        .args([
            "-p",
            "hi",
            "--mcp-config",
            &config,
            "--disallowedTools",
            "mcp__fix",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let sent = env.request_bodies()[0]["tools"].to_string();
    assert!(!sent.contains("mcp__fix__"), "{sent}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_reference_server_everything_echo_sum_and_image() {
    let Some(entry) = everything() else {
        println!(
            "skipped: server-everything is not installed (.ci/install-mcp-everything.sh) or node is missing"
        );
        return;
    };
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use(
                "toolu_1",
                "mcp__everything__echo",
                json!({"message": "hi there"}),
            )
            .tool_use(
                "toolu_2",
                "mcp__everything__get-sum",
                json!({"a": 20, "b": 22}),
            )
            .tool_use("toolu_3", "mcp__everything__get-tiny-image", json!({}))
            .into(),
        Reply::text("done"),
    ]))
    .await;
    let config = json!({"mcpServers": {
        "everything": {"command": "node", "args": [entry]},
        "broken": {"command": "node", "args": ["-e", "process.exit(3)"]}
    }})
    .to_string();
    let out = env
        .tack()
        .args([
            "-p",
            "go",
            "--output-format",
            "json",
            "--mcp-config",
            &config,
        ])
        .args(["--allowedTools", "mcp__everything"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(lines(&out.stdout)[0]["result"], "done");
    let results = last_results(&env.request_bodies()[1]);
    let all = serde_json::to_string(&results).unwrap();
    assert!(all.contains("hi there"), "{all}");
    assert!(all.contains("42"), "{all}");
    assert!(all.contains(r#""type":"image""#), "{all}");
    assert!(
        stderr(&out).contains("MCP server \"broken\""),
        "{}",
        stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn tack_mcp_adds_lists_gets_and_removes_servers() {
    let Some(fixture) = fixture() else {
        println!("skipped: tack-mcp-fixture is not built (run the whole workspace's tests)");
        return;
    };
    let env = Env::new(Script::new([])).await;
    let fixture = fixture.to_string_lossy().into_owned();
    let run = |args: &[&str]| {
        let out = env.tack().arg("mcp").args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let added = run(&["add", "-e", "A=1", "fix", "--", &fixture, "--name", "fix"]);
    assert!(added.contains("fix"), "{added}");
    let listed = run(&["list"]);
    assert!(
        listed.contains("fix") && listed.contains("Connected"),
        "{listed}"
    );
    let got = run(&["get", "fix"]);
    assert!(got.contains(&fixture) && got.contains("A=1"), "{got}");
    run(&["remove", "fix"]);
    let listed = run(&["list"]);
    assert!(!listed.contains(&fixture), "{listed}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sub_agents_get_the_sessions_mcp_tools_as_their_definitions_allow() {
    let Some(fixture) = fixture() else {
        println!("skipped: tack-mcp-fixture is not built (run the whole workspace's tests)");
        return;
    };
    let agent = |id: &str, kind: &str| -> Reply {
        Reply::message()
            .tool_use(
                id,
                "Agent",
                json!({"description": "echo", "prompt": "echo it", "subagent_type": kind}),
            )
            .into()
    };
    // One agent at a time, so the requests arrive in script order.
    let env = Env::new(Script::new([
        agent("toolu_a", "general-purpose"),
        Reply::message()
            .tool_use(
                "toolu_e",
                "mcp__fix__echo",
                json!({"text": "from the sub-agent"}),
            )
            .into(),
        Reply::text("The echo said: from the sub-agent."),
        agent("toolu_b", "server-only"),
        Reply::text("Done with the server's tools."),
        agent("toolu_c", "reader"),
        Reply::text("Read-only."),
        Reply::text("All three ran."),
    ]))
    .await;
    let agents = env.cwd().join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("server-only.md"),
        "---\nname: server-only\ndescription: the fix server only\ntools: mcp__fix\n---\nUse the server.\n",
    )
    .unwrap();
    std::fs::write(
        agents.join("reader.md"),
        "---\nname: reader\ndescription: reads\ntools: Read, Grep\n---\nRead.\n",
    )
    .unwrap();
    let config =
        json!({"mcpServers": {"fix": {"command": fixture, "args": ["--name", "fix"]}}}).to_string();
    let out = env
        .tack()
        .args(["-p", "use sub-agents"])
        .args(["--mcp-config", &config, "--allowedTools", "mcp__fix"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "All three ran."
    );

    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 8);
    // general-purpose: every tool, the server's among them; its call ran.
    let general = offered(&bodies[1]);
    assert!(
        general.iter().any(|t| t == "mcp__fix__echo") && general.iter().any(|t| t == "Read"),
        "{general:?}"
    );
    let results = last_results(&bodies[2]);
    assert!(
        results[0]["content"]
            .to_string()
            .contains("from the sub-agent")
            && results[0]["is_error"] != json!(true),
        "{results:?}"
    );
    // `tools: mcp__fix`: the server's tools and nothing else.
    let server_only = offered(&bodies[4]);
    assert!(
        !server_only.is_empty() && server_only.iter().all(|t| t.starts_with("mcp__fix__")),
        "{server_only:?}"
    );
    // `tools: Read, Grep`: no MCP tool.
    assert_eq!(offered(&bodies[6]), ["Read", "Grep"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_subagents_mcp_tools_are_deferred_when_the_sessions_are() {
    let Some(fixture) = fixture() else {
        println!("skipped: tack-mcp-fixture is not built (run the whole workspace's tests)");
        return;
    };
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use(
                "toolu_a",
                "Agent",
                json!({"description": "look", "prompt": "look", "subagent_type": "general-purpose"}),
            )
            .into(),
        Reply::text("Nothing to search for."),
        Reply::text("Done."),
    ]))
    .await;
    let config =
        json!({"mcpServers": {"fix": {"command": fixture, "args": ["--name", "fix"]}}}).to_string();
    let out = env
        .tack()
        .env("ENABLE_TOOL_SEARCH", "true")
        .args(["-p", "use a sub-agent", "--mcp-config", &config])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 3);
    for (who, body) in [("session", &bodies[0]), ("sub-agent", &bodies[1])] {
        let tools = offered(body);
        assert!(
            tools.iter().any(|t| t == "ToolSearch")
                && !tools.iter().any(|t| t.starts_with("mcp__")),
            "{who}: {tools:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_sdk_server_outside_an_sdk_session_is_named_and_the_session_goes_on() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let config = json!({"mcpServers": {"calc": {"type": "sdk", "name": "calc"}}}).to_string();
    let out = env
        .tack()
        .args(["-p", "hi", "--mcp-config", &config])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(common::stdout(&out), "ok\n");
    assert_eq!(
        stderr(&out),
        "MCP server \"calc\" failed: it is an in-process server of the Agent SDK (\"type\": \"sdk\"), \
         which only an SDK session can reach (the SDK starts tack with --input-format stream-json and serves it)\n"
    );
    assert_eq!(env.request_bodies().len(), 1);
}
