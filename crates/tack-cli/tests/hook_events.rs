//! The hook events after the core set and the handler options plugins use,
//! end to end: the real binary, settings hooks, a scripted model, and what
//! the hooks received and what the model was sent.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use common::{Env, last_texts, lines, stderr, write};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// A trusted project (with `.git`) whose `.claude/settings.json` is `settings`.
pub(crate) async fn project(script: Script, settings: Value) -> Env {
    let env = Env::new(script).await;
    std::fs::create_dir_all(env.cwd().join(".git")).unwrap();
    write(
        env.cwd().join(".claude/settings.json"),
        &settings.to_string(),
    );
    env.trust();
    env
}

/// A command that appends its input to `<cwd>/<name>.jsonl`, then prints `out`.
fn dump(name: &str, out: &str) -> Value {
    json!({"type": "command",
           "command": format!("(cat; echo) >> \"$CLAUDE_PROJECT_DIR/{name}.jsonl\"; echo '{out}'")})
}

/// What the hooks named `name` received, without the per-run fields.
fn dumped(env: &Env, name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(env.cwd().join(format!("{name}.jsonl"))).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            let o = v.as_object_mut().unwrap();
            for key in ["session_id", "transcript_path", "permission_mode"] {
                o.remove(key);
            }
            v
        })
        .collect()
}

/// The tool_result texts of a request's last message.
fn tool_results(body: &Value) -> Vec<String> {
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    last["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| match &b["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn failure_permission_request_and_denied_hooks_get_their_inputs_and_decide() {
    let script = Script::new([
        Reply::message()
            .tool_use("r1", "Read", json!({"file_path": "missing.txt"}))
            .tool_use("b1", "Bash", json!({"command": "rm -rf stuff"}))
            .tool_use("b2", "Bash", json!({"command": "touch asked"}))
            .into(),
        Reply::text("Done."),
    ]);
    let failure = r#"{"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "the file was moved to docs/"}}"#;
    let retry = r#"{"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": true}}"#;
    let allow = r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"command": "touch allowed-by-hook"}}}}"#;
    let env = project(
        script,
        json!({"permissions": {"deny": ["Bash(rm *)"]}, "hooks": {
            "PostToolUseFailure": [{"matcher": "Read", "hooks": [dump("failure", failure)]}],
            "PermissionDenied": [{"hooks": [dump("denied", retry)]}],
            "PermissionRequest": [{"matcher": "Bash", "hooks": [dump("request", allow)]}],
        }}),
    )
    .await;
    let out = env.tack().args(["-p", "go"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let cwd = env.cwd();
    let results = tool_results(&env.request_bodies()[1]);
    assert_eq!(results.len(), 3, "{results:?}");
    assert!(
        results[0].contains("the file was moved to docs/"),
        "{results:?}"
    );
    assert!(results[1].contains("you may retry"), "{results:?}");
    assert!(cwd.join("allowed-by-hook").exists() && !cwd.join("asked").exists());
    let failure = dumped(&env, "failure");
    assert_eq!(failure.len(), 1);
    let error = failure[0]["error"].as_str().unwrap().to_owned();
    assert!(error.contains("File does not exist"), "{error}");
    assert_eq!(
        failure,
        vec![
            json!({"cwd": cwd, "hook_event_name": "PostToolUseFailure", "tool_name": "Read",
            "tool_input": {"file_path": "missing.txt"}, "tool_use_id": "r1",
            "error": error, "is_interrupt": false})
        ]
    );
    let denied = dumped(&env, "denied");
    let reason = denied[0]["reason"].as_str().unwrap().to_owned();
    assert!(reason.contains("Bash(rm *)"), "{reason}");
    assert_eq!(
        denied,
        vec![
            json!({"cwd": cwd, "hook_event_name": "PermissionDenied", "tool_name": "Bash",
            "tool_input": {"command": "rm -rf stuff"}, "tool_use_id": "b1", "reason": reason})
        ]
    );
    let request = dumped(&env, "request");
    assert_eq!(request.len(), 1, "{request:?}");
    assert_eq!(request[0]["hook_event_name"], "PermissionRequest");
    assert_eq!(request[0]["tool_input"], json!({"command": "touch asked"}));
    assert!(
        request[0]["permission_suggestions"].is_array(),
        "{request:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn subagent_start_context_reaches_the_sub_agent() {
    let script = Script::new([
        Reply::tool_use(
            "toolu_agent",
            "Agent",
            json!({"description": "look", "prompt": "Look around.", "subagent_type": "looker"}),
        ),
        Reply::text("Nothing here."),
        Reply::text("The agent saw nothing."),
    ]);
    let context = r#"{"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "the repo uses tabs"}}"#;
    let env = project(
        script,
        json!({"hooks": {"SubagentStart": [{"matcher": "looker", "hooks": [dump("start", context)]}]}}),
    )
    .await;
    let agents =
        r#"{"looker": {"description": "Looks", "prompt": "You look.", "tools": ["Glob"]}}"#;
    let out = env
        .tack()
        .args(["-p", "go", "--agents", agents])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let started = dumped(&env, "start");
    let agent_id = started[0]["agent_id"].clone();
    assert_eq!(
        started,
        vec![json!({"cwd": env.cwd(), "hook_event_name": "SubagentStart",
                    "agent_id": agent_id, "agent_type": "looker"})]
    );
    let sub = &env.request_bodies()[1];
    // The prompt, then the hook's context as a reminder after it.
    let texts = last_texts(sub);
    let prompt = texts.iter().position(|t| t == "Look around.").unwrap();
    assert!(
        texts[prompt + 1].contains("the repo uses tabs"),
        "{texts:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn post_compact_and_instructions_loaded_fire_with_their_fields() {
    let script = Script::new([Reply::text("Hello."), Reply::text("Summary: said hello.")]);
    let env = project(
        script,
        json!({"hooks": {
            "PostCompact": [{"matcher": "manual", "hooks": [dump("compact", "")]}],
            "InstructionsLoaded": [{"hooks": [dump("loaded", "")]}],
        }}),
    )
    .await;
    write(env.cwd().join("CLAUDE.md"), "Use tabs.");
    let mut child = env.stream_json();
    let mut stdin = child.stdin.take().unwrap();
    let mut results = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str::<Value>(&l.unwrap()).unwrap())
        .filter(|r| r["type"] == "result");
    for text in ["hi", "/compact"] {
        writeln!(stdin, "{}", common::user_line(text)).unwrap();
        stdin.flush().unwrap();
        assert_eq!(results.next().unwrap()["is_error"], false);
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let summary = dumped(&env, "compact")[0]["compact_summary"].clone();
    assert!(
        summary.as_str().unwrap().contains("said hello"),
        "{summary}"
    );
    assert_eq!(
        dumped(&env, "compact"),
        vec![
            json!({"cwd": env.cwd(), "hook_event_name": "PostCompact", "trigger": "manual",
                    "compact_summary": summary})
        ]
    );
    let loaded = |reason: &str| {
        json!({"cwd": env.cwd(), "hook_event_name": "InstructionsLoaded",
               "file_path": env.cwd().join("CLAUDE.md"), "memory_type": "Project",
               "load_reason": reason})
    };
    assert_eq!(
        dumped(&env, "loaded"),
        vec![loaded("session_start"), loaded("compact")]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn cwd_changed_sets_watch_paths_and_file_changed_follows_them() {
    let script = Script::new([
        Reply::message()
            .tool_use("b1", "Bash", json!({"command": "cd sub"}))
            .into(),
        Reply::message()
            .tool_use(
                "b2",
                "Bash",
                json!({"command": "echo 'export A=1' > .envrc"}),
            )
            .into(),
        Reply::text("Done."),
    ]);
    let watch =
        r#"{"hookSpecificOutput": {"hookEventName": "CwdChanged", "watchPaths": [".envrc"]}}"#;
    let env = project(
        script,
        json!({"hooks": {
            "CwdChanged": [{"hooks": [dump("cwd", watch)]}],
            "FileChanged": [{"matcher": ".envrc", "hooks": [dump("file", "")]}],
        }}),
    )
    .await;
    std::fs::create_dir_all(env.cwd().join("sub")).unwrap();
    let out = env
        .tack()
        .args(["-p", "go", "--dangerously-skip-permissions"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let (cwd, sub) = (env.cwd(), env.cwd().join("sub"));
    assert_eq!(
        dumped(&env, "cwd"),
        vec![json!({"cwd": cwd, "hook_event_name": "CwdChanged",
                    "old_cwd": cwd, "new_cwd": sub})]
    );
    assert_eq!(
        dumped(&env, "file"),
        vec![json!({"cwd": cwd, "hook_event_name": "FileChanged",
                    "file_path": sub.join(".envrc"), "event": "add"})]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn if_conditions_use_permission_rules_and_once_hooks_run_once() {
    let script = Script::new([
        Reply::message()
            .tool_use("b1", "Bash", json!({"command": "git status"}))
            .into(),
        Reply::message()
            .tool_use("b2", "Bash", json!({"command": "echo hi"}))
            .into(),
        Reply::message()
            .tool_use("b3", "Bash", json!({"command": "cd . && git log -1"}))
            .into(),
        Reply::text("Done."),
    ]);
    let log = |tag: &str| {
        format!("jq -r .tool_input.command | sed 's/^/{tag}: /' >> \"$CLAUDE_PROJECT_DIR/log\"")
    };
    let env = project(
        script,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": log("git"), "if": "Bash(git *)"},
            {"type": "command", "command": log("once"), "once": true},
        ]}]}}),
    )
    .await;
    let out = env
        .tack()
        .args(["-p", "go", "--dangerously-skip-permissions"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let mut log: Vec<String> = std::fs::read_to_string(env.cwd().join("log"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    log.sort();
    assert_eq!(
        log,
        [
            "git: cd . && git log -1",
            "git: git status",
            "once: git status"
        ]
    );
}

/// Serves one HTTP request on `listener` with `body` (status 200), returning
/// the request's head and body.
fn serve_once(listener: TcpListener, body: String) -> std::thread::JoinHandle<(String, Value)> {
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream.set_nodelay(true).unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut head = String::new();
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
            if line == "\r\n" {
                break;
            }
            head.push_str(&line);
        }
        let mut request = vec![0; length];
        reader.read_exact(&mut request).unwrap();
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(response.as_bytes()).unwrap();
        (head, serde_json::from_slice(&request).unwrap())
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn an_http_hook_gets_the_input_and_its_answer_denies_the_call() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/pre", listener.local_addr().unwrap());
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "policy says no"}});
    let server = serve_once(listener, deny.to_string());
    let script = Script::new([
        Reply::message()
            .tool_use("b1", "Bash", json!({"command": "touch x"}))
            .into(),
        Reply::text("Denied."),
    ]);
    let env = project(
        script,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": url,
            "headers": {"Authorization": "Bearer $HOOK_TOKEN", "X-Leak": "$ANTHROPIC_API_KEY"},
            "allowedEnvVars": ["HOOK_TOKEN"], "timeout": 20}]}]}}),
    )
    .await;
    let out = env
        .tack()
        .env("HOOK_TOKEN", "t0k3n")
        .args(["-p", "go", "--dangerously-skip-permissions"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let (head, body) = server.join().unwrap();
    let head = head.to_ascii_lowercase();
    assert!(head.starts_with("post /pre http/1.1"), "{head}");
    assert!(head.contains("authorization: bearer t0k3n"), "{head}");
    assert!(
        !head.contains("test") && head.contains("x-leak: \r\n"),
        "{head}"
    );
    let mut body = body;
    for key in ["session_id", "transcript_path"] {
        body.as_object_mut().unwrap().remove(key);
    }
    assert_eq!(
        body,
        json!({"cwd": env.cwd(), "hook_event_name": "PreToolUse", "permission_mode": "bypassPermissions",
               "tool_name": "Bash", "tool_input": {"command": "touch x"}, "tool_use_id": "b1"})
    );
    assert!(!env.cwd().join("x").exists());
    let results = tool_results(&env.request_bodies()[1]);
    assert!(results[0].contains("policy says no"), "{results:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prompt_hook_asks_the_small_model_and_its_no_continues_the_turn() {
    let script = Script::new([
        Reply::text("All done."),
        Reply::text(r#"{"ok": false, "reason": "the tests were not run"}"#),
        Reply::text("Ran the tests: green."),
        Reply::text(r#"{"ok": true}"#),
    ]);
    let env = project(
        script,
        json!({"hooks": {"Stop": [{"hooks": [{"type": "prompt",
            "prompt": "Did the assistant run the tests? $ARGUMENTS"}]}]}}),
    )
    .await;
    let out = env
        .tack()
        .args(["-p", "fix it", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(lines(&out.stdout)[0]["result"], "Ran the tests: green.");
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 4);
    let judge = &bodies[1];
    let system = judge["system"].as_str().unwrap();
    assert!(system.starts_with("You are evaluating a hook"), "{system}");
    assert!(
        judge["model"].as_str().unwrap().contains("haiku"),
        "{judge}"
    );
    let asked = last_texts(judge).join("");
    assert!(
        asked.starts_with("Did the assistant run the tests? {"),
        "{asked}"
    );
    assert!(
        asked.contains(r#""last_assistant_message":"All done.""#),
        "{asked}"
    );
    let again = last_texts(&bodies[2]).join("");
    assert!(again.contains("the tests were not run"), "{again}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_async_rewake_hook_that_exits_2_wakes_the_model_with_a_new_turn() {
    let script = Script::new([
        Reply::message()
            .tool_use("g1", "Glob", json!({"pattern": "*"}))
            .into(),
        Reply::text("Done."),
        Reply::text("Fixing the lint."),
    ]);
    let lint = "cat >/dev/null; sleep 1; echo 'lint: 2 errors in a.rs' >&2; exit 2";
    let env = project(
        script,
        json!({"hooks": {"PostToolUse": [{"matcher": "Glob", "hooks": [{"type": "command",
            "command": lint, "asyncRewake": true, "rewakeMessage": "The linter failed."}]}]}}),
    )
    .await;
    let mut child = env.stream_json();
    let mut stdin = child.stdin.take().unwrap();
    let mut results = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str::<Value>(&l.unwrap()).unwrap())
        .filter(|r| r["type"] == "result");
    writeln!(stdin, "{}", common::user_line("lint as you go")).unwrap();
    stdin.flush().unwrap();
    let begun = Instant::now();
    assert_eq!(results.next().unwrap()["result"], "Done.");
    // Nobody writes: the hook's exit 2 starts the next turn.
    assert_eq!(results.next().unwrap()["result"], "Fixing the lint.");
    assert!(begun.elapsed() < Duration::from_secs(30));
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let woke = last_texts(&env.request_bodies()[2]).join("");
    assert!(
        woke.contains("The linter failed.\n\nlint: 2 errors in a.rs"),
        "{woke}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_settings_file_changed_between_prompts_fires_config_change() {
    let script = Script::new([Reply::text("One."), Reply::text("Two.")]);
    let env = project(
        script,
        json!({"hooks": {"ConfigChange": [{"matcher": "local_settings", "hooks": [dump("config", "")]}]}}),
    )
    .await;
    let mut child = env.stream_json();
    let mut stdin = child.stdin.take().unwrap();
    let mut results = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str::<Value>(&l.unwrap()).unwrap())
        .filter(|r| r["type"] == "result");
    let local = env.cwd().join(".claude/settings.local.json");
    for (text, answer) in [("one", "One."), ("two", "Two.")] {
        writeln!(stdin, "{}", common::user_line(text)).unwrap();
        stdin.flush().unwrap();
        assert_eq!(results.next().unwrap()["result"], answer);
        // Written after the first turn: seen before the second prompt.
        write(&local, r#"{"model": "opus"}"#);
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert_eq!(
        dumped(&env, "config"),
        vec![json!({"cwd": env.cwd(), "hook_event_name": "ConfigChange",
                    "source": "local_settings", "file_path": local})]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_permission_request_hook_that_denies_with_interrupt_ends_the_turn() {
    let script = Script::new([
        Reply::message()
            .tool_use("b1", "Bash", json!({"command": "touch x"}))
            .into(),
        Reply::text("never asked"),
    ]);
    let deny = r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "not now", "interrupt": true}}}"#;
    let env = project(
        script,
        json!({"hooks": {"PermissionRequest": [{"hooks": [dump("request", deny)]}]}}),
    )
    .await;
    let out = env
        .tack()
        .args(["-p", "go", "--output-format", "json"])
        .output()
        .unwrap();
    let result = &lines(&out.stdout)[0];
    // The turn stops at once, as a user's interrupt would stop it.
    assert_eq!(result["subtype"], "error_during_execution", "{result}");
    assert_eq!(
        result["permission_denials"],
        json!([{"tool_name": "Bash", "tool_use_id": "b1", "tool_input": {"command": "touch x"}}])
    );
    assert!(!env.cwd().join("x").exists());
    assert_eq!(env.request_bodies().len(), 1);
}

/// A skill's `` !`command` `` lines pass PreSkillShellCommand hooks before
/// the rules: typed as `/status` (`invoked_by: user`) and loaded by the
/// model's Skill call (`claude`). A hook's deny keeps a line from running
/// (its reason in the line's place); its allow adds nothing, so a line no
/// rule allows still does not run.
#[tokio::test(flavor = "multi_thread")]
async fn skill_shell_lines_ask_pre_skill_shell_command_hooks_first() {
    let script = Script::new([
        Reply::text("typed"),
        Reply::tool_use("t1", "Skill", json!({"skill": "status"})),
        Reply::text("loaded"),
    ]);
    let deny_secret = json!({"type": "command", "command":
        "grep -q secret && echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreSkillShellCommand\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"no secrets\"}}' || echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreSkillShellCommand\", \"permissionDecision\": \"allow\"}}'"});
    let hooks = json!({"PreSkillShellCommand": [{"matcher": "Bash",
                       "hooks": [dump("skillsh", "{}"), deny_secret]}]});
    let env = project(script, json!({"hooks": hooks})).await;
    write(
        env.cwd().join(".claude/skills/status/SKILL.md"),
        "---\ndescription: Shows status\nallowed-tools: Bash(echo:*)\n---\nA: !`echo fine`\nB: !`echo secret`\nC: !`touch made`\n",
    );
    for (prompt, extra) in [("/status", None), ("check", Some("Bash(echo:*)"))] {
        let mut tack = env.tack();
        tack.args(["-p", prompt]);
        if let Some(rule) = extra {
            tack.args(["--allowedTools", rule]);
        }
        let out = tack.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let not_run = "[`echo secret` was not run: a PreSkillShellCommand hook refused it: no secrets]";
    let touch = "[`touch made` was not run: ";
    let bodies = env.request_bodies();
    let typed = last_texts(&bodies[0]).join("\n");
    let loaded = tool_results(&bodies[2]).join("\n");
    for text in [&typed, &loaded] {
        assert!(
            text.contains(&format!("A: fine\nB: {not_run}\nC: {touch}")),
            "{text}"
        );
    }
    let received: Vec<Value> = dumped(&env, "skillsh")
        .into_iter()
        .map(|mut v| {
            let id = v["tool_use_id"].take();
            assert!(
                id.as_str().is_some_and(|id| id.starts_with("skillsh_")),
                "{id}"
            );
            json!([v["invoked_by"], v["tool_input"]["command"], v])
        })
        .collect();
    let input = |by: &str, command: &str| {
        json!([by, command, {"hook_event_name": "PreSkillShellCommand", "cwd": env.cwd(),
            "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": null,
            "command_name": "status", "command_source": "projectSettings", "invoked_by": by}])
    };
    assert_eq!(
        received,
        [
            input("user", "echo fine"),
            input("user", "echo secret"),
            input("user", "touch made"),
            input("claude", "echo fine"),
            input("claude", "echo secret"),
            input("claude", "touch made"),
        ]
    );
    assert!(!env.cwd().join("made").exists());
}
