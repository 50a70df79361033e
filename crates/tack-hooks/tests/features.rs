//! The events added after the core set (their input fields and decisions) and
//! the handler options plugins use: `if`, `once`, `asyncRewake`, `http` and
//! `prompt` hooks.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_hooks::{HookEvent, HookRunner, HookServices, PROMPT_HOOK_SYSTEM, PermissionDecision};
use tokio_util::sync::CancellationToken;

use crate::hooks::Fx;

/// A hook for `event` that saves its input as `<event>.json`, then runs `then`.
fn dumping(fx: &Fx, event: &str, then: &str) -> HookRunner {
    let s = fx.script(
        &format!("{event}.sh"),
        &format!("cat > \"$CLAUDE_PROJECT_DIR/{event}.json\"; {then}"),
    );
    fx.runner(json!({event: [{"hooks": [{"type": "command", "command": s}]}]}))
}

fn dumped(fx: &Fx, event: &str) -> Value {
    let text = std::fs::read_to_string(fx.path().join(format!("{event}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The fields every hook input of `fx`'s runners has.
fn base(fx: &Fx, event: &str) -> Value {
    json!({"session_id": "sess-1", "transcript_path": fx.path().join("transcript.jsonl"),
           "cwd": fx.path(), "hook_event_name": event, "permission_mode": "default"})
}

fn with(mut base: Value, fields: Value) -> Value {
    if let (Value::Object(b), Value::Object(f)) = (&mut base, fields) {
        b.extend(f);
    }
    base
}

fn never() -> CancellationToken {
    CancellationToken::new()
}

#[tokio::test]
async fn every_new_event_sends_claude_codes_input_fields() {
    let fx = Fx::new();
    let events = vec![
        (
            HookEvent::PostToolUseFailure {
                tool_name: "Bash".into(),
                tool_input: json!({"command": "false"}),
                tool_use_id: "t1".into(),
                error: "Exit code 1".into(),
                is_interrupt: false,
            },
            json!({"tool_name": "Bash", "tool_input": {"command": "false"}, "tool_use_id": "t1",
                   "error": "Exit code 1", "is_interrupt": false}),
        ),
        (
            HookEvent::PermissionRequest {
                tool_name: "Write".into(),
                tool_input: json!({"file_path": "/x"}),
                permission_suggestions: vec![json!({"type": "addRules"})],
            },
            json!({"tool_name": "Write", "tool_input": {"file_path": "/x"},
                   "permission_suggestions": [{"type": "addRules"}]}),
        ),
        (
            HookEvent::PermissionDenied {
                tool_name: "Bash".into(),
                tool_input: json!({"command": "rm -rf /"}),
                tool_use_id: "t2".into(),
                reason: "denied by rule".into(),
            },
            json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"},
                   "tool_use_id": "t2", "reason": "denied by rule"}),
        ),
        (
            HookEvent::SubagentStart {
                agent_id: "a1".into(),
                agent_type: "Explore".into(),
            },
            json!({"agent_id": "a1", "agent_type": "Explore"}),
        ),
        (
            HookEvent::PostCompact {
                trigger: "manual".into(),
                compact_summary: "sum".into(),
            },
            json!({"trigger": "manual", "compact_summary": "sum"}),
        ),
        (
            HookEvent::InstructionsLoaded {
                file_path: "/p/CLAUDE.md".into(),
                memory_type: "Project".into(),
                load_reason: "session_start".into(),
                globs: None,
                trigger_file_path: None,
                parent_file_path: None,
            },
            json!({"file_path": "/p/CLAUDE.md", "memory_type": "Project",
                   "load_reason": "session_start"}),
        ),
        (
            HookEvent::InstructionsLoaded {
                file_path: "/p/.claude/rules/rs.md".into(),
                memory_type: "Project".into(),
                load_reason: "path_glob_match".into(),
                globs: Some(vec!["src/**/*.rs".into()]),
                trigger_file_path: Some("/p/src/a.rs".into()),
                parent_file_path: None,
            },
            json!({"file_path": "/p/.claude/rules/rs.md", "memory_type": "Project",
                   "load_reason": "path_glob_match", "globs": ["src/**/*.rs"],
                   "trigger_file_path": "/p/src/a.rs"}),
        ),
        (
            HookEvent::ConfigChange {
                source: "project_settings".into(),
                file_path: "/p/.claude/settings.json".into(),
            },
            json!({"source": "project_settings", "file_path": "/p/.claude/settings.json"}),
        ),
        (
            HookEvent::CwdChanged {
                old_cwd: "/p".into(),
                new_cwd: "/p/sub".into(),
            },
            json!({"old_cwd": "/p", "new_cwd": "/p/sub"}),
        ),
        (
            HookEvent::FileChanged {
                file_path: "/p/.envrc".into(),
                event: "change".into(),
            },
            json!({"file_path": "/p/.envrc", "event": "change"}),
        ),
    ];
    for (event, fields) in events {
        let name = event.name();
        let o = dumping(&fx, name, "true").run(&event, &never()).await;
        assert_eq!(o.errors(), &[] as &[String], "{name}");
        assert_eq!(dumped(&fx, name), with(base(&fx, name), fields), "{name}");
    }
}

#[tokio::test]
async fn matchers_of_the_new_events() {
    let fx = Fx::new();
    let s = fx.script("ok.sh", "cat >/dev/null; echo ran");
    let r = fx.runner(json!({
        "FileChanged": [{"matcher": ".envrc|.env", "hooks": [{"type": "command", "command": s}]}],
        "InstructionsLoaded": [{"matcher": "session_start", "hooks": [{"type": "command", "command": s}]}],
    }));
    let changed = |p: &str| HookEvent::FileChanged {
        file_path: p.into(),
        event: "change".into(),
    };
    assert_eq!(r.run(&changed("/p/.envrc"), &never()).await.runs().len(), 1);
    assert_eq!(
        r.run(&changed("/p/x.envrc"), &never()).await.runs().len(),
        0
    );
    let loaded = |reason: &str| HookEvent::InstructionsLoaded {
        file_path: "/p/CLAUDE.md".into(),
        memory_type: "Project".into(),
        load_reason: reason.into(),
        globs: None,
        trigger_file_path: None,
        parent_file_path: None,
    };
    assert_eq!(
        r.run(&loaded("session_start"), &never()).await.runs().len(),
        1
    );
    assert_eq!(r.run(&loaded("compact"), &never()).await.runs().len(), 0);
}

fn permission_request() -> HookEvent {
    HookEvent::PermissionRequest {
        tool_name: "Bash".into(),
        tool_input: json!({"command": "make"}),
        permission_suggestions: Vec::new(),
    }
}

#[tokio::test]
async fn permission_request_decisions() {
    let fx = Fx::new();
    let allow = r#"echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"command": "make -j2"}, "updatedPermissions": [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]}}}'"#;
    let o = dumping(&fx, "PermissionRequest", allow)
        .run(&permission_request(), &never())
        .await;
    assert_eq!(
        o.permission_decision(),
        Some((PermissionDecision::Allow, None))
    );
    assert_eq!(o.updated_input(), Some(&json!({"command": "make -j2"})));
    assert_eq!(
        o.updated_permissions(),
        &[json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"})]
    );
    assert!(!o.interrupt());

    let deny = r#"echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "not on Fridays", "interrupt": true}}}'"#;
    let o = dumping(&fx, "PermissionRequest", deny)
        .run(&permission_request(), &never())
        .await;
    assert_eq!(
        o.permission_decision(),
        Some((PermissionDecision::Deny, Some("not on Fridays")))
    );
    assert!(o.interrupt());

    let exit2 = "echo 'no make' >&2; exit 2";
    let o = dumping(&fx, "PermissionRequest", exit2)
        .run(&permission_request(), &never())
        .await;
    assert_eq!(
        o.permission_decision(),
        Some((PermissionDecision::Deny, Some("no make")))
    );
}

#[tokio::test]
async fn permission_denied_retry_and_failure_context() {
    let fx = Fx::new();
    let retry =
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": true}}'"#;
    let denied = HookEvent::PermissionDenied {
        tool_name: "Bash".into(),
        tool_input: json!({}),
        tool_use_id: "t".into(),
        reason: "no".into(),
    };
    let o = dumping(&fx, "PermissionDenied", retry)
        .run(&denied, &never())
        .await;
    assert!(o.retry());
    assert_eq!(o.blocked(), None);

    let context = r#"echo '{"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "run make clean first"}}'"#;
    let failed = HookEvent::PostToolUseFailure {
        tool_name: "Bash".into(),
        tool_input: json!({}),
        tool_use_id: "t".into(),
        error: "boom".into(),
        is_interrupt: false,
    };
    let o = dumping(&fx, "PostToolUseFailure", context)
        .run(&failed, &never())
        .await;
    assert_eq!(
        o.additional_context().as_deref(),
        Some("run make clean first")
    );
}

fn pre_bash(command: &str) -> HookEvent {
    HookEvent::PreToolUse {
        tool_name: "Bash".into(),
        tool_input: json!({"command": command}),
        tool_use_id: "t".into(),
    }
}

#[tokio::test]
async fn if_conditions_ask_the_caller_and_once_hooks_run_once() {
    let fx = Fx::new();
    let s = fx.script("say.sh", "cat >/dev/null; echo \"$1\"");
    let hook = |arg: &str, extra: Value| {
        let mut h = json!({"type": "command", "command": s, "args": [arg]});
        if let (Value::Object(h), Value::Object(e)) = (&mut h, extra) {
            h.extend(e);
        }
        h
    };
    let r = fx.runner(json!({
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            hook("git", json!({"if": "Bash(git *)"})),
            hook("first", json!({"once": true})),
        ]}],
        "Stop": [{"hooks": [hook("stop", json!({"if": "Bash(git *)"}))]}],
    }));
    // The caller decides the rule against the call; the runner asks it.
    let asked = Mutex::new(Vec::new());
    let is_git = |rule: &str| {
        asked.lock().unwrap().push(rule.to_owned());
        true
    };
    let said = |o: &tack_hooks::HookOutcome| {
        let mut v = o.plain_output().to_vec();
        v.sort();
        v
    };
    let o = r
        .run_if(&pre_bash("git status"), Some(&is_git), &never())
        .await;
    assert_eq!(said(&o), vec!["first", "git"]);
    assert_eq!(*asked.lock().unwrap(), vec!["Bash(git *)"]);
    let not_git = |_: &str| false;
    let o = r.run_if(&pre_bash("ls"), Some(&not_git), &never()).await;
    assert_eq!(said(&o), Vec::<String>::new(), "once: not a second time");
    // Without a checker, or on an event that is not a tool call, `if` hooks
    // do not run.
    let o = r.run(&pre_bash("git log"), &never()).await;
    assert_eq!(said(&o), Vec::<String>::new());
    let stop = HookEvent::Stop {
        stop_hook_active: false,
        last_assistant_message: None,
        session_crons: None,
    };
    let o = r.run_if(&stop, Some(&is_git), &never()).await;
    assert_eq!(o.runs().len(), 0);
}

#[tokio::test]
async fn an_async_rewake_hook_that_exits_2_wakes_the_model_with_its_message() {
    let fx = Fx::new();
    let fail = fx.script(
        "fail.sh",
        "cat >/dev/null; echo 'tests failed: 3' >&2; exit 2",
    );
    let pass = fx.script("pass.sh", "cat >/dev/null; echo ok >&2; exit 0");
    let woken = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&woken);
    let r = fx
        .runner(json!({"PostToolUse": [{"hooks": [
            {"type": "command", "command": fail, "asyncRewake": true,
             "rewakeMessage": "The background test run failed."},
            {"type": "command", "command": pass, "asyncRewake": true},
        ]}]}))
        .with_rewake(Arc::new(move |text| sink.lock().unwrap().push(text)));
    let event = HookEvent::PostToolUse {
        tool_name: "Edit".into(),
        tool_input: json!({}),
        tool_response: json!({}),
        tool_use_id: "t".into(),
    };
    let o = r.run(&event, &never()).await;
    assert_eq!(o.runs().len(), 0, "asyncRewake implies async");
    let deadline = Instant::now() + Duration::from_secs(20);
    while woken.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "never woken");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        *woken.lock().unwrap(),
        vec!["The background test run failed.\n\ntests failed: 3".to_owned()]
    );
}

/// Answers posts and model calls from fixed replies, recording what it got.
#[derive(Default)]
struct Fake {
    seen: Mutex<Vec<Value>>,
    post_reply: Mutex<Option<Result<(u16, String), String>>>,
    model_reply: Mutex<Option<String>>,
}

impl HookServices for Fake {
    fn post(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: Vec<u8>,
    ) -> BoxFuture<'static, Result<(u16, String), String>> {
        let body: Value = serde_json::from_slice(&body).unwrap();
        self.seen
            .lock()
            .unwrap()
            .push(json!({"url": url, "headers": headers, "body": body}));
        let reply = self.post_reply.lock().unwrap().clone().unwrap();
        Box::pin(std::future::ready(reply))
    }

    fn ask_model(
        &self,
        model: Option<&str>,
        system: &str,
        prompt: String,
    ) -> BoxFuture<'static, Result<String, String>> {
        assert_eq!(system, PROMPT_HOOK_SYSTEM);
        self.seen
            .lock()
            .unwrap()
            .push(json!({"model": model, "prompt": prompt}));
        let reply = self.model_reply.lock().unwrap().clone().unwrap();
        Box::pin(std::future::ready(Ok(reply)))
    }
}

#[tokio::test]
async fn http_hooks_post_the_input_and_read_the_body_like_stdout() {
    let fx = Fx::new();
    let fake = Arc::new(Fake::default());
    let r = fx
        .runner(
            json!({"PreToolUse": [{"hooks": [{"type": "http", "url": "http://h/check",
            "headers": {"Authorization": "Bearer $HOOK_TOKEN", "X-Other": "${SECRET}"},
            "allowedEnvVars": ["HOOK_TOKEN"]}]}]}),
        )
        .with_env(vec![
            ("HOOK_TOKEN".into(), "t0k".into()),
            ("SECRET".into(), "no".into()),
        ])
        .with_services(fake.clone());
    *fake.post_reply.lock().unwrap() = Some(Ok((
        200,
        r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "policy"}}"#.into(),
    )));
    let o = r.run(&pre_bash("rm x"), &never()).await;
    assert_eq!(
        o.permission_decision(),
        Some((PermissionDecision::Deny, Some("policy")))
    );
    let seen = fake.seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        vec![json!({"url": "http://h/check",
            "headers": [["Authorization", "Bearer t0k"], ["X-Other", ""]],
            "body": with(base(&fx, "PreToolUse"),
                json!({"tool_name": "Bash", "tool_input": {"command": "rm x"}, "tool_use_id": "t"}))})]
    );
    *fake.post_reply.lock().unwrap() = Some(Ok((503, "down\nmore".into())));
    let o = r.run(&pre_bash("ls"), &never()).await;
    assert_eq!(
        o.errors(),
        &["PreToolUse hook error: `http://h/check` failed: HTTP status 503: down".to_owned()]
    );
    assert_eq!(o.permission_decision(), None);
}

#[tokio::test]
async fn prompt_hooks_let_a_small_model_decide() {
    let fx = Fx::new();
    let fake = Arc::new(Fake::default());
    let r = fx
        .runner(
            json!({"Stop": [{"hooks": [{"type": "prompt", "model": "claude-haiku-4-5",
            "prompt": "Are the tests green? Input: $ARGUMENTS"}]}]}),
        )
        .with_services(fake.clone());
    let stop = HookEvent::Stop {
        stop_hook_active: false,
        last_assistant_message: Some("done".into()),
        session_crons: None,
    };
    *fake.model_reply.lock().unwrap() = Some(r#"{"ok": false, "reason": "2 tests fail"}"#.into());
    let o = r.run(&stop, &never()).await;
    assert_eq!(o.blocked().as_deref(), Some("2 tests fail"));
    let input = with(
        base(&fx, "Stop"),
        json!({"stop_hook_active": false, "last_assistant_message": "done"}),
    );
    assert_eq!(
        fake.seen.lock().unwrap().clone(),
        vec![json!({"model": "claude-haiku-4-5",
                    "prompt": format!("Are the tests green? Input: {input}")})]
    );
    *fake.model_reply.lock().unwrap() = Some(r#"{"ok": true}"#.into());
    let o = r.run(&stop, &never()).await;
    assert_eq!(o.blocked(), None);
    assert_eq!(o.errors(), &[] as &[String]);

    // Without `$ARGUMENTS`, the input follows the prompt; an answer that is
    // not the verdict is an error, not a block.
    let fake = Arc::new(Fake::default());
    let r = fx
        .runner(json!({"Stop": [{"hooks": [{"type": "prompt", "prompt": "Done?"}]}]}))
        .with_services(fake.clone());
    *fake.model_reply.lock().unwrap() = Some("Looks fine to me".into());
    let o = r.run(&stop, &never()).await;
    assert_eq!(o.blocked(), None);
    assert_eq!(
        o.errors(),
        &["Stop hook error: `Done?` failed: the model did not answer {\"ok\": ...}: Looks fine to me".to_owned()]
    );
    assert_eq!(
        fake.seen.lock().unwrap().clone(),
        vec![json!({"model": null, "prompt": format!("Done?\n\nHook input:\n{input}")})]
    );
}

#[tokio::test]
async fn worktree_create_reads_the_path_from_stdout_or_json() {
    let fx = Fx::new();
    let create = |name: &str| HookEvent::WorktreeCreate {
        name: name.to_owned(),
    };
    let plain = dumping(&fx, "WorktreeCreate", "echo made; echo /w/plain; echo");
    let outcome = plain.run(&create("a"), &never()).await;
    assert_eq!(outcome.worktree_path(), Some("/w/plain"));
    assert_eq!(
        dumped(&fx, "WorktreeCreate"),
        with(base(&fx, "WorktreeCreate"), json!({"name": "a"}))
    );
    let json_out = r#"echo '{"hookSpecificOutput": {"hookEventName": "WorktreeCreate", "worktreePath": "/w/json"}}'"#;
    let outcome = dumping(&fx, "WorktreeCreate", json_out)
        .run(&create("b"), &never())
        .await;
    assert_eq!(outcome.worktree_path(), Some("/w/json"));
    let failed = dumping(&fx, "WorktreeCreate", "echo /w/x; exit 2")
        .run(&create("c"), &never())
        .await;
    assert_eq!(
        failed.blocked(),
        Some("blocked by hook `".to_owned() + failed.runs()[0].command.as_str() + "`")
    );
    let remove = dumping(&fx, "WorktreeRemove", "exit 2");
    let event = HookEvent::WorktreeRemove {
        worktree_path: "/w/plain".to_owned(),
    };
    let outcome = remove.run(&event, &never()).await;
    assert_eq!(outcome.blocked(), None);
    assert_eq!(
        dumped(&fx, "WorktreeRemove"),
        with(
            base(&fx, "WorktreeRemove"),
            json!({"worktree_path": "/w/plain"})
        )
    );
}
