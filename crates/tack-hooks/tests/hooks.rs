//! Every event with real hook scripts: exit codes, JSON outputs, matchers, and
//! hooks that misbehave (hang past their timeout with a child, crash, flood
//! output, print garbage, never read stdin).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_hooks::{
    BlockAudience, HookEvent, HookOutcome, HookRunner, HooksConfig, PermissionDecision, RunStatus,
    StopHookGuard,
};
use tokio_util::sync::CancellationToken;

/// A temp project dir for hook scripts, and runners over it.
pub(crate) struct Fx {
    dir: tempfile::TempDir,
}

impl Fx {
    pub(crate) fn new() -> Fx {
        Fx {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub(crate) fn path(&self) -> PathBuf {
        std::fs::canonicalize(self.dir.path()).unwrap()
    }

    /// Writes an executable bash script and returns its path.
    pub(crate) fn script(&self, name: &str, body: &str) -> String {
        let p = self.path().join(name);
        std::fs::write(&p, format!("#!/bin/bash\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p.to_string_lossy().into_owned()
    }

    pub(crate) fn runner(&self, hooks: Value) -> HookRunner {
        let cfg = HooksConfig::from_value("test", &hooks).unwrap();
        let mut r = HookRunner::new(
            cfg,
            &self.path(),
            "sess-1",
            &self.path().join("transcript.jsonl"),
        );
        r.set_permission_mode("default");
        r
    }
}

fn on(event: &str, matcher: &str, commands: &[&str]) -> Value {
    let hooks: Vec<Value> = commands
        .iter()
        .map(|c| json!({"type": "command", "command": c}))
        .collect();
    json!({ event: [{"matcher": matcher, "hooks": hooks}] })
}

fn pre_bash(cmd: &str) -> HookEvent {
    HookEvent::PreToolUse {
        tool_name: "Bash".into(),
        tool_input: json!({"command": cmd}),
        tool_use_id: "toolu_1".into(),
    }
}

async fn run(r: &HookRunner, e: &HookEvent) -> HookOutcome {
    r.run(e, &CancellationToken::new()).await
}

#[tokio::test]
async fn pre_tool_use_receives_the_documented_input() {
    let fx = Fx::new();
    let s = fx.script(
        "dump.sh",
        r#"cat > "$CLAUDE_PROJECT_DIR/input.json"; pwd > "$TACK_PROJECT_DIR/cwd.txt""#,
    );
    let r = fx.runner(on("PreToolUse", "Bash", &[&s]));
    let o = run(&r, &pre_bash("rm -rf target")).await;
    assert_eq!(o.errors(), &[] as &[String]);
    assert_eq!(o.permission_decision(), None);
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(fx.path().join("input.json")).unwrap())
            .unwrap();
    assert_eq!(
        input,
        json!({
            "session_id": "sess-1",
            "transcript_path": fx.path().join("transcript.jsonl"),
            "cwd": fx.path(),
            "hook_event_name": "PreToolUse",
            "permission_mode": "default",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf target"},
            "tool_use_id": "toolu_1"
        })
    );
    assert_eq!(
        std::fs::read_to_string(fx.path().join("cwd.txt"))
            .unwrap()
            .trim(),
        fx.path().to_str().unwrap()
    );
}

#[tokio::test]
async fn pre_tool_use_json_decisions() {
    let fx = Fx::new();
    let deny = fx.script(
        "deny.sh",
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rm -rf is not allowed here"}}'"#,
    );
    let allow = fx.script(
        "allow.sh",
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"cargo clean"},"additionalContext":"Build dir is shared with CI."}}'"#,
    );
    let ask = fx.script(
        "ask.sh",
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check with the user"}}'"#,
    );

    let o = run(
        &fx.runner(on("PreToolUse", "Bash", &[&deny])),
        &pre_bash("rm -rf x"),
    )
    .await;
    assert_eq!(
        o.permission_decision(),
        Some((PermissionDecision::Deny, Some("rm -rf is not allowed here")))
    );

    let o = run(
        &fx.runner(on("PreToolUse", "Bash", &[&allow])),
        &pre_bash("rm -rf target"),
    )
    .await;
    assert_eq!(
        o.permission_decision(),
        Some((PermissionDecision::Allow, None))
    );
    assert_eq!(o.updated_input(), Some(&json!({"command": "cargo clean"})));
    assert_eq!(
        o.additional_context(),
        Some("Build dir is shared with CI.".into())
    );

    let o = run(
        &fx.runner(on("PreToolUse", "Bash", &[&ask])),
        &pre_bash("x"),
    )
    .await;
    assert_eq!(
        o.permission_decision(),
        Some((PermissionDecision::Ask, Some("check with the user")))
    );

    // Several hooks: deny > ask > allow, whatever the order.
    let o = run(
        &fx.runner(on("PreToolUse", "*", &[&allow, &ask, &deny])),
        &pre_bash("x"),
    )
    .await;
    assert_eq!(
        o.permission_decision(),
        Some((PermissionDecision::Deny, Some("rm -rf is not allowed here")))
    );
    assert_eq!(o.runs().len(), 3);
}

#[tokio::test]
async fn pre_tool_use_exit_codes() {
    let fx = Fx::new();
    let two = fx.script("two.sh", "echo 'no rm here' >&2; exit 2");
    let one = fx.script("one.sh", "echo 'oops: details' >&2; echo more >&2; exit 1");
    let legacy = fx.script(
        "legacy.sh",
        r#"echo '{"decision":"block","reason":"legacy no"}'"#,
    );

    let o = run(
        &fx.runner(on("PreToolUse", "Bash", &[&two])),
        &pre_bash("rm x"),
    )
    .await;
    assert_eq!(
        o.permission_decision(),
        Some((PermissionDecision::Deny, Some("no rm here")))
    );
    assert_eq!(o.blocked(), Some("no rm here".into()));
    assert_eq!(o.block_audience(), BlockAudience::Model);

    let o = run(
        &fx.runner(on("PreToolUse", "Bash", &[&one])),
        &pre_bash("x"),
    )
    .await;
    assert_eq!(o.permission_decision(), None);
    assert_eq!(
        o.errors(),
        &[format!(
            "PreToolUse hook error: `{one}` failed with non-blocking status code 1: oops: details"
        )]
    );

    let o = run(
        &fx.runner(on("PreToolUse", "Bash", &[&legacy])),
        &pre_bash("x"),
    )
    .await;
    assert_eq!(
        o.permission_decision(),
        Some((PermissionDecision::Deny, Some("legacy no")))
    );
}

#[tokio::test]
async fn matchers_select_hooks() {
    let fx = Fx::new();
    let mark = fx.script("mark.sh", r#"echo "$1" >> "$CLAUDE_PROJECT_DIR/ran.txt""#);
    let cfg = json!({"PreToolUse": [
        {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": format!("{mark} edit")}]},
        {"matcher": "^Ba", "hooks": [{"type": "command", "command": format!("{mark} regex")}]},
        {"matcher": "Task", "hooks": [{"type": "command", "command": format!("{mark} legacy")}]},
        {"hooks": [{"type": "command", "command": format!("{mark} all")}]}
    ]});
    let r = fx.runner(cfg);
    for tool in ["Bash", "Write", "Agent", "Read"] {
        let e = HookEvent::PreToolUse {
            tool_name: tool.into(),
            tool_input: json!({}),
            tool_use_id: "t".into(),
        };
        run(&r, &e).await;
    }
    let mut lines: Vec<String> = std::fs::read_to_string(fx.path().join("ran.txt"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    lines.sort();
    assert_eq!(
        lines,
        vec!["all", "all", "all", "all", "edit", "legacy", "regex"]
    );
}

#[tokio::test]
async fn post_tool_use_block_and_context() {
    let fx = Fx::new();
    let s = fx.script(
        "post.sh",
        r#"echo '{"decision":"block","reason":"lint failed","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"run cargo fmt"}}'"#,
    );
    let two = fx.script("post2.sh", "echo 'tests broke' >&2; exit 2");
    let e = HookEvent::PostToolUse {
        tool_name: "Edit".into(),
        tool_input: json!({"file_path": "/x"}),
        tool_response: json!({"ok": true}),
        tool_use_id: "t".into(),
    };
    let o = run(&fx.runner(on("PostToolUse", "Edit", &[&s])), &e).await;
    assert_eq!(o.blocked(), Some("lint failed".into()));
    assert_eq!(o.additional_context(), Some("run cargo fmt".into()));
    assert_eq!(o.permission_decision(), None);
    let o = run(&fx.runner(on("PostToolUse", "Edit", &[&two])), &e).await;
    assert_eq!(o.blocked(), Some("tests broke".into()));
}

#[tokio::test]
async fn user_prompt_submit_context_and_block() {
    let fx = Fx::new();
    let ctx = fx.script("ctx.sh", "echo 'Current branch: main'");
    let block = fx.script("block.sh", "echo 'no secrets in prompts' >&2; exit 2");
    let json_block = fx.script(
        "jblock.sh",
        r#"echo '{"decision":"block","reason":"prompt blocked"}'"#,
    );
    let e = HookEvent::UserPromptSubmit {
        prompt: "hello".into(),
    };
    // Matchers are ignored for UserPromptSubmit.
    let o = run(
        &fx.runner(on("UserPromptSubmit", "NoSuchThing", &[&ctx])),
        &e,
    )
    .await;
    assert_eq!(o.additional_context(), Some("Current branch: main".into()));
    assert_eq!(o.blocked(), None);
    let o = run(&fx.runner(on("UserPromptSubmit", "", &[&block])), &e).await;
    assert_eq!(o.blocked(), Some("no secrets in prompts".into()));
    assert_eq!(o.block_audience(), BlockAudience::User);
    let o = run(&fx.runner(on("UserPromptSubmit", "", &[&json_block])), &e).await;
    assert_eq!(o.blocked(), Some("prompt blocked".into()));
}

#[tokio::test]
async fn stop_blocks_once_per_exit_point() {
    let fx = Fx::new();
    // Blocks unless it is already continuing because of a stop hook... but this
    // one is stubborn: it always blocks, and records the flag it saw.
    let s = fx.script(
        "stop.sh",
        r#"input=$(cat); echo "$input" | grep -o '"stop_hook_active":[a-z]*' >> "$CLAUDE_PROJECT_DIR/flags.txt"; echo 'tests are failing, fix them' >&2; exit 2"#,
    );
    let r = fx.runner(on("Stop", "", &[&s]));
    let mut guard = StopHookGuard::new();
    let mut continued = Vec::new();
    loop {
        let e = HookEvent::Stop {
            stop_hook_active: guard.stop_hook_active(),
            last_assistant_message: Some("done".into()),
            session_crons: None,
        };
        let o = run(&r, &e).await;
        match guard.on_stop(&o) {
            Some(reason) => continued.push(reason),
            None => break,
        }
    }
    assert_eq!(continued, vec!["tests are failing, fix them"]);
    assert_eq!(
        std::fs::read_to_string(fx.path().join("flags.txt")).unwrap(),
        "\"stop_hook_active\":false\n\"stop_hook_active\":true\n"
    );
}

#[tokio::test]
async fn subagent_stop_json_block_and_matcher_on_agent_type() {
    let fx = Fx::new();
    let s = fx.script(
        "sub.sh",
        r#"echo '{"decision":"block","reason":"keep exploring"}'"#,
    );
    let r = fx.runner(on("SubagentStop", "Explore", &[&s]));
    let e = |ty: &str| HookEvent::SubagentStop {
        stop_hook_active: false,
        agent_id: "a1".into(),
        agent_type: ty.into(),
        agent_transcript_path: "/t/a1.jsonl".into(),
        last_assistant_message: None,
    };
    assert_eq!(
        run(&r, &e("Explore")).await.blocked(),
        Some("keep exploring".into())
    );
    assert_eq!(run(&r, &e("Plan")).await.blocked(), None);
}

#[tokio::test]
async fn session_start_end_precompact_notification() {
    let fx = Fx::new();
    let ctx = fx.script("ctx.sh", "echo 'Remember: run tests with --release'");
    let json_ctx = fx.script(
        "jctx.sh",
        r#"echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"from json"}}'"#,
    );
    let two = fx.script("two.sh", "echo 'nope' >&2; exit 2");
    let notify = fx.script(
        "notify.sh",
        r#"cat > "$CLAUDE_PROJECT_DIR/notification.json""#,
    );

    let start = HookEvent::SessionStart {
        source: "startup".into(),
        model: Some("claude-sonnet-4-5".into()),
    };
    let o = run(
        &fx.runner(on("SessionStart", "startup", &[&ctx, &json_ctx])),
        &start,
    )
    .await;
    assert_eq!(
        o.additional_context(),
        Some("Remember: run tests with --release\n\nfrom json".into())
    );
    let resume = HookEvent::SessionStart {
        source: "resume".into(),
        model: None,
    };
    let o = run(&fx.runner(on("SessionStart", "startup", &[&ctx])), &resume).await;
    assert_eq!(o.runs().len(), 0);

    // SessionStart and SessionEnd cannot block: exit 2 is an error for the user.
    let o = run(&fx.runner(on("SessionStart", "", &[&two])), &start).await;
    assert_eq!(o.blocked(), None);
    assert_eq!(o.errors().len(), 1);
    let end = HookEvent::SessionEnd {
        reason: "prompt_input_exit".into(),
    };
    let o = run(&fx.runner(on("SessionEnd", "", &[&two])), &end).await;
    assert_eq!(o.blocked(), None);
    assert_eq!(o.errors().len(), 1);

    let compact = HookEvent::PreCompact {
        trigger: "auto".into(),
        custom_instructions: None,
    };
    let o = run(&fx.runner(on("PreCompact", "auto", &[&two])), &compact).await;
    assert_eq!(o.blocked(), Some("nope".into()));
    assert_eq!(o.block_audience(), BlockAudience::User);
    let o = run(&fx.runner(on("PreCompact", "manual", &[&two])), &compact).await;
    assert_eq!(o.blocked(), None);

    let n = HookEvent::Notification {
        message: "Claude needs your permission".into(),
        title: None,
        notification_type: "permission_prompt".into(),
    };
    let o = run(
        &fx.runner(on("Notification", "permission_prompt", &[&notify])),
        &n,
    )
    .await;
    assert_eq!(o.errors(), &[] as &[String]);
    let got: Value = serde_json::from_str(
        &std::fs::read_to_string(fx.path().join("notification.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(got["notification_type"], "permission_prompt");
    assert_eq!(got["message"], "Claude needs your permission");
    assert_eq!(got["hook_event_name"], "Notification");
}

#[tokio::test]
async fn continue_false_system_message_and_suppress() {
    let fx = Fx::new();
    let s = fx.script(
        "stopall.sh",
        r#"echo '{"continue":false,"stopReason":"budget exhausted","systemMessage":"careful","suppressOutput":true}'"#,
    );
    let o = run(
        &fx.runner(on("PostToolUse", "*", &[&s])),
        &HookEvent::PostToolUse {
            tool_name: "Bash".into(),
            tool_input: json!({}),
            tool_response: json!({}),
            tool_use_id: "t".into(),
        },
    )
    .await;
    assert!(!o.should_continue());
    assert_eq!(o.stop_reason(), Some("budget exhausted"));
    assert_eq!(o.system_messages(), &["careful".to_string()]);
    assert!(o.suppress_output());
    // continue:false also ends a Stop-hook continuation.
    let mut g = StopHookGuard::new();
    assert_eq!(g.on_stop(&o), None);
}

#[tokio::test]
async fn garbage_output_is_plain_text_not_an_error() {
    let fx = Fx::new();
    let s = fx.script(
        "garbage.sh",
        r#"printf '{not json at all\n\x00\xff\xfe binary'; exit 0"#,
    );
    let o = run(&fx.runner(on("PreToolUse", "*", &[&s])), &pre_bash("x")).await;
    assert_eq!(o.errors(), &[] as &[String]);
    assert_eq!(o.permission_decision(), None);
    assert_eq!(o.plain_output().len(), 1);
    assert!(o.plain_output()[0].starts_with("{not json at all"));
}

#[tokio::test]
async fn huge_output_is_capped_and_drained() {
    let fx = Fx::new();
    let s = fx.script(
        "flood.sh",
        "head -c 5000000 /dev/zero | tr '\\0' 'a'; head -c 5000000 /dev/zero | tr '\\0' 'b' >&2; exit 0",
    );
    let started = Instant::now();
    let o = run(&fx.runner(on("PreToolUse", "*", &[&s])), &pre_bash("x")).await;
    let run0 = &o.runs()[0];
    assert_eq!(run0.status, RunStatus::Exited(0));
    assert!(run0.truncated);
    assert_eq!(run0.stdout.len(), tack_hooks::OUTPUT_CAP);
    assert_eq!(run0.stderr.len(), tack_hooks::OUTPUT_CAP);
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[tokio::test]
async fn hook_that_never_reads_stdin_does_not_break_the_writer() {
    let fx = Fx::new();
    let s = fx.script("noread.sh", "exec 0<&-; echo ok");
    let big = "x".repeat(4 * 1024 * 1024);
    let o = run(&fx.runner(on("PreToolUse", "*", &[&s])), &pre_bash(&big)).await;
    assert_eq!(o.runs()[0].status, RunStatus::Exited(0));
    assert_eq!(o.plain_output(), &["ok".to_string()]);
}

fn is_dead(pid: i32) -> bool {
    // SAFETY: kill with signal 0 only checks for existence.
    let r = unsafe { libc::kill(pid, 0) };
    if r != 0 {
        return std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
    }
    // A zombie waiting for a reaper that is not init is dead too.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(true)
}

async fn wait_dead(pid: i32) -> bool {
    for _ in 0..50 {
        if is_dead(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test]
async fn timeout_kills_the_hook_and_its_children() {
    let fx = Fx::new();
    // A background child that even ignores TERM: it must die with KILL.
    let s = fx.script(
        "hang.sh",
        r#"(trap '' TERM; sleep 300) &
echo $! > "$CLAUDE_PROJECT_DIR/child.pid"
echo $$ > "$CLAUDE_PROJECT_DIR/hook.pid"
sleep 300"#,
    );
    let cfg = json!({"PreToolUse": [{"hooks": [{"type": "command", "command": s, "timeout": 1}]}]});
    let started = Instant::now();
    let o = run(&fx.runner(cfg), &pre_bash("x")).await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        o.runs()[0].status,
        RunStatus::TimedOut(Duration::from_secs(1))
    );
    assert_eq!(
        o.permission_decision(),
        None,
        "a timed-out hook does not block"
    );
    assert_eq!(
        o.errors(),
        &[format!(
            "PreToolUse hook error: `{s}` timed out after 1.0s and was killed"
        )]
    );
    let pid = |f: &str| -> i32 {
        std::fs::read_to_string(fx.path().join(f))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    assert!(wait_dead(pid("hook.pid")).await, "hook still alive");
    assert!(
        wait_dead(pid("child.pid")).await,
        "background child still alive"
    );
}

#[tokio::test]
async fn cancellation_kills_running_hooks() {
    let fx = Fx::new();
    let s = fx.script(
        "slow.sh",
        r#"sleep 300 & echo $! > "$CLAUDE_PROJECT_DIR/child.pid"; wait"#,
    );
    let r = fx.runner(on("PreToolUse", "*", &[&s]));
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        c2.cancel();
    });
    let started = Instant::now();
    let o = r.run(&pre_bash("x"), &cancel).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(o.runs()[0].status, RunStatus::Cancelled);
    let pid: i32 = std::fs::read_to_string(fx.path().join("child.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(wait_dead(pid).await);
}

#[tokio::test]
async fn crashing_and_missing_hooks_are_reported() {
    let fx = Fx::new();
    // The shell itself dies of a signal.
    let crash = "kill -SEGV $$";
    let o = run(
        &fx.runner(on("PreToolUse", "*", &[crash, "/nonexistent/hook.sh"])),
        &pre_bash("x"),
    )
    .await;
    assert_eq!(o.runs()[0].status, RunStatus::Signaled(libc::SIGSEGV));
    assert_eq!(o.runs()[1].status, RunStatus::Exited(127));
    assert_eq!(o.errors().len(), 2);
    assert_eq!(o.permission_decision(), None);
}

#[tokio::test]
async fn hooks_run_concurrently_and_identical_ones_once() {
    let fx = Fx::new();
    let s = fx.script(
        "s.sh",
        r#"sleep 2; echo x >> "$CLAUDE_PROJECT_DIR/count.txt""#,
    );
    let t = fx.script("t.sh", "sleep 2");
    let cfg = json!({"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": s}, {"type": "command", "command": t}]},
        {"matcher": "*", "hooks": [{"type": "command", "command": s}]}
    ]});
    let started = Instant::now();
    let o = run(&fx.runner(cfg), &pre_bash("x")).await;
    assert!(
        started.elapsed() < Duration::from_millis(3800),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(o.runs().len(), 2);
    assert_eq!(
        std::fs::read_to_string(fx.path().join("count.txt")).unwrap(),
        "x\n"
    );
}

#[tokio::test]
async fn exec_form_and_env() {
    let fx = Fx::new();
    let cfg = json!({"SessionStart": [{"hooks": [
        {"type": "command", "command": "/bin/sh", "args": ["-c", "echo \"$GREETING from $TACK_PROJECT_DIR\""]}
    ]}]});
    let cfg = HooksConfig::from_value("t", &cfg).unwrap();
    let r = HookRunner::new(cfg, &fx.path(), "s", Path::new("/t.jsonl"))
        .with_env(vec![("GREETING".into(), "hi".into())]);
    let o = run(
        &r,
        &HookEvent::SessionStart {
            source: "startup".into(),
            model: None,
        },
    )
    .await;
    assert_eq!(
        o.additional_context(),
        Some(format!("hi from {}", fx.path().display()))
    );
}

#[tokio::test]
async fn an_async_hook_runs_in_the_background_and_does_not_hold_the_event() {
    let fx = Fx::new();
    let marker = fx.path().join("linted");
    // Waits for a go-ahead file the test writes after `run` returned, then
    // records its stdin: if `run` waited for it, the test would never get there.
    let go = fx.path().join("go");
    let slow = fx.script(
        "lint.sh",
        &format!(
            "input=$(cat); while [ ! -e {go} ]; do sleep 0.02; done; echo \"$input\" > {marker}.tmp; mv {marker}.tmp {marker}; echo '{{\"decision\":\"block\",\"reason\":\"ignored\"}}'",
            go = go.display(),
            marker = marker.display()
        ),
    );
    let quick = fx.script("quick.sh", "cat >/dev/null; echo quick-output");
    let runner = fx.runner(json!({"PostToolUse": [{"matcher": "Edit", "hooks": [
        {"type": "command", "command": slow, "async": true, "timeout": 30},
        {"type": "command", "command": quick}
    ]}]}));
    let event = HookEvent::PostToolUse {
        tool_name: "Edit".into(),
        tool_input: json!({"file_path": "a.rs"}),
        tool_response: json!({}),
        tool_use_id: "t1".into(),
    };
    let outcome = runner.run(&event, &CancellationToken::new()).await;
    // Only the synchronous hook is in the outcome; the async one's block has no effect.
    assert_eq!(outcome.runs().len(), 1);
    assert_eq!(outcome.blocked(), None);
    assert!(!marker.exists());
    std::fs::write(&go, "").unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !marker.exists() {
        assert!(Instant::now() < deadline, "the async hook never ran");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(&marker).unwrap()).unwrap();
    assert_eq!(seen["tool_use_id"], "t1");
}
