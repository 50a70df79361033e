//! The runtime with a front end that answers permission prompts, driven with
//! no CLI code: a minimal front end in the test.

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_core::LoopEvent;
use tack_protocol::ContentBlock;
use tack_runtime::{
    AskAnswer, PermissionAnswer, PermissionOptions, RuntimeEvent, RuntimeEvents, SessionOptions,
    UserInput,
};
use tack_testkit::{Reply, Script};

use crate::fixture::Fixture;

fn bash(id: &str, command: &str) -> Reply {
    Reply::message()
        .tool_use(id, "Bash", json!({"command": command}))
        .into()
}

/// Runs the session until it ends, answering each permission request with
/// the next of `answers`; returns (tool names asked about, tool results).
/// A session that asks its permission prompts, with `prompts` submitted and
/// its handle dropped (it ends after them).
async fn session_asking(fx: &Fixture, prompts: &[&str]) -> RuntimeEvents {
    let place = fx.place();
    let loaded = tack_runtime::load_settings(&place, None).unwrap();
    let options = SessionOptions {
        permissions: PermissionOptions {
            prompts: true,
            ..Default::default()
        },
        ..SessionOptions::default()
    };
    let runtime = tack_runtime::start(place, &loaded, options).await.unwrap();
    let (handle, events) = runtime.spawn();
    for p in prompts {
        handle.submit(UserInput::text(*p)).unwrap();
    }
    events
}

async fn drive(
    events: RuntimeEvents,
    answers: Vec<PermissionAnswer>,
) -> (Vec<String>, Vec<(String, bool)>, Vec<bool>) {
    let (asked, results, turns, notices) = drive_noting(events, answers).await;
    assert_eq!(notices, Vec::<String>::new(), "unexpected notices");
    (asked, results, turns)
}

/// [`drive`], also returning the notices' texts.
async fn drive_noting(
    mut events: RuntimeEvents,
    mut answers: Vec<PermissionAnswer>,
) -> (Vec<String>, Vec<(String, bool)>, Vec<bool>, Vec<String>) {
    let (mut asked, mut results, mut turns) = (Vec::new(), Vec::new(), Vec::new());
    let mut notices = Vec::new();
    while let Some(event) = events.next().await {
        match event {
            RuntimeEvent::PermissionRequest(request) => {
                asked.push(format!(
                    "{} {}",
                    request.tool_name, request.input["command"]
                ));
                let _ = events.answer(request.id, AskAnswer::Permission(answers.remove(0)));
            }
            RuntimeEvent::Loop(LoopEvent::ToolResults(r)) => {
                for block in &r.message.content {
                    if let ContentBlock::ToolResult {
                        content, is_error, ..
                    } = block
                    {
                        let text = content.as_ref().map(|c| c.to_text()).unwrap_or_default();
                        results.push((text, *is_error));
                    }
                }
            }
            RuntimeEvent::TurnEnded(end) => turns.push(end.ok),
            RuntimeEvent::Ended => break,
            RuntimeEvent::Notice(n) => notices.push(n.text),
            RuntimeEvent::HookCallback(c) => panic!("no client hooks here: {c:?}"),
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
    (asked, results, turns, notices)
}

fn local_settings(cwd: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(cwd.join(".claude/settings.local.json")).unwrap())
        .unwrap()
}

#[tokio::test]
async fn allow_always_runs_the_call_remembers_the_rule_and_saves_it() {
    let fx = Fixture::new(Script::new([
        bash("t1", "touch one.txt"),
        bash("t2", "touch one.txt"),
        Reply::text("done"),
    ]))
    .await;
    let events = session_asking(&fx, &["go"]).await;
    let (asked, results, turns) = drive(
        events,
        vec![PermissionAnswer::allow_always("Bash(touch one.txt)")],
    )
    .await;
    // Asked once: the second identical call is allowed by the new rule.
    assert_eq!(asked, ["Bash \"touch one.txt\""]);
    assert_eq!(
        results,
        [
            ("(no output)".to_owned(), false),
            ("(no output)".to_owned(), false)
        ]
    );
    assert_eq!(turns, [true]);
    assert_eq!(
        local_settings(&fx.cwd()),
        json!({"permissions": {"allow": ["Bash(touch one.txt)"]}})
    );
}

/// Issue 23 item 1: a rule holding control characters would not read as what
/// it matches; it is neither remembered nor saved.
#[tokio::test]
async fn allow_always_with_control_characters_allows_once_and_saves_nothing() {
    let command = "touch one.txt\u{1b}]0;x\u{7}";
    let fx = Fixture::new(Script::new([bash("t1", command), Reply::text("done")])).await;
    let events = session_asking(&fx, &["go"]).await;
    let rule = format!("Bash({command})");
    let (asked, _, turns, notices) =
        drive_noting(events, vec![PermissionAnswer::allow_always(&rule)]).await;
    assert_eq!(
        (asked.len(), turns, notices),
        (
            1,
            vec![true],
            vec![
                "warning: permission rule not added: `Bash(touch one.txt␛]0;x␇)` contains control characters"
                    .to_owned()
            ]
        )
    );
    assert!(!fx.cwd().join(".claude/settings.local.json").exists());
}

#[tokio::test]
async fn a_denial_with_interrupt_stops_the_turn_and_the_message_reaches_the_model() {
    let fx = Fixture::new(Script::new([
        bash("t1", "touch one.txt"),
        Reply::text("understood"),
        bash("t2", "touch two.txt"),
        Reply::text("never"),
    ]))
    .await;
    let events = session_asking(&fx, &["first", "second"]).await;
    let (asked, results, turns) = drive(
        events,
        vec![
            PermissionAnswer::Deny {
                message: "use printf instead".into(),
                interrupt: false,
            },
            PermissionAnswer::Deny {
                message: "stop".into(),
                interrupt: true,
            },
        ],
    )
    .await;
    assert_eq!(asked, ["Bash \"touch one.txt\"", "Bash \"touch two.txt\""]);
    assert_eq!(
        results,
        [
            ("use printf instead".to_owned(), true),
            ("stop".to_owned(), true)
        ]
    );
    // The first turn goes on after the denial; the second ends at the interrupt.
    assert_eq!(turns, [true, false]);
    let bodies: Vec<Value> = fx.server.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(bodies.len(), 3);
    assert!(bodies[1].to_string().contains("use printf instead"));
}
