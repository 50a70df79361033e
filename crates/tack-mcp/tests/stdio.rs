//! A real rmcp server over stdio (the `tack-mcp-fixture` binary): start-up,
//! tools, results, timeouts, cancellation, crashes, list_changed, resources,
//! prompts, expansion, and processes.

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::*;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_mcp::{McpManager, ServerEntry, ServerStatus, Status};
use tack_protocol::{ContentBlock, ImageSource};
use tack_tool::{ProgressSink, ToolContext, ToolOutput};
use tokio_util::sync::CancellationToken;

fn names(manager: &McpManager) -> Vec<String> {
    manager
        .tools()
        .iter()
        .map(|t| t.name().to_string())
        .collect()
}

#[tokio::test]
async fn lists_tools_with_names_schemas_and_annotations() {
    let s = Scratch::new();
    let m = McpManager::connect(&config(vec![stdio("fix.ture", &[])]), s.options(), &no_env).await;
    assert_eq!(
        m.init_statuses(),
        vec![tack_protocol::stream_json::McpServerStatus {
            name: "fix.ture".into(),
            status: "connected".into()
        }]
    );
    let all = names(&m);
    assert_eq!(all.len(), 17, "{all:?}");
    assert_eq!(
        &all[..3],
        [
            "mcp__fix_ture__echo",
            "mcp__fix_ture__add",
            "mcp__fix_ture__image"
        ]
    );
    let echo = tool(&m, "mcp__fix_ture__echo");
    assert_eq!(echo.description(), "Echoes the text back");
    assert_eq!(
        echo.input_schema(),
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    );
    assert!(echo.is_read_only(&json!({})));
    assert!(echo.is_concurrency_safe(&json!({})));
    let sleep = tool(&m, "mcp__fix_ture__sleep");
    assert!(!sleep.is_read_only(&json!({})));
    assert_eq!(
        m.instructions(),
        vec![(
            "fix.ture".to_string(),
            "The fixture fixture server.".to_string()
        )]
    );
}

#[tokio::test]
async fn text_structured_image_and_error_results() {
    let s = Scratch::new();
    let m = McpManager::connect(&config(vec![stdio("fx", &[])]), s.options(), &no_env).await;
    assert_eq!(
        call(&m, &s, "mcp__fx__echo", json!({"text": "hi"})).await,
        Ok(ToolOutput::text("hi"))
    );
    assert_eq!(
        call(&m, &s, "mcp__fx__add", json!({"a": 2, "b": 3})).await,
        Ok(ToolOutput::text("5").with_structured(json!({"sum": 5.0})))
    );
    assert_eq!(
        call(&m, &s, "mcp__fx__image", json!({})).await,
        Ok(ToolOutput::blocks(vec![
            ContentBlock::text("a red pixel"),
            ContentBlock::Image {
                source: ImageSource::Base64 {
                    media_type: "image/png".into(),
                    data: fixture_server::PNG_BASE64.into()
                },
                cache_control: None
            },
        ]))
    );
    let err = call(&m, &s, "mcp__fx__fail", json!({"message": "disk on fire"}))
        .await
        .unwrap_err();
    assert_eq!(err.message, "disk on fire");
    assert_eq!(
        err.to_tool_result_text(),
        "<tool_use_error>disk on fire</tool_use_error>"
    );
    // Input checked before the call, with the parameter named.
    let err = call(&m, &s, "mcp__fx__add", json!({"a": 1}))
        .await
        .unwrap_err();
    assert_eq!(
        err.message,
        "InputValidationError: mcp__fx__add is missing the required parameter `b`"
    );
}

#[tokio::test]
async fn audio_links_embedded_resources_and_unsupported_images() {
    let s = Scratch::new();
    let m = McpManager::connect(&config(vec![stdio("fx", &[])]), s.options(), &no_env).await;
    let out = call(&m, &s, "mcp__fx__mixed", json!({})).await.unwrap();
    let dir = s.path().join("session/mcp-output");
    let text = out.content.to_text();
    let expected = [
        format!(
            "[Audio (audio/wav, 44 bytes) saved to {}; the model cannot listen to audio]",
            dir.join("toolu_test-0.wav").display()
        ),
        "[Resource link: greeting (fixture://greeting), text/plain: A greeting]".to_string(),
        "[Resource: fixture://note]\nembedded note".to_string(),
        format!(
            "[Resource fixture://data (application/octet-stream, 3 bytes) saved to {}; the model cannot read this type directly]",
            dir.join("toolu_test-3.bin").display()
        ),
        format!(
            "[Image (image/svg+xml, 6 bytes) saved to {}; the model cannot read this type directly]",
            dir.join("toolu_test-4.svg").display()
        ),
    ]
    .join("\n");
    assert_eq!(text, expected);
    assert_eq!(
        std::fs::read(dir.join("toolu_test-3.bin")).unwrap(),
        vec![0, 1, 2]
    );
    assert_eq!(
        std::fs::read(dir.join("toolu_test-4.svg")).unwrap(),
        b"<svg/>".to_vec()
    );
}

#[tokio::test]
async fn large_results_go_through_the_result_budget() {
    let s = Scratch::new();
    let m = McpManager::connect(&config(vec![stdio("fx", &[])]), s.options(), &no_env).await;
    let big = tool(&m, "mcp__fx__big");
    let limit = big.max_result_chars().expect("MCP tools are budgeted");
    assert_eq!(limit, tack_tool::budget::DEFAULT_MAX_RESULT_CHARS);
    let out = call(&m, &s, "mcp__fx__big", json!({"chars": limit + 10}))
        .await
        .unwrap();
    let dir = s.path().join("tool-results");
    let stored = tack_tool::apply_result_budget("toolu_big", out, &dir, limit);
    let text = stored.content.to_text();
    assert!(text.starts_with("<persisted-output>"), "{}", &text[..200]);
    assert_eq!(
        std::fs::read_to_string(dir.join("toolu_big.txt"))
            .unwrap()
            .len(),
        limit + 10
    );
}

/// `fx`'s `wait_for_cancel` (never answered) called with `MCP_TOOL_TIMEOUT`
/// at `tool_timeout`: the manager, and the call's error.
async fn unanswered(s: &Scratch, fx: ServerEntry, tool_timeout: Duration) -> (McpManager, String) {
    let mut options = s.options();
    options.tool_timeout = tool_timeout;
    let m = McpManager::connect(&config(vec![fx]), options, &no_env).await;
    let err = call(&m, s, "mcp__fx__wait_for_cancel", json!({}))
        .await
        .unwrap_err();
    (m, err.message)
}

#[tokio::test]
async fn a_call_past_the_tool_timeout_fails_and_the_server_is_told() {
    let s = Scratch::new();
    let (m, error) = unanswered(&s, stdio("fx", &[]), Duration::from_millis(300)).await;
    assert_eq!(
        error,
        "mcp__fx__wait_for_cancel timed out after 300ms (MCP_TOOL_TIMEOUT); the server was asked to cancel it"
    );
    // The server saw notifications/cancelled (its handler ended) and still answers.
    assert_eq!(cancellations_reach(&m, &s, "1").await, "1");
}

/// An entry's own `timeout` replaces `MCP_TOOL_TIMEOUT` for its calls.
#[tokio::test]
async fn an_entrys_timeout_replaces_the_tool_timeout() {
    let s = Scratch::new();
    let mut fx = stdio("fx", &[]);
    fx.tool_timeout = Some(Duration::from_secs(1));
    let (_m, error) = unanswered(&s, fx, Duration::from_secs(600)).await;
    assert_eq!(
        error,
        "mcp__fx__wait_for_cancel timed out after 1s (the server's timeout); the server was asked to cancel it"
    );
}

#[tokio::test]
async fn cancelling_a_call_sends_notifications_cancelled() {
    let s = Scratch::new();
    let m = McpManager::connect(&config(vec![stdio("fx", &[])]), s.options(), &no_env).await;
    let wait = tool(&m, "mcp__fx__wait_for_cancel");
    let ctx = ToolContext {
        cancel: CancellationToken::new(),
        ..s.ctx("toolu_cancel")
    };
    let token = ctx.cancel.clone();
    let call = wait.call(json!({}), &ctx);
    let canceller = async {
        // Cancel once the call is on its way: the server's count must go to 1.
        tokio::task::yield_now().await;
        token.cancel();
    };
    let (result, ()) = tokio::join!(call, canceller);
    assert_eq!(
        result.unwrap_err().message,
        "mcp__fx__wait_for_cancel was cancelled"
    );
    assert_eq!(cancellations_reach(&m, &s, "1").await, "1");
}

/// The server's count of cancelled calls, asked until it is `expected` (at
/// most 50 round trips): the cancellation and the handler it stops run
/// concurrently with later requests.
async fn cancellations_reach(m: &McpManager, s: &Scratch, expected: &str) -> String {
    let mut count = String::new();
    for _ in 0..50 {
        count = text(call(m, s, "mcp__fx__cancellations", json!({})).await);
        if count == expected {
            break;
        }
    }
    count
}

#[tokio::test]
async fn progress_notifications_reach_the_progress_sink() {
    let s = Scratch::new();
    let m = McpManager::connect(&config(vec![stdio("fx", &[])]), s.options(), &no_env).await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let ctx = ToolContext {
        progress: ProgressSink::new("toolu_p".into(), tx),
        ..s.ctx("toolu_p")
    };
    let out = tool(&m, "mcp__fx__progress")
        .call(json!({"steps": 2}), &ctx)
        .await;
    assert_eq!(out, Ok(ToolOutput::text("done")));
    let mut seen = Vec::new();
    while let Ok(p) = rx.try_recv() {
        seen.push(p.data);
    }
    assert_eq!(
        seen,
        vec![
            json!({"type": "mcp_progress", "status": "progress", "serverName": "fx", "toolName": "progress", "progress": 1.0, "total": 2.0, "progressMessage": "step 1"}),
            json!({"type": "mcp_progress", "status": "progress", "serverName": "fx", "toolName": "progress", "progress": 2.0, "total": 2.0, "progressMessage": "step 2"}),
        ]
    );
}

#[tokio::test]
async fn a_server_crashing_mid_call_is_a_clear_error_and_others_go_on() {
    let s = Scratch::new();
    let m = McpManager::connect(
        &config(vec![stdio("crashy", &[]), stdio("steady", &[])]),
        s.options(),
        &no_env,
    )
    .await;
    let grandchild: i32 = text(call(&m, &s, "mcp__crashy__spawn_grandchild", json!({})).await)
        .parse()
        .unwrap();
    let before = m.generation();
    let mut changes = m.subscribe();
    let err = call(&m, &s, "mcp__crashy__crash", json!({}))
        .await
        .unwrap_err();
    let log = log_of(&s, "crashy");
    assert_eq!(
        err.message,
        format!(
            "MCP server \"crashy\" closed the connection during mcp__crashy__crash; the server may have crashed (its stderr is in {})",
            log.display()
        )
    );
    // The manager notices: the server is failed, its tools withdrawn.
    while m.statuses()[0].status == Status::Connected {
        changes.changed().await.unwrap();
    }
    assert!(m.generation() > before);
    let crashed = &m.statuses()[0];
    assert_eq!(
        (crashed.name.as_str(), crashed.status),
        ("crashy", Status::Failed)
    );
    let error = crashed.error.clone().unwrap();
    assert!(
        error.starts_with("the server closed the connection (it may have crashed); its stderr"),
        "{error}"
    );
    assert!(
        error.ends_with("fixture: starting\nfixture: crashing on purpose"),
        "{error}"
    );
    assert!(names(&m).iter().all(|n| n.starts_with("mcp__steady__")));
    // What the dead server left in its process group goes with it.
    assert!(
        wait_dead(grandchild).await,
        "grandchild {grandchild} survived its server"
    );
    assert_eq!(
        text(call(&m, &s, "mcp__steady__echo", json!({"text": "still here"})).await),
        "still here"
    );
}

#[tokio::test]
async fn tools_list_changed_refreshes_the_snapshot() {
    let s = Scratch::new();
    let m = McpManager::connect(&config(vec![stdio("fx", &[])]), s.options(), &no_env).await;
    let mut changes = m.subscribe();
    changes.borrow_and_update();
    assert_eq!(
        text(call(&m, &s, "mcp__fx__add_tool", json!({"name": "shiny"})).await),
        "added shiny"
    );
    while !names(&m).contains(&"mcp__fx__shiny".to_string()) {
        changes.changed().await.unwrap();
    }
    assert_eq!(names(&m).len(), 18);
    assert_eq!(
        text(call(&m, &s, "mcp__fx__shiny", json!({})).await),
        "dynamic shiny"
    );
}

#[tokio::test]
async fn resources_tools_and_mentions() {
    let s = Scratch::new();
    let m = McpManager::connect(&config(vec![stdio("fx", &[])]), s.options(), &no_env).await;
    let tools = m.resource_tools();
    let list = &tools[0];
    let read = &tools[1];
    assert_eq!(
        (list.name(), read.name()),
        ("ListMcpResourcesTool", "ReadMcpResourceTool")
    );
    assert!(list.is_read_only(&json!({})) && read.is_read_only(&json!({})));
    let ctx = s.ctx("toolu_r");
    let listed = list.call(json!({"server": "fx"}), &ctx).await.unwrap();
    assert_eq!(
        listed.structured,
        Some(json!([
            {"uri": "fixture://greeting", "name": "greeting", "mimeType": "text/plain", "description": "A greeting", "server": "fx"},
            {"uri": "fixture://logo", "name": "logo", "mimeType": "image/png", "server": "fx"},
            {"uri": "fixture://data", "name": "data", "mimeType": "application/octet-stream", "server": "fx"},
        ]))
    );
    let err = list
        .call(json!({"server": "nope"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(
        err.message,
        "MCP server \"nope\" not found (connected servers: fx)"
    );

    let greeting = read
        .call(json!({"server": "fx", "uri": "fixture://greeting"}), &ctx)
        .await
        .unwrap();
    assert_eq!(
        greeting.structured,
        Some(
            json!({"contents": [{"uri": "fixture://greeting", "mimeType": "text/plain", "text": "hello from fixture"}]})
        )
    );
    let data = read
        .call(json!({"server": "fx", "uri": "fixture://data"}), &ctx)
        .await
        .unwrap();
    let saved = s.path().join("session/mcp-output/toolu_r-0.bin");
    assert_eq!(
        data.structured,
        Some(
            json!({"contents": [{"uri": "fixture://data", "mimeType": "application/octet-stream",
            "blob": format!("[Resource fixture://data (application/octet-stream, 3 bytes) saved to {}; the model cannot read this type directly]", saved.display())}]})
        )
    );
    let missing = read
        .call(json!({"server": "fx", "uri": "fixture://nope"}), &ctx)
        .await
        .unwrap_err();
    assert!(
        missing
            .message
            .starts_with("MCP server \"fx\" could not read fixture://nope:"),
        "{}",
        missing.message
    );
    assert!(
        read.validate(&json!({"server": "fx"}), &ctx).is_err(),
        "uri is required"
    );

    let mentions = m
        .resolve_mentions(
            "compare @fx:fixture://greeting with @fx:fixture://logo, and @nobody:x",
            &s.path().join("session"),
        )
        .await;
    let blocks: Vec<ContentBlock> = mentions.iter().flat_map(|m| m.to_blocks()).collect();
    assert_eq!(
        blocks,
        vec![
            ContentBlock::text("<mcp-resource server=\"fx\" uri=\"fixture://greeting\">"),
            ContentBlock::text("[Resource: fixture://greeting]\nhello from fixture"),
            ContentBlock::text("</mcp-resource>"),
            ContentBlock::text("<mcp-resource server=\"fx\" uri=\"fixture://logo\">"),
            ContentBlock::Image {
                source: ImageSource::Base64 {
                    media_type: "image/png".into(),
                    data: fixture_server::PNG_BASE64.into()
                },
                cache_control: None
            },
            ContentBlock::text("</mcp-resource>"),
        ]
    );
}

#[tokio::test]
async fn prompts_are_listed_and_fetched_with_arguments() {
    let s = Scratch::new();
    let m = McpManager::connect(&config(vec![stdio("fx", &[])]), s.options(), &no_env).await;
    let prompts = m.list_prompts().await;
    assert_eq!(
        prompts,
        vec![tack_mcp::McpPrompt {
            server: "fx".into(),
            name: "review".into(),
            command: "mcp__fx__review".into(),
            description: Some("Review a file".into()),
            arguments: vec![
                tack_mcp::PromptArgument {
                    name: "file".into(),
                    description: Some("The file to review".into()),
                    required: true
                },
                tack_mcp::PromptArgument {
                    name: "focus".into(),
                    description: Some("What to look at".into()),
                    required: false
                },
            ],
        }]
    );
    let review = &prompts[0];
    let args = review
        .arguments_from_text("src/lib.rs error handling")
        .unwrap();
    assert_eq!(
        args,
        BTreeMap::from([
            ("file".to_string(), "src/lib.rs".to_string()),
            ("focus".to_string(), "error handling".to_string())
        ])
    );
    assert_eq!(
        review.arguments_from_text("  ").unwrap_err(),
        "/mcp__fx__review needs the argument `file`; usage: /mcp__fx__review <file> [focus]"
    );
    let turns = m.get_prompt("fx", "review", &args, s.path()).await.unwrap();
    assert_eq!(
        turns,
        vec![
            tack_mcp::PromptTurn {
                role: tack_mcp::PromptRole::User,
                content: vec![ContentBlock::text(
                    "Please review src/lib.rs, focusing on error handling."
                )]
            },
            tack_mcp::PromptTurn {
                role: tack_mcp::PromptRole::Assistant,
                content: vec![ContentBlock::text("I will review src/lib.rs.")]
            },
        ]
    );
    let err = m
        .get_prompt("fx", "review", &BTreeMap::new(), s.path())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("missing argument file"), "{err}");
}

#[tokio::test]
async fn variables_expand_in_command_args_and_env() {
    let s = Scratch::new();
    let lookup = |k: &str| match k {
        "FIXTURE_BIN" => Some(FIXTURE.to_string()),
        "GREETING" => Some("bonjour".to_string()),
        _ => None,
    };
    let mut expanded = stdio_with_env(
        "fx",
        &["--x=${GREETING}", "${MODE:-plain}"],
        &[("SAYS", "${GREETING} ${WHO:-world}")],
    );
    if let tack_mcp::ServerConfig::Stdio(c) = &mut expanded.config {
        c.command = "${FIXTURE_BIN}".into();
    }
    let missing = stdio_with_env("nokey", &[], &[("TOKEN", "${API_TOKEN}")]);
    let m = McpManager::connect(&config(vec![expanded, missing]), s.options(), &lookup).await;
    assert_eq!(
        text(call(&m, &s, "mcp__fx__argv", json!({})).await),
        "--x=bonjour plain"
    );
    assert_eq!(
        text(call(&m, &s, "mcp__fx__env", json!({"name": "SAYS"})).await),
        "bonjour world"
    );
    let failed = m
        .statuses()
        .into_iter()
        .find(|st| st.name == "nokey")
        .unwrap();
    assert_eq!(
        (failed.status, failed.error.as_deref()),
        (
            Status::Failed,
            Some(
                "environment variable API_TOKEN is not set (used in env.TOKEN in test); set it or write ${API_TOKEN:-default}"
            )
        )
    );
}

#[tokio::test]
async fn a_hanging_server_fails_at_the_timeout_while_others_connect() {
    let s = Scratch::new();
    let mut options = s.options();
    options.startup_timeout = Duration::from_secs(3);
    let started = std::time::Instant::now();
    let m = McpManager::start(
        &config(vec![
            stdio("broken", &["--exit-at-start"]),
            stdio("good", &[]),
            stdio("hangs", &["--hang"]),
            stdio("missing-binary", &[]),
        ])
        .tap_missing_binary(),
        options,
        &no_env,
    );
    // Nothing has run yet: every server is pending.
    assert!(m.statuses().iter().all(|st| st.status == Status::Pending));
    m.wait_until_settled().await;
    let elapsed = started.elapsed();
    assert!(
        elapsed >= Duration::from_secs(3) && elapsed < Duration::from_secs(10),
        "{elapsed:?}"
    );
    let statuses: Vec<(String, Status)> = m
        .statuses()
        .into_iter()
        .map(|st| (st.name, st.status))
        .collect();
    assert_eq!(
        statuses,
        vec![
            ("broken".to_string(), Status::Failed),
            ("good".to_string(), Status::Connected),
            ("hangs".to_string(), Status::Failed),
            ("missing-binary".to_string(), Status::Failed),
        ]
    );
    let errors: BTreeMap<String, String> = m
        .statuses()
        .into_iter()
        .filter_map(|st: ServerStatus| st.error.map(|e| (st.name, e)))
        .collect();
    assert_eq!(
        errors["broken"],
        format!(
            "the server exited during initialization; its stderr ({}) ends with:\nfixture: starting\nfixture: refusing to start (--exit-at-start)",
            log_of(&s, "broken").display()
        )
    );
    assert_eq!(
        errors["hangs"],
        format!(
            "connection to MCP server \"hangs\" timed out after 3s (MCP_TIMEOUT); its stderr ({}) ends with:\nfixture: starting",
            log_of(&s, "hangs").display()
        )
    );
    assert_eq!(
        errors["missing-binary"],
        "cannot start `/nonexistent/mcp-server`: No such file or directory (os error 2)"
    );
    assert_eq!(
        m.report_lines(),
        vec![
            format!("MCP server \"broken\" failed: {}", errors["broken"]),
            format!("MCP server \"hangs\" failed: {}", errors["hangs"]),
            format!(
                "MCP server \"missing-binary\" failed: {}",
                errors["missing-binary"]
            ),
        ]
    );
    assert_eq!(
        text(call(&m, &s, "mcp__good__echo", json!({"text": "ok"})).await),
        "ok"
    );
}

trait MissingBinary {
    fn tap_missing_binary(self) -> Self;
}

impl MissingBinary for tack_mcp::McpConfig {
    fn tap_missing_binary(mut self) -> Self {
        for e in &mut self.servers {
            if let (tack_mcp::ServerConfig::Stdio(c), "missing-binary") =
                (&mut e.config, e.name.as_str())
            {
                c.command = "/nonexistent/mcp-server".into();
            }
        }
        self
    }
}

#[tokio::test]
async fn no_process_survives_the_manager() {
    let s = Scratch::new();
    let mut options = s.options();
    options.startup_timeout = Duration::from_secs(20);
    let m = McpManager::connect(
        &config(vec![stdio("a", &[]), stdio("b", &[])]),
        options,
        &no_env,
    )
    .await;
    let a: i32 = text(call(&m, &s, "mcp__a__pid", json!({})).await)
        .parse()
        .unwrap();
    let b: i32 = text(call(&m, &s, "mcp__b__pid", json!({})).await)
        .parse()
        .unwrap();
    let grandchild: i32 = text(call(&m, &s, "mcp__a__spawn_grandchild", json!({})).await)
        .parse()
        .unwrap();
    assert_eq!((m.server_pid("a"), m.server_pid("b")), (Some(a), Some(b)));
    assert!(!dead(a) && !dead(b) && !dead(grandchild));
    // A tool outliving the manager reports the server as gone.
    let echo = tool(&m, "mcp__a__echo");
    drop(m);
    for pid in [a, b, grandchild] {
        assert!(wait_dead(pid).await, "process {pid} survived the manager");
    }
    let err = echo
        .call(json!({"text": "x"}), &s.ctx("late"))
        .await
        .unwrap_err();
    assert!(
        err.message
            .starts_with("MCP server \"a\" closed the connection during mcp__a__echo"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn shutdown_terminates_servers_gracefully() {
    let s = Scratch::new();
    let m = McpManager::connect(&config(vec![stdio("a", &[])]), s.options(), &no_env).await;
    let pid = m.server_pid("a").unwrap();
    m.shutdown().await;
    assert!(wait_dead(pid).await);
    assert_eq!(m.statuses()[0].error.as_deref(), Some("shut down"));
    assert!(m.tools().is_empty());
}

#[tokio::test]
async fn a_manager_dropped_during_start_up_kills_the_starting_server() {
    let s = Scratch::new();
    let m = McpManager::start(
        &config(vec![stdio("slow", &["--hang"])]),
        s.options(),
        &no_env,
    );
    let log = log_of(&s, "slow");
    // The child is up once it has written to its log.
    let mut waited = 0;
    while std::fs::read_to_string(&log).unwrap_or_default().is_empty() && waited < 500 {
        tokio::time::sleep(Duration::from_millis(10)).await;
        waited += 1;
    }
    let pids = pids_with_arg("--hang", &s);
    assert_eq!(pids.len(), 1, "{pids:?}");
    drop(m);
    assert!(wait_dead(pids[0]).await);
}

/// Fixture processes started with `arg` whose log is under `s` (by cwd).
fn pids_with_arg(arg: &str, s: &Scratch) -> Vec<i32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        let is_fixture = args.first().is_some_and(|a| *a == FIXTURE.as_bytes());
        let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
        if is_fixture
            && args.contains(&arg.as_bytes())
            && cwd.as_deref() == Some(s.path())
            && !dead(pid)
        {
            out.push(pid);
        }
    }
    out
}

#[tokio::test]
async fn tool_names_that_would_clash_fail_the_later_server() {
    let s = Scratch::new();
    let m = McpManager::connect(
        &config(vec![stdio("a.b", &[]), stdio("a_b", &[])]),
        s.options(),
        &no_env,
    )
    .await;
    let statuses: Vec<(String, Status, Option<String>)> = m
        .statuses()
        .into_iter()
        .map(|st| (st.name, st.status, st.error))
        .collect();
    assert_eq!(
        statuses,
        vec![
            ("a.b".into(), Status::Connected, None),
            (
                "a_b".into(),
                Status::Failed,
                Some("its tool names (mcp__a_b__*) would clash with server \"a.b\"; rename one of them".into())
            ),
        ]
    );
}

#[tokio::test]
async fn unapproved_project_servers_are_reported_not_started() {
    let s = Scratch::new();
    let project = s.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join(".mcp.json"),
        json!({"mcpServers": {
            "approved": {"command": FIXTURE},
            "unapproved": {"command": FIXTURE},
            "off": {"type": "http", "url": "http://127.0.0.1:9/mcp"},
        }})
        .to_string(),
    )
    .unwrap();
    let paths = tack_mcp::McpPaths::new(&project, &project, None, None, None);
    let approvals = tack_mcp::ProjectApprovals {
        enable_all: false,
        enabled: vec!["approved".into(), "off".into()],
        disabled: vec!["off".into()],
    };
    let config = tack_mcp::load_config(
        &paths,
        tack_mcp::LoadOptions {
            mcp_config: &[],
            strict: false,
            approvals: &approvals,
        },
    )
    .unwrap();
    let m = McpManager::connect(&config, s.options(), &no_env).await;
    let got: Vec<(String, &str, &str)> = m
        .statuses()
        .into_iter()
        .map(|st| (st.name, st.transport, st.status.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("approved".into(), "stdio", "connected"),
            ("off".into(), "http", "disabled"),
            ("unapproved".into(), "stdio", "disabled"),
        ]
    );
    let origin = project.join(".mcp.json").display().to_string();
    assert_eq!(
        m.report_lines(),
        vec![
            format!(
                "MCP server \"off\" was not started: project MCP server \"off\" ({origin}) is disabled by \"disabledMcpjsonServers\""
            ),
            format!(
                "MCP server \"unapproved\" was not started: project MCP server \"unapproved\" ({origin}) is not approved: add it to \"enabledMcpjsonServers\" or set \"enableAllProjectMcpServers\": true in your settings"
            ),
        ]
    );
    // Unapproved servers are not even spawned.
    assert_eq!(m.tools().len(), 17);
}
