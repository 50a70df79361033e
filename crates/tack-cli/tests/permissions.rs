//! Permissions and hooks end to end: the real binary, settings files in a temp
//! project, a scripted model, and assertions on the filesystem, the output and
//! the requests the server received.

use crate::common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::stderr;
use common::{Env, last_tool_results, lines};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// A temp project (with `.git`) and `.tack/settings.json` = `settings`.
async fn project(script: Script, settings: Value) -> (Env, PathBuf) {
    let env = Env::new(script).await;
    std::fs::create_dir_all(env.cwd().join(".git")).unwrap();
    let path = env.cwd().join(".tack/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, settings.to_string()).unwrap();
    env.trust();
    (env, path)
}

/// One command hook for `event` (matcher `matcher`).
fn hook(event: &str, matcher: &str, command: &str, timeout: Option<u64>) -> Value {
    let mut h = json!({"type": "command", "command": command});
    if let Some(t) = timeout {
        h["timeout"] = json!(t);
    }
    json!({event: [{"matcher": matcher, "hooks": [h]}]})
}

#[tokio::test(flavor = "multi_thread")]
async fn a_denied_command_in_five_disguises_never_runs_and_every_denial_is_listed() {
    let disguises = [
        ("d1", "touch pwned"),
        ("d2", "echo ok; touch pwned"),
        ("d3", "echo $(touch pwned)"),
        ("d4", "bash -c 'touch pwned'"),
        ("d5", "echo ok && \\touch pwned"),
    ];
    let mut message = Reply::message().tool_use("ok", "Bash", json!({"command": "echo fine"}));
    for (id, command) in disguises {
        message = message.tool_use(id, "Bash", json!({"command": command}));
    }
    let script = Script::new([message.into(), Reply::text("I could not.")]);
    let (env, _) = project(
        script,
        json!({"permissions": {"allow": ["Bash(echo:*)"], "deny": ["Bash(touch:*)"]}}),
    )
    .await;
    let out = env
        .tack()
        .args(["-p", "make a file", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!env.cwd().join("pwned").exists(), "a disguise ran");
    let result = &lines(&out.stdout)[0];
    let expected: Vec<Value> = disguises
        .iter()
        .map(|(id, command)| {
            json!({"tool_name": "Bash", "tool_use_id": id, "tool_input": {"command": command}})
        })
        .collect();
    assert_eq!(result["permission_denials"], Value::Array(expected));
    // The allowed command ran; each denial reached the model.
    let results = last_tool_results(&env.request_bodies()[1]);
    assert_eq!(results.len(), 6);
    assert_eq!(results[0].0, "ok");
    assert!(results[0].1.contains("fine"), "{:?}", results[0]);
    // Each disguise hit the deny rule itself (not just a missing allow rule).
    for (id, text) in &results[1..] {
        assert!(
            text.contains("denied by rule `Bash(touch:*)` (projectSettings) in")
                && text.contains("settings.json"),
            "{id}: {text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pre_tool_use_hook_deny_beats_an_allow_rule() {
    let script = Script::new([
        Reply::message()
            .tool_use("r1", "Read", json!({"file_path": "app.txt"}))
            .into(),
        Reply::message()
            .tool_use(
                "e1",
                "Edit",
                json!({"file_path": "app.txt", "old_string": "bug", "new_string": "fix"}),
            )
            .into(),
        Reply::text("Blocked."),
    ]);
    let deny = r#"cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "edits are frozen"}}'"#;
    let (env, _) = project(
        script,
        json!({"permissions": {"allow": ["Edit", "Read"]}, "hooks": hook("PreToolUse", "Edit", deny, None)}),
    )
    .await;
    std::fs::write(env.cwd().join("app.txt"), "a bug\n").unwrap();
    let out = env
        .tack()
        .args(["-p", "fix", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(env.cwd().join("app.txt")).unwrap(),
        "a bug\n"
    );
    let result = &lines(&out.stdout)[0];
    assert_eq!(result["permission_denials"][0]["tool_use_id"], "e1");
    assert_eq!(result["permission_denials"].as_array().unwrap().len(), 1);
    let results = last_tool_results(&env.request_bodies()[2]);
    assert!(results[0].1.contains("edits are frozen"), "{results:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn post_tool_use_exit_2_feeds_stderr_to_the_model() {
    let script = Script::new([
        Reply::message()
            .tool_use("b1", "Bash", json!({"command": "echo hi"}))
            .into(),
        Reply::text("Noted."),
    ]);
    let post = "cat >/dev/null; echo 'formatter says no' >&2; exit 2";
    let (env, _) = project(
        script,
        json!({"permissions": {"allow": ["Bash(echo:*)"]}, "hooks": hook("PostToolUse", "Bash", post, None)}),
    )
    .await;
    let out = env
        .tack()
        .args(["-p", "go", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let results = last_tool_results(&env.request_bodies()[1]);
    assert_eq!(results.len(), 1);
    assert!(results[0].1.contains("hi"), "{results:?}");
    assert!(results[0].1.contains("formatter says no"), "{results:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn user_prompt_submit_exit_2_blocks_the_prompt() {
    let script = Script::new([Reply::text("should not be asked")]);
    let block = "cat >/dev/null; echo 'no secrets in prompts' >&2; exit 2";
    let (env, _) = project(
        script,
        json!({"hooks": hook("UserPromptSubmit", "", block, None)}),
    )
    .await;
    let out = env
        .tack()
        .args(["-p", "here is my password", "--output-format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no secrets in prompts"),
        "{}",
        stderr(&out)
    );
    assert!(env.request_bodies().is_empty());
    let result = &lines(&out.stdout)[0];
    assert_eq!(result["is_error"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn user_prompt_submit_stdout_is_context_for_the_model() {
    let script = Script::new([Reply::text("ok")]);
    let ctx = "cat >/dev/null; echo 'the build is red'";
    let (env, _) = project(
        script,
        json!({"hooks": hook("UserPromptSubmit", "", ctx, None)}),
    )
    .await;
    let out = env.tack().args(["-p", "status?"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let body = env.request_bodies()[0].to_string();
    assert!(
        body.contains("<system-reminder>\\nthe build is red\\n</system-reminder>"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_blocking_stop_hook_continues_once_then_sees_stop_hook_active() {
    let script = Script::new([Reply::text("done"), Reply::text("done, tests pass")]);
    let stop = r#"input=$(cat); echo "$input" >> stop.log; case "$input" in *'"stop_hook_active":true'*) exit 0;; esac; echo 'run the tests first' >&2; exit 2"#;
    let (env, _) = project(script, json!({"hooks": hook("Stop", "", stop, None)})).await;
    let out = env
        .tack()
        .args(["-p", "finish", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let result = &lines(&out.stdout)[0];
    assert_eq!(result["result"], "done, tests pass");
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 2);
    let messages = bodies[1]["messages"].as_array().unwrap();
    let feedback = messages.last().unwrap();
    assert_eq!(feedback["role"], "user");
    assert!(
        feedback
            .to_string()
            .contains("Stop hook feedback:\\nrun the tests first"),
        "{feedback}"
    );
    let log = std::fs::read_to_string(env.cwd().join("stop.log")).unwrap();
    let inputs: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(inputs.len(), 2);
    assert_eq!(
        (
            &inputs[0]["stop_hook_active"],
            &inputs[1]["stop_hook_active"]
        ),
        (&json!(false), &json!(true))
    );
    assert_eq!(inputs[1]["last_assistant_message"], "done, tests pass");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hook_past_its_timeout_cannot_hang_tack() {
    let script = Script::new([Reply::text("ok")]);
    let (env, _) = project(
        script,
        json!({"hooks": hook("UserPromptSubmit", "", "sleep 30", Some(1))}),
    )
    .await;
    let started = Instant::now();
    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok");
    assert_eq!(env.request_bodies().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_invalid_rule_of_the_user_stops_tack_before_any_request() {
    // (One of the repository's is skipped with a warning: hardening2.rs.)
    let script = Script::new([Reply::text("should not be asked")]);
    let env = Env::new(script).await;
    let path = env.home.path().join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        json!({"permissions": {"deny": ["Bash(rm *"]}}).to_string(),
    )
    .unwrap();
    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("`Bash(rm *`"), "{err}");
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(env.request_bodies().is_empty());
    assert!(out.stdout.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn session_start_context_reaches_the_model_and_session_end_runs_at_exit() {
    let script = Script::new([Reply::text("ok")]);
    let mut hooks = hook(
        "SessionStart",
        "startup",
        "cat >/dev/null; echo 'branch policy: no pushes'",
        None,
    );
    hooks["SessionEnd"] = hook("SessionEnd", "", "cat > ended.json", None)["SessionEnd"].clone();
    let (env, _) = project(script, json!({"hooks": hooks})).await;
    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let body = env.request_bodies()[0].to_string();
    assert!(body.contains("branch policy: no pushes"), "{body}");
    let ended: Value =
        serde_json::from_str(&std::fs::read_to_string(env.cwd().join("ended.json")).unwrap())
            .unwrap();
    assert_eq!(
        (&ended["hook_event_name"], &ended["reason"]),
        (&json!("SessionEnd"), &json!("other"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hooks_continue_false_ends_the_turn_without_calling_the_model_again() {
    let stop = r#"cat >/dev/null; echo '{"continue": false, "stopReason": "enough for today"}'"#;
    for event in ["PreToolUse", "PostToolUse"] {
        let script = Script::new([
            Reply::message()
                .tool_use("b1", "Bash", json!({"command": "touch ran"}))
                .into(),
            Reply::text("Never asked for."),
        ]);
        let (env, _) = project(
            script,
            json!({"permissions": {"allow": ["Bash(touch:*)"]}, "hooks": hook(event, "Bash", stop, None)}),
        )
        .await;
        let out = env
            .tack()
            .args(["-p", "go", "--output-format", "json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{event}: {}", stderr(&out));
        let result = &lines(&out.stdout)[0];
        let seen = json!({
            "event": event,
            "requests": env.request_bodies().len(),
            "subtype": result["subtype"],
            "is_error": result["is_error"],
            "terminal_reason": result["terminal_reason"],
            "ran": env.cwd().join("ran").exists(),
        });
        assert_eq!(
            seen,
            json!({
                "event": event,
                "requests": 1,
                "subtype": "success",
                "is_error": false,
                "terminal_reason": "hook_stopped",
                // PreToolUse stops the call; PostToolUse comes after it.
                "ran": event == "PostToolUse",
            })
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn disallowing_edit_takes_multi_edit_out_of_context_too() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let out = env
        .tack()
        .env("ENABLE_TOOL_SEARCH", "false")
        .args(["-p", "hi", "--disallowedTools", "Edit"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let body = &env.request_bodies()[0];
    let names: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .filter(|n| n.contains("Edit") || *n == "Write")
        .collect();
    // NotebookEdit and Write stay: Edit rules still govern them when called.
    assert_eq!(names, ["Write", "NotebookEdit"]);
}
