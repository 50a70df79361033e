//! What a client front end (the Agent SDK protocol) asks of the runtime, driven
//! with no CLI code: hook callbacks for every event the runtime fires, user
//! messages appended without a turn, interrupt receipts before the result,
//! and the options the SDKs pass.

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_hooks::{CallbackHook, CallbackMatcher, OnFailure};
use tack_permissions::PermissionMode;
use tack_protocol::{Message, ThinkingConfig};
use tack_runtime::{
    AskAnswer, ConversationOptions, ExtensionOptions, HookAnswer, InterruptOutcome, Op,
    PermissionOptions, RequestOptions, RuntimeEvent, RuntimeEvents, SessionChoice, SessionOptions,
    UserInput,
};
use tack_testkit::{Reply, Script};

use crate::fixture::Fixture;

fn on(event: &str, matcher: Option<&str>, id: &str) -> CallbackMatcher {
    CallbackMatcher {
        event: event.to_owned(),
        matcher: matcher.map(str::to_owned),
        hooks: vec![CallbackHook {
            id: id.to_owned(),
            timeout: None,
            on_failure: OnFailure::Continue,
        }],
    }
}

/// Drives the session to its end, answering each hook call from `answers`
/// (by callback id; `{}` otherwise); returns the calls' (id, event, tool use id).
async fn drive_hooks(
    mut events: RuntimeEvents,
    answers: &[(&str, Value)],
) -> (Vec<(String, String, Option<String>)>, Vec<Value>) {
    let mut calls = Vec::new();
    let mut results = Vec::new();
    while let Some(event) = events.next().await {
        match event {
            RuntimeEvent::HookCallback(call) => {
                let event = call.input["hook_event_name"].as_str().unwrap().to_owned();
                calls.push((call.callback_id.clone(), event, call.tool_use_id.clone()));
                let answer = answers
                    .iter()
                    .find(|(id, _)| *id == call.callback_id)
                    .map_or_else(|| json!({}), |(_, v)| v.clone());
                let _ = events.answer(call.id, AskAnswer::Hook(HookAnswer::Output(answer)));
            }
            RuntimeEvent::TurnEnded(end) => {
                results.push(serde_json::to_value(&end.record).unwrap());
            }
            RuntimeEvent::Ended => break,
            RuntimeEvent::Notice(n) => panic!("unexpected notice {n:?}"),
            RuntimeEvent::PermissionRequest(r) => panic!("unexpected prompt {r:?}"),
            RuntimeEvent::Started(_)
            | RuntimeEvent::Loop(_)
            | RuntimeEvent::CompactEnded { .. }
            | RuntimeEvent::Hook(_)
            | RuntimeEvent::ConversationReset(_)
            | RuntimeEvent::TranscriptMirror(_)
            | RuntimeEvent::Task(_)
            | RuntimeEvent::Teammate(_)
            | RuntimeEvent::SessionState(_)
            | RuntimeEvent::PermissionDenied(_)
            | RuntimeEvent::Input(_)
            | RuntimeEvent::AskWithdrawn { .. }
            | RuntimeEvent::Reply { .. }
            | RuntimeEvent::Subagent(_) => {}
        }
    }
    (calls, results)
}

#[tokio::test]
async fn client_hooks_see_every_event_and_their_answers_apply() {
    let fx = Fixture::new(Script::new([
        Reply::tool_use("toolu_1", "Bash", json!({"command": "echo original"})),
        Reply::text("done"),
    ]))
    .await;
    let options = SessionOptions {
        extensions: ExtensionOptions {
            hook_callbacks: vec![
                on("SessionStart", None, "start"),
                on("UserPromptSubmit", None, "prompt"),
                on("PreToolUse", Some("Bash"), "pre"),
                on("PreToolUse", Some("Read"), "pre_read"),
                on("PostToolUse", None, "post"),
                on("Stop", None, "stop"),
                on("SessionEnd", None, "end"),
            ],
            ..Default::default()
        },
        ..SessionOptions::default()
    };
    let runtime = fx.start(options).await;
    let (handle, events) = runtime.spawn();
    handle.submit(UserInput::text("go")).unwrap();
    drop(handle);
    let context = |event: &str, text: &str| json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}});
    let (calls, results) = drive_hooks(
        events,
        &[
            ("start", context("SessionStart", "ctx from SessionStart")),
            (
                "prompt",
                context("UserPromptSubmit", "ctx from UserPromptSubmit"),
            ),
            (
                "pre",
                json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                    "permissionDecision": "allow", "updatedInput": {"command": "echo rewritten"}}}),
            ),
            ("post", context("PostToolUse", "ctx from PostToolUse")),
        ],
    )
    .await;
    let call = |id: &str, event: &str, tool: Option<&str>| {
        (id.to_owned(), event.to_owned(), tool.map(str::to_owned))
    };
    assert_eq!(
        calls,
        [
            call("start", "SessionStart", None),
            call("prompt", "UserPromptSubmit", None),
            call("pre", "PreToolUse", Some("toolu_1")),
            call("post", "PostToolUse", Some("toolu_1")),
            call("stop", "Stop", None),
            call("end", "SessionEnd", None),
        ]
    );
    assert_eq!(results[0]["subtype"], "success");
    let bodies = fx.bodies();
    let first = bodies[0]["messages"].to_string();
    assert!(first.contains("ctx from SessionStart"), "{first}");
    assert!(first.contains("ctx from UserPromptSubmit"), "{first}");
    // The rewritten command ran, and the PostToolUse context reached the model.
    let second = bodies[1]["messages"].to_string();
    assert!(second.contains("rewritten"), "{second}");
    assert!(!second.contains("original\\n"), "{second}");
    assert!(second.contains("ctx from PostToolUse"), "{second}");
}

#[tokio::test]
async fn a_client_hook_that_denies_stops_the_call() {
    let fx = Fixture::new(Script::new([
        Reply::tool_use("toolu_1", "Bash", json!({"command": "rm -rf build"})),
        Reply::text("ok, I won't"),
    ]))
    .await;
    let options = SessionOptions {
        permissions: PermissionOptions {
            mode: Some(PermissionMode::BypassPermissions),
            ..Default::default()
        },
        extensions: ExtensionOptions {
            hook_callbacks: vec![on("PreToolUse", None, "guard")],
            ..Default::default()
        },
        ..SessionOptions::default()
    };
    let runtime = fx.start(options).await;
    let (handle, events) = runtime.spawn();
    handle
        .submit(UserInput {
            message: Message::user_text("clean"),
            uuid: Some("u-1".into()),
            origin: None,
            verbatim: false,
        })
        .unwrap();
    drop(handle);
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "no deleting"}});
    let (_, results) = drive_hooks(events, &[("guard", deny)]).await;
    assert_eq!(
        results[0]["permission_denials"],
        json!([{"tool_name": "Bash", "tool_use_id": "toolu_1", "tool_input": {"command": "rm -rf build"}}])
    );
    assert_eq!(results[0]["user_message_uuid"], "u-1");
    let second = fx.bodies()[1]["messages"].to_string();
    assert!(
        second.contains("PreToolUse hook denied this tool call: no deleting"),
        "{second}"
    );
}

#[tokio::test]
async fn an_appended_message_goes_with_the_next_turn() {
    let fx = Fixture::new(Script::new([Reply::text("noted both")])).await;
    let runtime = fx.start(SessionOptions::default()).await;
    let transcript = runtime.info().transcript_path.clone().unwrap();
    let (handle, events) = runtime.spawn();
    handle
        .send(Op::Append(UserInput::text("background: the build is red")))
        .unwrap();
    handle
        .submit(UserInput {
            message: Message::user_text("what now?"),
            uuid: Some("q".into()),
            origin: None,
            verbatim: false,
        })
        .unwrap();
    drop(handle);
    let (_, results) = drive_hooks(events, &[]).await;
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["user_message_uuid"], "q");
    let bodies = fx.bodies();
    assert_eq!(bodies.len(), 1);
    let texts: Vec<&str> = bodies[0]["messages"][0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .filter(|t| !t.starts_with("<system-reminder>"))
        .collect();
    assert_eq!(texts, ["background: the build is red", "what now?"]);
    // Both are in the transcript, so a resume has them.
    let loaded = tack_store::load(&transcript).unwrap();
    assert_eq!(
        loaded.messages[0].text(),
        "background: the build is redwhat now?"
    );
}

#[tokio::test]
async fn an_interrupt_receipt_lists_the_queue_and_comes_before_the_result() {
    let fx = Fixture::new(Script::new([
        Reply::message()
            .text("a long answer")
            .stall_after(3, Duration::from_secs(30))
            .into(),
        Reply::text("second"),
    ]))
    .await;
    let runtime = fx.start(SessionOptions::default()).await;
    let (handle, mut events) = runtime.spawn();
    // Idle: nothing to stop, nothing queued.
    let idle = handle.interrupt_with_receipt(false).await.unwrap();
    assert_eq!(
        (idle.outcome, idle.still_queued, idle.cancelled),
        (InterruptOutcome::Idle, vec![], vec![])
    );
    for (text, uuid) in [("first", "a"), ("second", "b"), ("third", "c")] {
        handle
            .submit(UserInput {
                message: Message::user_text(text),
                uuid: Some(uuid.into()),
                origin: None,
                verbatim: false,
            })
            .unwrap();
    }
    while fx.server.requests().is_empty() {
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut plain = handle.interrupt_with_receipt(false);
    let mut results = Vec::new();
    let mut receipt = None;
    while let Some(event) = events.next().await {
        if let RuntimeEvent::TurnEnded(end) = event {
            // The receipt was sent before this event.
            receipt.get_or_insert_with(|| plain.try_recv().unwrap().unwrap());
            results.push(end.record.user_message_uuid.clone());
            if results.len() == 1 {
                // Now drop what is still queued.
                let cancelled = handle.interrupt_with_receipt(true).await.unwrap();
                assert_eq!(cancelled.outcome, InterruptOutcome::Interrupted);
                assert_eq!(cancelled.cancelled, ["c"]);
                assert_eq!(cancelled.still_queued, Vec::<String>::new());
                handle.send(Op::SetModel(None)).unwrap();
                break;
            }
        }
    }
    let receipt = receipt.unwrap();
    assert_eq!(
        (receipt.outcome, receipt.still_queued, receipt.cancelled),
        (
            InterruptOutcome::Interrupted,
            vec!["b".to_owned(), "c".to_owned()],
            vec![]
        )
    );
    drop(handle);
    while let Some(event) = events.next().await {
        if let RuntimeEvent::TurnEnded(end) = event {
            results.push(end.record.user_message_uuid.clone());
        }
    }
    // "b" was running when the second interrupt came (it stopped too); "c" never ran.
    assert_eq!(results, [Some("a".into()), Some("b".into())]);
}

#[tokio::test]
async fn switching_to_bypass_needs_the_session_to_allow_it() {
    let fx = Fixture::new(Script::new([])).await;
    let runtime = fx.start(SessionOptions::default()).await;
    let (handle, _events) = runtime.spawn();
    let refused = handle
        .set_permission_mode(PermissionMode::BypassPermissions)
        .await
        .unwrap();
    assert_eq!(refused, Err(tack_runtime::ModeError::BypassUnavailable));
    assert_eq!(
        handle
            .set_permission_mode(PermissionMode::AcceptEdits)
            .await
            .unwrap(),
        Ok(())
    );
    let runtime = fx
        .start(SessionOptions {
            permissions: PermissionOptions {
                allow_bypass: true,
                ..Default::default()
            },
            ..SessionOptions::default()
        })
        .await;
    let (handle, _events) = runtime.spawn();
    assert_eq!(
        handle
            .set_permission_mode(PermissionMode::BypassPermissions)
            .await
            .unwrap(),
        Ok(())
    );
}

#[tokio::test]
async fn tools_thinking_effort_and_betas_shape_the_request() {
    let fx = Fixture::new(Script::new([Reply::text("hi")])).await;
    let runtime = fx
        .start(SessionOptions {
            request: RequestOptions {
                thinking: Some(ThinkingConfig::Enabled {
                    budget_tokens: 2000,
                    display: None,
                }),
                effort: Some("high".into()),
                betas: vec!["extra-beta-1".into()],
                ..Default::default()
            },
            extensions: ExtensionOptions {
                tools: Some(vec!["Read".into(), "Glob".into()]),
                ..Default::default()
            },
            ..SessionOptions::default()
        })
        .await;
    assert_eq!(runtime.info().tools, ["Read", "Glob"]);
    let (handle, events) = runtime.spawn();
    handle.submit(UserInput::text("hi")).unwrap();
    drop(handle);
    drive_hooks(events, &[]).await;
    let request = &fx.server.requests()[0];
    let tools: Vec<&str> = request.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["Read", "Glob"]);
    assert_eq!(
        (&request.body["thinking"], &request.body["output_config"]),
        (
            &json!({"type": "enabled", "budget_tokens": 2000}),
            &json!({"effort": "high"})
        )
    );
    assert!(
        request
            .header("anthropic-beta")
            .is_some_and(|b| b.split(',').any(|b| b == "extra-beta-1")),
        "{:?}",
        request.header("anthropic-beta")
    );

    let place = fx.place();
    let loaded = tack_runtime::load_settings(&place, None).unwrap();
    let options = SessionOptions {
        extensions: ExtensionOptions {
            tools: Some(vec!["Read".into(), "Telepathy".into()]),
            ..Default::default()
        },
        ..SessionOptions::default()
    };
    let Err(e) = tack_runtime::start(place, &loaded, options).await else {
        panic!("an unknown tool must not start");
    };
    assert!(
        e.to_string()
            .starts_with("--tools: unknown tool Telepathy; the built-in tools are: "),
        "{e}"
    );
    // Refused before its transcript was created: only the first session has one.
    let store = tack_store::SessionStore::new(fx.home.path().join(".claude"));
    assert_eq!(store.list_sessions(&fx.cwd()).unwrap().len(), 1);
}

#[tokio::test]
async fn a_fork_continues_in_a_new_session_and_resume_at_cuts_the_history() {
    let fx = Fixture::new(Script::new([
        Reply::text("one"),
        Reply::text("two"),
        Reply::text("forked"),
        Reply::text("from the start"),
    ]))
    .await;
    let runtime = fx.start(SessionOptions::default()).await;
    let original = runtime.info().session_id.clone();
    let path = runtime.info().transcript_path.clone().unwrap();
    let (handle, events) = runtime.spawn();
    handle.submit(UserInput::text("first")).unwrap();
    handle.submit(UserInput::text("second")).unwrap();
    drop(handle);
    drive_hooks(events, &[]).await;
    let before = std::fs::read_to_string(&path).unwrap();

    let runtime = fx
        .start(SessionOptions {
            conversation: ConversationOptions {
                session: SessionChoice::Resume(original.clone()),
                fork: true,
                ..Default::default()
            },
            ..SessionOptions::default()
        })
        .await;
    let fork = runtime.info().clone();
    assert_ne!(fork.session_id, original);
    let (handle, events) = runtime.spawn();
    handle.submit(UserInput::text("third")).unwrap();
    drop(handle);
    let (_, results) = drive_hooks(events, &[]).await;
    assert_eq!(results[0]["session_id"], fork.session_id.as_str());
    // The original is untouched; the fork holds the history and the new turn.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    let forked = tack_store::load(fork.transcript_path.as_ref().unwrap()).unwrap();
    let texts: Vec<String> = forked.messages.iter().map(Message::text).collect();
    assert_eq!(texts, ["first", "one", "second", "two", "third", "forked"]);
    assert_eq!(forked.session_id, fork.session_id);

    // Resume at the first answer: the second exchange is not sent.
    let first_answer = before
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["type"] == "assistant")
        .unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_owned();
    let runtime = fx
        .start(SessionOptions {
            conversation: ConversationOptions {
                session: SessionChoice::Resume(original),
                resume_at: Some(first_answer),
                ..Default::default()
            },
            ..SessionOptions::default()
        })
        .await;
    let (handle, events) = runtime.spawn();
    handle.submit(UserInput::text("again")).unwrap();
    drop(handle);
    drive_hooks(events, &[]).await;
    let last = fx.bodies().pop().unwrap();
    let sent: Vec<String> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].to_string())
        .collect();
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert!(
        sent[1].contains("one") && sent[2].contains("again"),
        "{sent:?}"
    );
}

#[tokio::test]
async fn the_users_shell_commands_go_into_the_conversation_and_an_interrupt_stops_one() {
    let fx = Fixture::new(Script::new([Reply::text("seen")])).await;
    let runtime = fx.start(SessionOptions::default()).await;
    let (handle, mut events) = runtime.spawn();
    let echo = "echo from-shell; echo err >&2";
    let ran_first = handle.run_shell(echo.to_owned());
    let ran_second = handle.run_shell("sleep 30".to_owned());
    let first = ran_first.await.unwrap();
    // The second runs now (work runs in order, commands are read during it).
    let started = std::time::Instant::now();
    assert_eq!(
        handle.interrupt().await.unwrap(),
        InterruptOutcome::Interrupted
    );
    let second = ran_second.await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        (first.stdout.as_str(), first.stderr.as_str(), first.code),
        ("from-shell\n", "err\n", Some(0))
    );
    assert_eq!(
        (second.code, second.stopped.as_deref()),
        (None, Some("interrupted"))
    );
    handle.submit(UserInput::text("what happened?")).unwrap();
    drop(handle);
    while events.next().await.is_some() {}
    let bodies = fx.bodies();
    assert_eq!(bodies.len(), 1);
    let texts: Vec<&str> = bodies[0]["messages"][0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .filter(|t| !t.starts_with("<system-reminder>"))
        .collect();
    assert_eq!(
        texts,
        [
            "<bash-input>echo from-shell; echo err >&2</bash-input>",
            "<bash-stdout>from-shell\n</bash-stdout><bash-stderr>err\n</bash-stderr>",
            "<bash-input>sleep 30</bash-input>",
            "<bash-stdout></bash-stdout><bash-stderr>interrupted</bash-stderr>",
            "what happened?",
        ]
    );
}

#[tokio::test]
async fn a_note_goes_to_the_projects_memory_file() {
    let fx = Fixture::new(Script::new(Vec::<Reply>::new())).await;
    std::fs::write(fx.cwd().join("AGENTS.md"), "# Agents\n").unwrap();
    let runtime = fx.start(SessionOptions::default()).await;
    let (handle, _events) = runtime.spawn();
    let written = handle.add_note(" run make test ".to_owned());
    assert_eq!(written.await.unwrap(), Ok(fx.cwd().join("AGENTS.md")));
    assert_eq!(
        std::fs::read_to_string(fx.cwd().join("AGENTS.md")).unwrap(),
        "# Agents\n- run make test\n"
    );
}
