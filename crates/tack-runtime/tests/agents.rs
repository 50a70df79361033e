//! Sub-agents (the Agent tool) through the runtime, against the scripted
//! server over real HTTP: concurrency, tool subsets, cost roll-up, sidechain
//! transcripts, interrupts, background agents, definitions, hooks, rules.
//! The web tools' side requests are metered into the session here too.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_core::LoopEvent;
use tack_protocol::stream_json::ResultRecord;
use tack_protocol::{ContentBlock, Message, Usage};
use tack_runtime::{
    ExtensionOptions, Notice, PermissionOptions, RequestOptions, RuntimeEvent, RuntimeEvents,
    SessionOptions, SubagentEvent, TurnEnd, UserInput,
};
use tack_testkit::{RecordedRequest, Reply, Script};

use crate::fixture::Fixture;

/// The parent's model, named in the tests that price it (not the default).
const MAIN: &str = "claude-sonnet-5-5";
const HAIKU: &str = "claude-haiku-5-5";
const OPUS: &str = "claude-opus-5-5";

/// Options of a session on [`MAIN`].
fn on_main() -> SessionOptions {
    SessionOptions {
        request: RequestOptions {
            model: Some(MAIN.into()),
            ..Default::default()
        },
        ..SessionOptions::default()
    }
}

impl Fixture {
    /// A session with default options that takes `prompt` and ends.
    async fn one_turn(&self, prompt: &str) -> Seen {
        let (handle, mut events, _) = self.spawn(SessionOptions::default()).await;
        handle.submit(UserInput::text(prompt)).unwrap();
        drop(handle);
        run_to_end(&mut events).await
    }
}

/// What a session emitted, sorted by kind.
#[derive(Default)]
struct Seen {
    notices: Vec<Notice>,
    parent: Vec<LoopEvent>,
    sub: Vec<SubagentEvent>,
    turns: Vec<TurnEnd>,
    agents: Vec<String>,
}

impl Seen {
    fn take(&mut self, event: RuntimeEvent) -> bool {
        match event {
            RuntimeEvent::Notice(n) => self.notices.push(n),
            RuntimeEvent::Started(info) => {
                self.agents = info
                    .extensions
                    .agents
                    .iter()
                    .map(|a| a.name.clone())
                    .collect();
            }
            RuntimeEvent::Loop(e) => self.parent.push(e),
            RuntimeEvent::Subagent(e) => self.sub.push(*e),
            RuntimeEvent::TurnEnded(end) => self.turns.push(*end),
            RuntimeEvent::Task(_)
            | RuntimeEvent::Teammate(_)
            | RuntimeEvent::SessionState(_)
            | RuntimeEvent::PermissionDenied(_)
            | RuntimeEvent::Input(_) => {}
            RuntimeEvent::CompactEnded { .. }
            | RuntimeEvent::PermissionRequest(_)
            | RuntimeEvent::Hook(_)
            | RuntimeEvent::ConversationReset(_)
            | RuntimeEvent::TranscriptMirror(_)
            | RuntimeEvent::AskWithdrawn { .. }
            | RuntimeEvent::Reply { .. }
            | RuntimeEvent::HookCallback(_) => {
                panic!("unexpected event")
            }
            RuntimeEvent::Ended => return false,
        }
        true
    }

    /// Takes events until `done` says so (or the session ends).
    async fn until(&mut self, events: &mut RuntimeEvents, done: impl Fn(&Seen) -> bool) {
        while !done(self) {
            let Some(event) = events.next().await else {
                return;
            };
            if !self.take(event) {
                return;
            }
        }
    }

    /// The parent's tool results: (tool_use_id, text, is_error).
    fn parent_results(&self) -> Vec<(String, String, bool)> {
        results(self.parent.iter())
    }

    fn record(&self) -> &ResultRecord {
        &self.turns.last().unwrap().record
    }
}

fn results<'a>(events: impl Iterator<Item = &'a LoopEvent>) -> Vec<(String, String, bool)> {
    let mut out = Vec::new();
    for e in events {
        if let LoopEvent::ToolResults(r) = e {
            for b in &r.message.content {
                if let ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                    ..
                } = b
                {
                    let text = content.as_ref().map(|c| c.to_text()).unwrap_or_default();
                    out.push((tool_use_id.clone(), text, *is_error));
                }
            }
        }
    }
    out
}

async fn run_to_end(events: &mut RuntimeEvents) -> Seen {
    let mut seen = Seen::default();
    while let Some(event) = events.next().await {
        if !seen.take(event) {
            break;
        }
    }
    seen
}

fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        ..Usage::default()
    }
}

fn agent_call(id: &str, kind: &str, prompt: &str) -> (String, Value) {
    (
        id.to_owned(),
        json!({"description": "look around", "prompt": prompt, "subagent_type": kind}),
    )
}

fn agents_reply(calls: &[(String, Value)]) -> Reply {
    let mut reply = Reply::message();
    for (id, input) in calls {
        reply = reply.tool_use(id, "Agent", input.clone());
    }
    reply.usage(100, 20).into()
}

/// The system prompt text of a request.
fn system(r: &RecordedRequest) -> String {
    r.body["system"].to_string()
}

fn tool_names(r: &RecordedRequest) -> Vec<String> {
    r.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

const READER: &str = "---\nname: reader\ndescription: Reads files for you.\ntools: Read, Grep\n\
                      model: opus\ncolor: green\n---\nYou read files and report.\n";

#[tokio::test]
async fn two_agents_run_concurrently_each_with_its_tools_and_their_costs_sum_up() {
    let stall = Duration::from_millis(800);
    let sub_reply = || -> Reply {
        Reply::message()
            .text("found it")
            .usage(1000, 50)
            .stall_after(1, stall)
            .into()
    };
    let fx = Fixture::new(Script::new([
        agents_reply(&[
            agent_call("toolu_explore", "Explore", "find the parser"),
            agent_call("toolu_reader", "reader", "read the parser"),
        ]),
        sub_reply(),
        sub_reply(),
        Reply::message().text("both done").usage(300, 10).into(),
    ]))
    .await;
    fx.project_file(".claude/agents/reader.md", READER);
    let (handle, mut events, transcript) = fx.spawn(on_main()).await;
    handle.submit(UserInput::text("go")).unwrap();
    drop(handle);
    let seen = run_to_end(&mut events).await;
    assert_eq!(seen.notices, Vec::<Notice>::new());
    assert_eq!(
        seen.agents,
        ["Explore", "Plan", "general-purpose", "reader"]
    );

    let requests = fx.server.requests();
    assert_eq!(requests.len(), 4);
    // The parent offers every tool, the web tools and the Agent tool; its
    // description lists the agents.
    assert_eq!(
        tool_names(&requests[0]),
        [
            "Read",
            "Write",
            "Edit",
            "MultiEdit",
            "NotebookEdit",
            "Bash",
            "TaskOutput",
            "TaskStop",
            "Glob",
            "Grep",
            "LS",
            "TodoWrite",
            "Monitor",
            "WebFetch",
            "WebSearch",
            "EnterWorktree",
            "ExitWorktree",
            "CronCreate",
            "CronList",
            "CronDelete",
            "ScheduleWakeup",
            "Agent"
        ]
    );
    let agent_tool = &requests[0].body["tools"][21]["description"];
    assert!(
        agent_tool
            .as_str()
            .unwrap()
            .contains("- reader: Reads files for you. (Tools: Read, Grep)"),
        "{agent_tool}"
    );
    // Each sub-agent: its own system prompt, tools and model, no parent history.
    let explore = requests[1..3]
        .iter()
        .find(|r| system(r).contains("file search specialist"))
        .unwrap();
    let reader = requests[1..3]
        .iter()
        .find(|r| system(r).contains("You read files and report."))
        .unwrap();
    assert_eq!(
        tool_names(explore),
        [
            "Read",
            "Bash",
            "Glob",
            "Grep",
            "LS",
            "WebFetch",
            "WebSearch"
        ]
    );
    assert_eq!(tool_names(reader), ["Read", "Grep"]);
    assert_eq!(
        (&explore.body["model"], &reader.body["model"]),
        (&json!(HAIKU), &json!(OPUS))
    );
    for (r, prompt) in [(explore, "find the parser"), (reader, "read the parser")] {
        let messages = r.body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(messages[0].to_string().contains(prompt));
    }
    // Concurrent: run one after the other, the second request could not
    // arrive before the first reply's stall is over.
    let gap = explore
        .received_at
        .duration_since(reader.received_at)
        .or_else(|_| reader.received_at.duration_since(explore.received_at))
        .unwrap();
    assert!(gap < stall, "the sub-agents' requests were {gap:?} apart");

    // Each tool result is the sub-agent's final text with its usage.
    let parent = seen.parent_results();
    assert_eq!(parent.len(), 2);
    for ((id, text, is_error), expected_id) in parent.iter().zip(["toolu_explore", "toolu_reader"])
    {
        assert_eq!((id.as_str(), *is_error), (expected_id, false));
        assert!(text.starts_with("found it\n\nagentId: a"), "{text}");
        assert!(
            text.contains("<usage>total_tokens: 1050\ntool_uses: 0\n"),
            "{text}"
        );
    }
    // The parent's result sums everyone's cost, per model.
    let cost = |m: &str, u: Usage| tack_api::cost(m, &u).usd;
    let record = seen.record();
    let expected = cost(MAIN, usage(100, 20))
        + cost(HAIKU, usage(1000, 50))
        + cost(OPUS, usage(1000, 50))
        + cost(MAIN, usage(300, 10));
    // The sub-agents' costs are added in the order they finished.
    assert!(
        (record.total_cost_usd - expected).abs() < 1e-12,
        "{} != {expected}",
        record.total_cost_usd
    );
    let per_model: BTreeMap<&str, (u64, u64)> = record
        .model_usage
        .iter()
        .map(|(m, u)| (m.as_str(), (u.input_tokens, u.output_tokens)))
        .collect();
    assert_eq!(
        per_model,
        BTreeMap::from([(HAIKU, (1000, 50)), (MAIN, (400, 30)), (OPUS, (1000, 50))])
    );

    // Their events carry the Agent call's id and their type.
    let mut tagged: Vec<(String, String)> = seen
        .sub
        .iter()
        .filter(|e| matches!(e.event, LoopEvent::AssistantMessage(_)))
        .map(|e| (e.parent_tool_use_id.clone(), e.agent_type.clone()))
        .collect();
    tagged.sort();
    assert_eq!(
        tagged,
        [
            ("toolu_explore".to_owned(), "Explore".to_owned()),
            ("toolu_reader".to_owned(), "reader".to_owned())
        ]
    );

    // Sidechain transcripts beside the session's, each resumable.
    let session_dir = transcript.with_extension("");
    let mut ids: Vec<String> = seen.sub.iter().map(|e| e.agent_id.clone()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 2);
    for id in &ids {
        let path = session_dir.join(format!("subagents/agent-{id}.jsonl"));
        let loaded = tack_store::load_sidechain(&path).unwrap();
        assert_eq!(loaded.warnings, Vec::new());
        assert_eq!(loaded.messages.len(), 2);
        assert_eq!(
            loaded.messages[1],
            Message::assistant(vec![ContentBlock::text("found it")])
        );
        let first: Value = serde_json::from_str(
            std::fs::read_to_string(&path)
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            (&first["isSidechain"], &first["agentId"]),
            (&json!(true), &json!(id))
        );
    }
    // The session's own transcript holds none of the sub-agents' messages.
    let main = tack_store::load(&transcript).unwrap();
    assert_eq!(main.messages.len(), 4);
}

/// A long, slowly streamed answer: the server writes every 10 ms, so it sees
/// a hang-up within 10 ms.
fn endless() -> Reply {
    Reply::message()
        .text(&"word ".repeat(5000))
        .pacing(Duration::from_millis(10))
        .into()
}

#[tokio::test]
async fn an_interrupt_stops_every_running_subagent_within_100_ms() {
    let fx = Fixture::new(Script::new([
        agents_reply(&[
            agent_call("toolu_1", "general-purpose", "one"),
            agent_call("toolu_2", "general-purpose", "two"),
        ]),
        endless(),
        endless(),
    ]))
    .await;
    let (handle, mut events, _) = fx.spawn(SessionOptions::default()).await;
    handle.submit(UserInput::text("go")).unwrap();
    // Both sub-agents are streaming once each has its first assistant text
    // in flight: wait for their requests.
    let mut seen = Seen::default();
    seen.until(&mut events, |s| {
        s.sub
            .iter()
            .filter(|e| matches!(e.event, LoopEvent::RequestStart { .. }))
            .count()
            == 2
    })
    .await;
    while fx.server.requests().len() < 3 {
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let asked = Instant::now();
    let interrupter = handle.clone();
    let interrupted = tokio::spawn(async move {
        interrupter.interrupt().await.unwrap();
        asked.elapsed()
    });
    let drained = tokio::spawn(async move {
        seen.until(&mut events, |s| !s.turns.is_empty()).await;
        (seen, events)
    });
    fx.server.wait_abandoned_streams(2).await;
    let streams_stopped = asked.elapsed();
    let turn_ended = interrupted.await.unwrap();
    let (seen, _events) = drained.await.unwrap();
    assert!(turn_ended < Duration::from_millis(100), "{turn_ended:?}");
    // Noticed by the server at its next write (10 ms pacing).
    assert!(
        streams_stopped < Duration::from_millis(110),
        "{streams_stopped:?}"
    );
    assert_eq!(seen.record().subtype, "error_during_execution");
    assert_eq!(
        seen.parent_results(),
        [
            ("toolu_1".to_owned(), "Interrupted by user".to_owned(), true),
            ("toolu_2".to_owned(), "Interrupted by user".to_owned(), true)
        ]
    );
}

/// The task id in the result of an Agent call with `run_in_background`.
fn background_id(seen: &Seen) -> String {
    let (_, text, _) = seen.parent_results().into_iter().next().unwrap();
    let id = text
        .split("agentId: ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    assert!(id.starts_with('a') && id.len() == 9, "{text}");
    id
}

/// One model call per turn: the parent never races its background agent for
/// the next scripted reply.
fn one_call_per_turn() -> SessionOptions {
    SessionOptions {
        request: RequestOptions {
            max_turns: Some(1),
            ..Default::default()
        },
        permissions: PermissionOptions {
            allowed_tools: vec!["Bash(sleep 30)".into()],
            ..Default::default()
        },
        ..SessionOptions::default()
    }
}

fn background_call(prompt: &str) -> Reply {
    Reply::tool_use(
        "toolu_bg",
        "Agent",
        json!({"description": "long job", "prompt": prompt, "run_in_background": true}),
    )
}

#[tokio::test]
async fn a_background_agent_returns_at_once_and_task_output_reads_its_result() {
    let fx = Fixture::new(Script::new([
        background_call("compute"),
        Reply::text("the answer is 42"),
    ]))
    .await;
    let (handle, mut events, _) = fx.spawn(one_call_per_turn()).await;
    handle.submit(UserInput::text("start it")).unwrap();
    let mut seen = Seen::default();
    seen.until(&mut events, |s| {
        !s.turns.is_empty()
            && s.sub
                .iter()
                .any(|e| matches!(e.event, LoopEvent::Terminal(_)))
    })
    .await;
    let id = background_id(&seen);
    assert_eq!(seen.sub[0].parent_tool_use_id, "toolu_bg");
    fx.server.push(Reply::tool_use(
        "toolu_out",
        "TaskOutput",
        json!({"task_id": id}),
    ));
    handle.submit(UserInput::text("read it")).unwrap();
    drop(handle);
    let rest = run_to_end(&mut events).await;
    let (_, text, is_error) = rest.parent_results().pop().unwrap();
    assert_eq!(
        (text, is_error),
        (
            format!(
                "<task_id>{id}</task_id>\n\n<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<output>\nthe answer is 42\n</output>"
            ),
            false
        )
    );
}

#[tokio::test]
async fn task_stop_stops_a_background_agent() {
    let fx = Fixture::new(Script::new([
        background_call("wait"),
        Reply::tool_use("toolu_sleep", "Bash", json!({"command": "sleep 30"})),
    ]))
    .await;
    let (handle, mut events, _) = fx.spawn(one_call_per_turn()).await;
    handle.submit(UserInput::text("start it")).unwrap();
    let mut seen = Seen::default();
    // The background agent is running its `sleep 30`.
    seen.until(&mut events, |s| {
        !s.turns.is_empty()
            && s.sub
                .iter()
                .any(|e| matches!(e.event, LoopEvent::AssistantMessage(_)))
    })
    .await;
    let id = background_id(&seen);
    fx.server.push(Reply::tool_use(
        "toolu_stop",
        "TaskStop",
        json!({"task_id": id}),
    ));
    fx.server.push(Reply::tool_use(
        "toolu_out",
        "TaskOutput",
        json!({"task_id": id, "block": false}),
    ));
    let started = Instant::now();
    handle.submit(UserInput::text("stop it")).unwrap();
    handle.submit(UserInput::text("check it")).unwrap();
    drop(handle);
    let rest = run_to_end(&mut events).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    let results = rest.parent_results();
    assert_eq!(
        results,
        [
            (
                "toolu_stop".to_owned(),
                format!("Successfully stopped task: {id} (long job)"),
                false
            ),
            (
                "toolu_out".to_owned(),
                format!("<task_id>{id}</task_id>\n\n<status>killed</status>\n\n(no new output)"),
                false
            )
        ]
    );
}

#[tokio::test]
async fn definitions_come_from_files_the_flag_and_the_built_ins_and_a_bad_file_is_skipped() {
    let fx = Fixture::new(Script::new([Reply::text("hi")])).await;
    fx.home_file(
        ".claude/agents/reader.md",
        "---\nname: reader\ndescription: user reader\n---\nU\n",
    );
    fx.home_file(
        ".tack/agents/helper.md",
        "---\nname: helper\ndescription: user helper\ntools: [Read]\n---\nH\n",
    );
    fx.project_file(
        ".claude/agents/reader.md",
        "---\nname: reader\ndescription: project reader\n---\nP\n",
    );
    fx.project_file(
        ".claude/agents/broken.md",
        "---\nname: broken\ndescription: [oops\n---\nB\n",
    );
    let flag = r#"{"Explore": {"description": "flag explore", "prompt": "F", "tools": ["Glob"]},
                   "tester": {"description": "flag tester", "prompt": "T", "model": "haiku"},
                   "nameless": {"prompt": "no description"}}"#;
    let options = SessionOptions {
        extensions: ExtensionOptions {
            agents: Some(flag.to_owned()),
            ..Default::default()
        },
        ..SessionOptions::default()
    };
    let (handle, mut events, _) = fx.spawn(options).await;
    handle.submit(UserInput::text("hi")).unwrap();
    drop(handle);
    let seen = run_to_end(&mut events).await;
    let broken = fx.cwd().join(".claude/agents/broken.md");
    assert_eq!(
        seen.notices
            .iter()
            .map(|n| n.text.clone())
            .collect::<Vec<_>>(),
        [
            format!(
                "warning: {}:3: invalid YAML frontmatter: while parsing a flow sequence, expected ',' or ']'; agent skipped",
                broken.display()
            ),
            "warning: --agents:3: agent `nameless`: `description` is missing; agent skipped"
                .to_owned()
        ]
    );
    assert_eq!(
        seen.agents,
        [
            "Explore",
            "Plan",
            "general-purpose",
            "helper",
            "reader",
            "tester"
        ]
    );
    let request = &fx.server.requests()[0];
    let description = request.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Agent")
        .unwrap()["description"]
        .as_str()
        .unwrap()
        .to_owned();
    let listed: Vec<&str> = description
        .lines()
        .filter(|l| l.starts_with("- ") && l.contains("(Tools:"))
        .collect();
    assert_eq!(
        listed,
        [
            "- Explore: flag explore (Tools: Glob)",
            "- Plan: Software architect agent for designing implementation plans. Use it when you need to plan the implementation strategy for a task. It returns step-by-step plans, identifies critical files, and considers architectural trade-offs. Read-only. (Tools: Read, Glob, Grep, LS, Bash, WebFetch, WebSearch)",
            "- general-purpose: General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks. When you are searching for a keyword or file and are not confident that you will find the right match in the first few tries, use this agent to perform the search for you. (Tools: *)",
            "- helper: user helper (Tools: Read)",
            "- reader: project reader (Tools: *)",
            "- tester: flag tester (Tools: *)",
        ]
    );
}

#[tokio::test]
async fn subagent_stop_hooks_fire_with_the_agent_and_its_transcript() {
    let fx = Fixture::new(Script::new([
        agents_reply(&[agent_call("toolu_1", "reader", "read")]),
        Reply::text("read it all"),
        Reply::text("thanks"),
    ]))
    .await;
    fx.project_file(".claude/agents/reader.md", READER);
    let out = fx.home.path().join("hook.json");
    let settings = json!({"hooks": {"SubagentStop": [{"matcher": "reader", "hooks": [
        {"type": "command", "command": format!("cat > '{}'", out.display())}]}]}});
    fx.home_file(".claude/settings.json", &settings.to_string());
    let seen = fx.one_turn("go").await;
    assert_eq!(seen.record().subtype, "success");
    let input: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let agent_id = seen.sub[0].agent_id.clone();
    let transcript = input["agent_transcript_path"].as_str().unwrap();
    assert!(
        transcript.ends_with(&format!("/subagents/agent-{agent_id}.jsonl")),
        "{transcript}"
    );
    assert!(Path::new(transcript).is_file());
    assert_eq!(
        (
            &input["hook_event_name"],
            &input["agent_type"],
            &input["agent_id"],
            &input["stop_hook_active"],
            &input["last_assistant_message"]
        ),
        (
            &json!("SubagentStop"),
            &json!("reader"),
            &json!(agent_id),
            &json!(false),
            &json!("read it all")
        )
    );
}

#[tokio::test]
async fn a_deny_rule_applies_inside_a_subagent() {
    let fx = Fixture::new(Script::new([
        agents_reply(&[agent_call("toolu_1", "general-purpose", "clean up")]),
        Reply::tool_use("toolu_rm", "Bash", json!({"command": "rm keep.txt"})),
        Reply::text("I was not allowed to"),
        Reply::text("it could not"),
    ]))
    .await;
    fx.project_file("keep.txt", "precious");
    let options = SessionOptions {
        permissions: PermissionOptions {
            disallowed_tools: vec!["Bash(rm *)".into()],
            ..Default::default()
        },
        ..SessionOptions::default()
    };
    let (handle, mut events, _) = fx.spawn(options).await;
    handle.submit(UserInput::text("go")).unwrap();
    drop(handle);
    let seen = run_to_end(&mut events).await;
    assert!(fx.cwd().join("keep.txt").exists());
    let inside = results(seen.sub.iter().map(|e| &e.event));
    assert_eq!(inside.len(), 1);
    let (id, text, is_error) = &inside[0];
    assert_eq!((id.as_str(), *is_error), ("toolu_rm", true));
    assert!(text.contains("Bash(rm *)"), "{text}");
    let record = seen.record();
    assert_eq!(record.subtype, "success");
    assert_eq!(
        record
            .permission_denials
            .iter()
            .map(|d| (d.tool_name.clone(), d.tool_use_id.clone()))
            .collect::<Vec<_>>(),
        [("Bash".to_owned(), "toolu_rm".to_owned())]
    );
}

#[tokio::test]
async fn a_web_search_side_request_counts_in_the_session_cost() {
    let fx = Fixture::new(Script::new([
        Reply::message()
            .tool_use("toolu_ws", "WebSearch", json!({"query": "tack rust"}))
            .usage(100, 20)
            .into(),
        Reply::message()
            .server_tool_use("srvtoolu_1", "web_search", json!({"query": "tack rust"}))
            .web_search_tool_result(
                "srvtoolu_1",
                json!([{"type": "web_search_result", "url": "https://a.example", "title": "A"}]),
            )
            .text("Found A.")
            .usage(2000, 40)
            .into(),
        Reply::message().text("done").usage(300, 10).into(),
    ]))
    .await;
    let options = SessionOptions {
        permissions: PermissionOptions {
            allowed_tools: vec!["WebSearch".into()],
            ..Default::default()
        },
        ..on_main()
    };
    let (handle, mut events, _) = fx.spawn(options).await;
    handle.submit(UserInput::text("search")).unwrap();
    drop(handle);
    let seen = run_to_end(&mut events).await;
    let requests = fx.server.requests();
    assert_eq!(requests[1].body["tools"][0]["type"], "web_search_20250305");
    assert_eq!(requests[1].body["model"], MAIN);
    let record = seen.record();
    let cost = |u: Usage| tack_api::cost(MAIN, &u).usd;
    assert_eq!(
        record.total_cost_usd,
        cost(usage(100, 20)) + cost(usage(2000, 40)) + cost(usage(300, 10))
    );
    assert_eq!(record.model_usage[MAIN].input_tokens, 2400);
}

#[tokio::test]
async fn an_unknown_agent_type_is_an_error_naming_the_available_ones_and_task_is_an_alias() {
    let fx = Fixture::new(Script::new([
        Reply::tool_use(
            "toolu_1",
            "Task",
            json!({"description": "d", "prompt": "p", "subagent_type": "nope"}),
        ),
        Reply::text("ok"),
    ]))
    .await;
    let seen = fx.one_turn("go").await;
    assert_eq!(
        seen.parent_results(),
        [(
            "toolu_1".to_owned(),
            "<tool_use_error>Agent type 'nope' not found. Available agents: Explore, Plan, general-purpose</tool_use_error>"
                .to_owned(),
            true
        )]
    );
    assert_eq!(fx.server.requests().len(), 2);
}

#[tokio::test]
async fn hooks_for_a_subagents_tool_calls_name_the_agent() {
    let grep = |id: &str| Reply::tool_use(id, "Grep", json!({"pattern": "needle"}));
    let fx = Fixture::new(Script::new([
        grep("toolu_parent"),
        agents_reply(&[agent_call("toolu_1", "reader", "look")]),
        grep("toolu_sub"),
        Reply::text("no needle"),
        Reply::text("done"),
    ]))
    .await;
    fx.project_file(".claude/agents/reader.md", READER);
    let out = fx.home.path().join("hooks.jsonl");
    let command = format!("tr -d '\\n' >> '{0}'; echo >> '{0}'", out.display());
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Grep", "hooks": [
        {"type": "command", "command": command}]}]}});
    fx.home_file(".claude/settings.json", &settings.to_string());
    let seen = fx.one_turn("go").await;
    assert_eq!(seen.record().subtype, "success");
    let inputs: Vec<Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let named: Vec<(&Value, &Value, &Value)> = inputs
        .iter()
        .map(|i| (&i["tool_use_id"], &i["agent_id"], &i["agent_type"]))
        .collect();
    let agent_id = json!(seen.sub[0].agent_id);
    assert_eq!(
        named,
        [
            (&json!("toolu_parent"), &Value::Null, &Value::Null),
            (&json!("toolu_sub"), &agent_id, &json!("reader")),
        ]
    );
}
