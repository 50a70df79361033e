//! Callback hooks (an Agent SDK's `hooks`): matched like command hooks, called
//! through the executor with the command hooks' input, and their answers folded
//! into the same outcome; failures, timeouts and cancellation have outcomes.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_hooks::{
    CallbackCall, CallbackHook, CallbackMatcher, HookCallbacks, HookEvent, HookOutcome, HookRunner,
    HooksConfig, OnFailure, PermissionDecision, RunStatus,
};
use tokio_util::sync::CancellationToken;

/// What the fake client answers for a callback id.
#[derive(Clone)]
enum Answer {
    Json(Value),
    Error(&'static str),
    Never,
}

/// A client that records each call and answers from a table; `dropped` counts
/// calls abandoned before they answered.
struct Client {
    answers: Vec<(&'static str, Answer)>,
    calls: Mutex<Vec<CallbackCall>>,
    dropped: Arc<Mutex<Vec<String>>>,
}

/// Pushes the callback id to `dropped` unless disarmed.
struct DropProbe(Option<(String, Arc<Mutex<Vec<String>>>)>);

impl DropProbe {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for DropProbe {
    fn drop(&mut self) {
        if let Some((id, dropped)) = self.0.take() {
            dropped.lock().unwrap().push(id);
        }
    }
}

impl HookCallbacks for Client {
    fn call(&self, call: CallbackCall) -> BoxFuture<'static, Result<Value, String>> {
        let answer = self
            .answers
            .iter()
            .find(|(id, _)| *id == call.callback_id)
            .map(|(_, a)| a.clone())
            .unwrap_or(Answer::Error("unknown id"));
        let probe = DropProbe(Some((call.callback_id.clone(), self.dropped.clone())));
        self.calls.lock().unwrap().push(call);
        Box::pin(async move {
            let mut probe = probe;
            let out = match answer {
                Answer::Json(v) => Ok(v),
                Answer::Error(e) => Err(e.to_owned()),
                Answer::Never => std::future::pending().await,
            };
            probe.disarm();
            out
        })
    }
}

fn client(answers: Vec<(&'static str, Answer)>) -> Arc<Client> {
    Arc::new(Client {
        answers,
        calls: Mutex::new(Vec::new()),
        dropped: Arc::new(Mutex::new(Vec::new())),
    })
}

fn hook(id: &str) -> CallbackHook {
    CallbackHook {
        id: id.to_owned(),
        timeout: None,
        on_failure: OnFailure::Continue,
    }
}

fn runner(registrations: &[CallbackMatcher], client: Arc<Client>) -> HookRunner {
    let mut config = HooksConfig::new();
    for r in registrations {
        config.add_callbacks("sdk", r).unwrap();
    }
    let mut r = HookRunner::new(config, Path::new("/p"), "sess-1", Path::new("/t.jsonl"))
        .with_callbacks(client);
    r.set_permission_mode("default");
    r
}

fn on(event: &str, matcher: Option<&str>, hooks: Vec<CallbackHook>) -> CallbackMatcher {
    CallbackMatcher {
        event: event.to_owned(),
        matcher: matcher.map(str::to_owned),
        hooks,
    }
}

fn pre(tool: &str, input: Value) -> HookEvent {
    HookEvent::PreToolUse {
        tool_name: tool.into(),
        tool_input: input,
        tool_use_id: "toolu_1".into(),
    }
}

async fn run(r: &HookRunner, e: &HookEvent) -> HookOutcome {
    r.run(e, &CancellationToken::new()).await
}

#[tokio::test]
async fn a_callback_gets_the_command_hooks_input_and_only_for_matching_tools() {
    let c = client(vec![("hook_0", Answer::Json(json!({})))]);
    let r = runner(
        &[on("PreToolUse", Some("Bash"), vec![hook("hook_0")])],
        c.clone(),
    );
    let event = pre("Bash", json!({"command": "ls"}));
    let o = run(&r, &event).await;
    run(&r, &pre("Read", json!({"file_path": "/a"}))).await;
    assert_eq!(
        *c.calls.lock().unwrap(),
        [CallbackCall {
            callback_id: "hook_0".into(),
            input: r.input_json(&event),
            tool_use_id: Some("toolu_1".into()),
        }]
    );
    assert_eq!(o.permission_decision(), None);
    assert_eq!(o.errors(), &[] as &[String]);
    assert_eq!(o.runs()[0].command, "callback hook_0");
    assert_eq!(o.runs()[0].status, RunStatus::Exited(0));
    assert!(r.has_hooks("PreToolUse"));
    assert!(!r.has_hooks("PostToolUse"));
}

#[tokio::test]
async fn a_pre_tool_use_callback_denies_or_rewrites_the_input() {
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "no rm"}});
    let rewrite = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "allow", "updatedInput": {"command": "ls -la"}}});
    let c = client(vec![
        ("deny", Answer::Json(deny)),
        ("rewrite", Answer::Json(rewrite)),
    ]);
    let r = runner(
        &[
            on("PreToolUse", Some("Bash"), vec![hook("rewrite")]),
            on("PreToolUse", Some("Bash"), vec![hook("deny")]),
        ],
        c,
    );
    let o = run(&r, &pre("Bash", json!({"command": "rm -rf /"}))).await;
    assert_eq!(
        o.permission_decision(),
        Some((PermissionDecision::Deny, Some("no rm")))
    );
    assert_eq!(o.updated_input(), Some(&json!({"command": "ls -la"})));

    let c = client(vec![(
        "rewrite",
        Answer::Json(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "updatedInput": {"command": "ls -la"}}})),
    )]);
    let r = runner(&[on("PreToolUse", None, vec![hook("rewrite")])], c);
    let o = run(&r, &pre("Bash", json!({"command": "ls"}))).await;
    assert_eq!(o.permission_decision(), None);
    assert_eq!(o.updated_input(), Some(&json!({"command": "ls -la"})));
}

#[tokio::test]
async fn post_tool_use_context_user_prompt_blocks_and_stop_blocks() {
    let c = client(vec![
        (
            "ctx",
            Answer::Json(
                json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
                "additionalContext": "the file is generated"}}),
            ),
        ),
        (
            "prompt",
            Answer::Json(json!({"decision": "block", "reason": "no secrets"})),
        ),
        (
            "stop",
            Answer::Json(json!({"decision": "block", "reason": "run the tests"})),
        ),
    ]);
    let r = runner(
        &[
            on("PostToolUse", Some("Write"), vec![hook("ctx")]),
            on("UserPromptSubmit", None, vec![hook("prompt")]),
            on("Stop", None, vec![hook("stop")]),
        ],
        c,
    );
    let post = HookEvent::PostToolUse {
        tool_name: "Write".into(),
        tool_input: json!({}),
        tool_response: json!({}),
        tool_use_id: "toolu_2".into(),
    };
    let o = run(&r, &post).await;
    assert_eq!(
        o.additional_context().as_deref(),
        Some("the file is generated")
    );
    let o = run(
        &r,
        &HookEvent::UserPromptSubmit {
            prompt: "the key is ...".into(),
        },
    )
    .await;
    assert_eq!(o.blocked().as_deref(), Some("no secrets"));
    let o = run(
        &r,
        &HookEvent::Stop {
            stop_hook_active: false,
            last_assistant_message: None,
            session_crons: None,
        },
    )
    .await;
    assert_eq!(o.blocked().as_deref(), Some("run the tests"));
}

#[tokio::test]
async fn failed_and_malformed_answers_are_errors_or_blocks_as_registered() {
    let c = client(vec![
        ("err", Answer::Error("callback raised ValueError")),
        ("bad", Answer::Json(json!(["not", "an", "object"]))),
        (
            "async",
            Answer::Json(json!({"async": true, "decision": "block"})),
        ),
    ]);
    let r = runner(
        &[on(
            "PreToolUse",
            None,
            vec![hook("err"), hook("bad"), hook("async")],
        )],
        c.clone(),
    );
    let o = run(&r, &pre("Bash", json!({}))).await;
    assert_eq!(
        o.errors(),
        [
            "PreToolUse hook error: `callback err` failed: callback raised ValueError",
            "PreToolUse hook error: `callback bad` failed: answered with [\"not\",\"an\",\"object\"], not a JSON object",
        ]
    );
    // A deferred (`async`) answer decides nothing.
    assert_eq!(o.permission_decision(), None);

    let blocking = CallbackHook {
        on_failure: OnFailure::Block,
        ..hook("err")
    };
    let r = runner(&[on("PreToolUse", None, vec![blocking])], c);
    let o = run(&r, &pre("Bash", json!({}))).await;
    let message = "PreToolUse hook error: `callback err` failed: callback raised ValueError";
    assert_eq!(
        o.permission_decision(),
        Some((PermissionDecision::Deny, Some(message)))
    );
    assert_eq!(o.blocked().as_deref(), Some(message));
}

#[tokio::test(start_paused = true)]
async fn a_callback_that_never_answers_times_out_and_is_abandoned() {
    let c = client(vec![("slow", Answer::Never)]);
    let slow = CallbackHook {
        timeout: Some(Duration::from_secs(5)),
        ..hook("slow")
    };
    let r = runner(&[on("Stop", None, vec![slow])], c.clone());
    let o = run(
        &r,
        &HookEvent::Stop {
            stop_hook_active: false,
            last_assistant_message: None,
            session_crons: None,
        },
    )
    .await;
    assert_eq!(
        o.errors(),
        ["Stop hook error: `callback slow` failed: did not answer within 5.0s"]
    );
    assert_eq!(o.blocked(), None);
    assert_eq!(*c.dropped.lock().unwrap(), ["slow"]);

    // The default timeout applies without one.
    let r = runner(&[on("Stop", None, vec![hook("slow")])], c.clone())
        .with_default_timeout(Duration::from_secs(2));
    let o = run(
        &r,
        &HookEvent::Stop {
            stop_hook_active: false,
            last_assistant_message: None,
            session_crons: None,
        },
    )
    .await;
    assert_eq!(
        o.errors(),
        ["Stop hook error: `callback slow` failed: did not answer within 2.0s"]
    );
}

#[tokio::test]
async fn cancelling_the_event_abandons_the_call_without_an_error() {
    let c = client(vec![("slow", Answer::Never)]);
    let r = runner(&[on("PreToolUse", None, vec![hook("slow")])], c.clone());
    let cancel = CancellationToken::new();
    cancel.cancel();
    let o = r.run(&pre("Bash", json!({})), &cancel).await;
    assert_eq!(o.runs()[0].status, RunStatus::Cancelled);
    assert_eq!(o.errors(), &[] as &[String]);
    assert_eq!(*c.dropped.lock().unwrap(), ["slow"]);
}

#[tokio::test]
async fn without_an_executor_a_matching_callback_is_an_error() {
    let mut config = HooksConfig::new();
    config
        .add_callbacks("sdk", &on("PreToolUse", None, vec![hook("hook_0")]))
        .unwrap();
    let r = HookRunner::new(config, Path::new("/p"), "s", Path::new("/t.jsonl"));
    let o = run(&r, &pre("Bash", json!({}))).await;
    assert_eq!(
        o.errors(),
        ["PreToolUse hook error: `callback hook_0` failed: no client is connected to answer it"]
    );
}

#[test]
fn registrations_check_matchers_and_warn_about_unknown_events() {
    let mut config = HooksConfig::new();
    let err = config
        .add_callbacks("sdk", &on("PreToolUse", Some("(["), vec![hook("h")]))
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("invalid hooks configuration in sdk: hooks.PreToolUse matcher"),
        "{err}"
    );
    config
        .add_callbacks("sdk", &on("Elicitation", None, vec![hook("h")]))
        .unwrap();
    assert_eq!(
        config.warnings(),
        ["sdk: hooks for `Elicitation` are ignored (event not supported)"]
    );
    assert!(!config.has_hooks("Elicitation"));
}
