//! What an interactive front end asks of the runtime besides turns: the
//! session's state (`/cost`, `/context`), settings for one turn (custom
//! commands), the conversation to show on resume, and the idle notification.

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::json;
use tack_core::LoopEvent;
use tack_protocol::ContentBlock;
use tack_runtime::{
    ConversationOptions, Notice, NoticeLevel, Op, PermissionOptions, RuleView, RuntimeEvent,
    RuntimeEvents, SessionChoice, SessionOptions, TurnOptions, UserInput,
};
use tack_testkit::{Reply, Script};

use crate::fixture::Fixture;

/// Events until the next `TurnEnded` (inclusive), as short descriptions.
async fn until_turn_end(events: &mut RuntimeEvents) -> Vec<String> {
    let mut seen = Vec::new();
    while let Some(event) = events.next().await {
        match event {
            RuntimeEvent::TurnEnded(end) => {
                seen.push(format!("turn ended ok={}", end.ok));
                return seen;
            }
            RuntimeEvent::Loop(LoopEvent::ToolResults(r)) => {
                for block in &r.message.content {
                    if let ContentBlock::ToolResult {
                        content, is_error, ..
                    } = block
                    {
                        let text = content.as_ref().map(|c| c.to_text()).unwrap_or_default();
                        seen.push(format!("tool result error={is_error}: {text}"));
                    }
                }
            }
            RuntimeEvent::Notice(n) => seen.push(format!("notice: {}", n.text)),
            RuntimeEvent::Ended => panic!("ended mid-turn: {seen:?}"),
            RuntimeEvent::Started(_)
            | RuntimeEvent::Loop(_)
            | RuntimeEvent::CompactEnded { .. }
            | RuntimeEvent::PermissionRequest(_)
            | RuntimeEvent::HookCallback(_)
            | RuntimeEvent::AskWithdrawn { .. }
            | RuntimeEvent::Reply { .. }
            | RuntimeEvent::Hook(_)
            | RuntimeEvent::ConversationReset(_)
            | RuntimeEvent::TranscriptMirror(_)
            | RuntimeEvent::Task(_)
            | RuntimeEvent::Teammate(_)
            | RuntimeEvent::SessionState(_)
            | RuntimeEvent::PermissionDenied(_)
            | RuntimeEvent::Input(_)
            | RuntimeEvent::Subagent(_) => {}
        }
    }
    panic!("events closed: {seen:?}")
}

#[tokio::test]
async fn the_idle_notification_fires_once_the_turn_has_ended_and_nothing_came() {
    let fx = Fixture::new(Script::new([Reply::text("hello")])).await;
    // The hook answers with a systemMessage naming the notification type, which
    // the runtime reports as a notice.
    fx.user_settings(json!({"hooks": {"Notification": [{"hooks": [{"type": "command",
        "command": "tr -d '\\n' | sed -n 's/.*\"notification_type\":\"\\([a-z_]*\\)\".*/{\"systemMessage\":\"notified \\1\"}/p'"}]}]}}));
    let runtime = fx
        .start(SessionOptions::default())
        .await
        .with_idle_notification(Duration::from_millis(50));
    let (handle, mut events) = runtime.spawn();
    handle.submit(UserInput::text("hi")).unwrap();
    assert_eq!(until_turn_end(&mut events).await, ["turn ended ok=true"]);
    // Waited for as a condition: the next event, with a deadline.
    let next = tokio::time::timeout(Duration::from_secs(20), events.next())
        .await
        .expect("no idle notification");
    match next {
        Some(RuntimeEvent::Notice(n)) => assert_eq!(
            n,
            Notice {
                level: NoticeLevel::Info,
                text: "notified idle_prompt".into()
            }
        ),
        other => panic!("expected the hook's notice, got {other:?}"),
    }
    drop(handle);
    while let Some(event) = events.next().await {
        assert!(
            !matches!(event, RuntimeEvent::Notice(_)),
            "a second notification: {event:?}"
        );
    }
}

#[tokio::test]
async fn a_snapshot_reports_the_context_the_cost_and_the_rules() {
    let fx = Fixture::new(Script::new([Reply::message()
        .text("hello")
        .usage(1_000, 50)
        .cache(200, 3_000)
        .into()]))
    .await;
    let runtime = fx
        .start(SessionOptions {
            permissions: PermissionOptions {
                allowed_tools: vec!["Read".into()],
                ..Default::default()
            },
            ..SessionOptions::default()
        })
        .await;
    let (handle, mut events) = runtime.spawn();
    let before = handle.snapshot().await.unwrap();
    assert_eq!(before.context.used, None);
    assert_eq!(before.messages, 0);
    assert!(before.context.system_prompt > 500, "{:?}", before.context);
    assert!(before.context.tools > 1_000, "{:?}", before.context);
    assert_eq!(before.context.current(), {
        let c = before.context;
        c.system_prompt + c.tools + c.memory + c.messages
    });

    handle.submit(UserInput::text("hi")).unwrap();
    until_turn_end(&mut events).await;
    let after = handle.snapshot().await.unwrap();
    assert_eq!(after.context.used, Some(1_000 + 200 + 3_000 + 50));
    // The default model's window (1M for Claude Code 2.1.328's default).
    let window = tack_api::model_limits(tack_runtime::DEFAULT_MODEL).context_window;
    assert_eq!(after.context.window, window);
    assert_eq!(after.context.autocompact_at, Some(window - 20_000 - 13_000));
    assert_eq!(after.messages, 2);
    assert_eq!(after.totals.usage.input_tokens, 1_000);
    assert!(after.totals.total_cost_usd > 0.0);
    assert!(!after.turn_running);
    assert_eq!(after.model, tack_runtime::DEFAULT_MODEL);
    assert_eq!(
        after.rules,
        vec![RuleView {
            behavior: "allow".into(),
            rule: "Read".into(),
            source: "cliArg".into(),
            file: None,
        }]
    );
}

#[tokio::test]
async fn turn_options_hold_for_one_turn_only() {
    let touch = || -> Reply {
        Reply::message()
            .tool_use("t1", "Bash", json!({"command": "touch one.txt"}))
            .into()
    };
    let fx = Fixture::new(Script::new([
        touch(),
        Reply::text("done"),
        touch(),
        Reply::text("denied"),
    ]))
    .await;
    let runtime = fx.start(SessionOptions::default()).await;
    let (handle, mut events) = runtime.spawn();
    handle
        .send(Op::SubmitWith {
            input: UserInput::text("/touch"),
            options: TurnOptions {
                allowed_tools: vec!["Bash(touch:*)".into()],
                model: Some("haiku".into()),
                ..TurnOptions::default()
            },
        })
        .unwrap();
    handle.submit(UserInput::text("again")).unwrap();
    let first = until_turn_end(&mut events).await;
    let second = until_turn_end(&mut events).await;
    assert_eq!(
        first,
        ["tool result error=false: (no output)", "turn ended ok=true"]
    );
    assert_eq!(second.len(), 2, "{second:?}");
    assert!(
        second[0].starts_with("tool result error=true: "),
        "{second:?}"
    );
    let models: Vec<String> = fx
        .server
        .requests()
        .into_iter()
        .map(|r| r.body["model"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        models,
        [
            "claude-haiku-5-5",
            "claude-haiku-5-5",
            tack_runtime::DEFAULT_MODEL,
            tack_runtime::DEFAULT_MODEL
        ]
    );
    assert_eq!(handle.snapshot().await.unwrap().rules, Vec::new());
}

#[tokio::test]
async fn a_resumed_runtime_holds_the_conversation_to_show() {
    let fx = Fixture::new(Script::new([Reply::text("first answer")])).await;
    let runtime = fx.start(SessionOptions::default()).await;
    assert!(runtime.messages().is_empty());
    let id = runtime.info().session_id.clone();
    let (handle, mut events) = runtime.spawn();
    handle.submit(UserInput::text("first question")).unwrap();
    until_turn_end(&mut events).await;
    drop(handle);
    while events.next().await.is_some() {}

    let resumed = fx
        .start(SessionOptions {
            conversation: ConversationOptions {
                session: SessionChoice::Resume(id),
                ..Default::default()
            },
            ..SessionOptions::default()
        })
        .await;
    let texts: Vec<(String, String)> = resumed
        .messages()
        .iter()
        .map(|m| (format!("{:?}", m.role), m.text()))
        .collect();
    assert_eq!(
        texts,
        [
            ("User".to_owned(), "first question".to_owned()),
            ("Assistant".to_owned(), "first answer".to_owned())
        ]
    );
}

/// Writes `text` to `path`, creating its folders.
fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Notices until `Started` (which comes with the first turn), as text.
async fn start_notices(events: &mut RuntimeEvents) -> Vec<String> {
    let mut notices = Vec::new();
    while let Some(event) = events.next().await {
        match event {
            RuntimeEvent::Notice(n) => notices.push(n.text),
            RuntimeEvent::Started(_) => return notices,
            other => panic!("before Started: {other:?}"),
        }
    }
    panic!("events closed: {notices:?}")
}

#[tokio::test]
async fn custom_commands_load_by_precedence_and_a_bad_file_is_a_warning() {
    let fx = Fixture::new(Script::new([Reply::text("reviewed")])).await;
    let project = fx.cwd().join(".claude/commands");
    let home = fx.home.path().join(".claude/commands");
    write(
        &project.join("review.md"),
        "---\ndescription: Review a PR\nargument-hint: <pr>\nmodel: haiku\n---\nReview PR $1.\n",
    );
    write(
        &project.join("frontend/component.md"),
        "Make a component named $1\n",
    );
    write(&project.join("bad.md"), "---\n[unclosed\n---\nbody\n");
    write(&home.join("review.md"), "the user's review, hidden\n");
    write(&home.join("standup.md"), "Summarise my day\n");
    write(&home.join("notes.txt"), "not a command\n");
    write(
        &fx.home.path().join(".tack/commands/tidy.md"),
        "---\nargument-hint: <dir>\n---\nTidy $ARGUMENTS\n",
    );
    let runtime = fx.start(SessionOptions::default()).await;
    let listed: Vec<(String, String, String, tack_runtime::CommandSource)> = runtime
        .info()
        .extensions
        .slash_commands
        .iter()
        .map(|c| {
            (
                c.name.clone(),
                c.description.clone(),
                c.argument_hint.clone(),
                c.source,
            )
        })
        .collect();
    use tack_runtime::CommandSource::{Builtin, Project, User};
    let row = |n: &str, d: &str, h: &str, s| (n.to_owned(), d.to_owned(), h.to_owned(), s);
    assert_eq!(
        listed,
        vec![
            row(
                "clear",
                "Clear conversation history and free up context",
                "",
                Builtin
            ),
            row(
                "compact",
                "Clear conversation history but keep a summary in context. Optional: /compact [instructions for summarization]",
                "<optional custom summarization instructions>",
                Builtin
            ),
            row(
                "init",
                "Initialize a new CLAUDE.md file with codebase documentation",
                "",
                Builtin
            ),
            row(
                "frontend:component",
                "Make a component named $1",
                "",
                Project
            ),
            row("review", "Review a PR", "<pr>", Project),
            row("standup", "Summarise my day", "", User),
            row("tidy", "Tidy $ARGUMENTS", "<dir>", User),
        ]
    );
    let (handle, mut events) = runtime.spawn();
    handle.submit(UserInput::text("/review 42")).unwrap();
    let notices = start_notices(&mut events).await;
    assert_eq!(notices.len(), 1, "{notices:?}");
    let bad = project.join("bad.md");
    assert!(
        notices[0].starts_with(&format!("warning: {}: bad frontmatter: ", bad.display()))
            && notices[0].ends_with("; command skipped"),
        "{notices:?}"
    );
    // The session goes on, and the command expands.
    assert_eq!(until_turn_end(&mut events).await, ["turn ended ok=true"]);
    let body = &fx.server.requests()[0].body;
    assert_eq!(body["model"], "claude-haiku-5-5");
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    let texts: Vec<&str> = last["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .filter(|t| !t.starts_with("<system-reminder>"))
        .collect();
    assert_eq!(
        texts,
        [
            "<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>42</command-args>",
            "Review PR 42.\n",
        ]
    );
}

/// A project command that runs `touch` and allows it for its turn.
fn touch_command(fx: &Fixture) {
    write(
        &fx.cwd().join(".claude/commands/touch.md"),
        "---\nallowed-tools: Bash(touch:*)\n---\nTouch one.txt\n",
    );
}

async fn touch_turn(fx: &Fixture) -> (Vec<String>, Vec<String>) {
    let runtime = fx.start(SessionOptions::default()).await;
    let (handle, mut events) = runtime.spawn();
    handle.submit(UserInput::text("/touch")).unwrap();
    let notices = start_notices(&mut events).await;
    (notices, until_turn_end(&mut events).await)
}

fn touch_script() -> Script {
    Script::new([
        Reply::message()
            .tool_use("t1", "Bash", json!({"command": "touch one.txt"}))
            .into(),
        Reply::text("done"),
    ])
}

#[tokio::test]
async fn a_trusted_project_command_allows_its_tools_for_its_turn() {
    let fx = Fixture::new(touch_script()).await;
    touch_command(&fx);
    let place = fx.place();
    tack_runtime::TrustStore::new(&place.config_dir)
        .trust(&fx.cwd(), false)
        .unwrap();
    let (notices, turn) = touch_turn(&fx).await;
    assert_eq!(notices, Vec::<String>::new());
    assert_eq!(
        turn,
        ["tool result error=false: (no output)", "turn ended ok=true"]
    );
}

#[tokio::test]
async fn an_untrusted_project_command_loses_its_allowed_tools() {
    let fx = Fixture::new(touch_script()).await;
    touch_command(&fx);
    let (notices, turn) = touch_turn(&fx).await;
    let file = fx.cwd().join(".claude/commands/touch.md");
    assert!(
        notices.contains(&format!(
            "warning: {}: allowed-tools ignored until the project is trusted (tack trust)",
            file.display()
        )),
        "{notices:?}"
    );
    assert_eq!(turn.len(), 2, "{turn:?}");
    assert!(turn[0].starts_with("tool result error=true: "), "{turn:?}");
    assert!(!fx.cwd().join("one.txt").exists());
}

#[tokio::test]
async fn an_unknown_command_ends_its_turn_without_a_request() {
    let fx = Fixture::new(Script::new([Reply::text("hello")])).await;
    let runtime = fx.start(SessionOptions::default()).await;
    let (handle, mut events) = runtime.spawn();
    handle.submit(UserInput::text("/nosuchcommand x")).unwrap();
    handle.submit(UserInput::text("hi")).unwrap();
    let mut ends = Vec::new();
    while ends.len() < 2 {
        match events.next().await.unwrap() {
            RuntimeEvent::TurnEnded(end) => ends.push((end.ok, end.error_line.clone())),
            RuntimeEvent::Ended => panic!("ended: {ends:?}"),
            _ => {}
        }
    }
    assert_eq!(
        ends,
        [
            (
                false,
                Some("Error: Unknown slash command: nosuchcommand".to_owned())
            ),
            (true, None)
        ]
    );
    assert_eq!(fx.server.requests().len(), 1);
}

/// What the rewind points of a session say: (text, has a checkpoint).
async fn points(handle: &tack_runtime::RuntimeHandle) -> Vec<(String, bool)> {
    let points = handle.rewind_points().await.unwrap();
    points
        .into_iter()
        .map(|p| (p.text, p.checkpoint.is_some()))
        .collect()
}

#[tokio::test]
async fn a_conversation_rewind_drops_the_prompt_and_after_and_a_resume_shows_the_branch() {
    let fx = Fixture::new(Script::new([])).await;
    let file = fx.cwd().join("f.txt");
    let write = json!({"file_path": file, "content": "v1\n"});
    fx.server.push(Reply::tool_use("toolu_1", "Write", write));
    for text in ["wrote", "second answer", "after rewind"] {
        fx.server.push(Reply::text(text));
    }
    let runtime = fx
        .start(SessionOptions {
            permissions: PermissionOptions {
                mode: Some(tack_runtime::PermissionMode::AcceptEdits),
                ..Default::default()
            },
            conversation: ConversationOptions {
                file_checkpointing: true,
                ..Default::default()
            },
            ..SessionOptions::default()
        })
        .await;
    let id = runtime.info().session_id.clone();
    let (handle, mut events) = runtime.spawn();
    handle.submit(UserInput::text("first")).unwrap();
    until_turn_end(&mut events).await;
    handle.submit(UserInput::text("second")).unwrap();
    until_turn_end(&mut events).await;
    assert_eq!(
        points(&handle).await,
        [("first".to_owned(), true), ("second".to_owned(), true)]
    );
    let all = handle.rewind_points().await.unwrap();

    // The first prompt's checkpoint: f.txt did not exist.
    let code = handle
        .rewind_files(all[0].checkpoint.clone().unwrap(), true)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(code.files_changed, vec![file]);

    // A prompt that is not there changes nothing.
    let unknown = handle.rewind_conversation("nope".into()).await.unwrap();
    assert!(matches!(
        unknown,
        Err(tack_runtime::RewindError::NotAPrompt)
    ));
    let dropped = handle.rewind_conversation(all[1].id.clone()).await.unwrap();
    let dropped = dropped.unwrap();
    assert_eq!(dropped.prompt, "second");
    let left: Vec<String> = dropped.messages.iter().map(|m| m.text()).collect();
    assert_eq!(left, ["first", "", "", "wrote"]);
    assert_eq!(points(&handle).await, [("first".to_owned(), true)]);

    // Refused while a turn runs (the submit is taken first).
    handle.submit(UserInput::text("third")).unwrap();
    let busy = handle.rewind_conversation(all[0].id.clone()).await.unwrap();
    assert!(matches!(busy, Err(tack_runtime::RewindError::TurnRunning)));
    until_turn_end(&mut events).await;
    // The next request went on from the rewound conversation.
    let last = fx.server.requests().last().unwrap().message_texts();
    assert_eq!(last, ["first", "", "", "wrote", "third"]);
    drop(handle);
    while events.next().await.is_some() {}

    let resumed = fx
        .start(SessionOptions {
            conversation: ConversationOptions {
                session: SessionChoice::Resume(id),
                ..Default::default()
            },
            ..SessionOptions::default()
        })
        .await;
    let texts: Vec<String> = resumed.messages().iter().map(|m| m.text()).collect();
    assert_eq!(texts, ["first", "", "", "wrote", "third", "after rewind"]);
}
