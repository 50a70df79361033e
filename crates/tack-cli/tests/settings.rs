//! End-to-end: settings files, `--settings` and their effect on the run (model,
//! permissions, env, apiKeyHelper), with the real binary against the scripted server.

use crate::common;

use common::{Env, lines};
use common::{stderr, write};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// The text of every tool_result the model was sent.
fn tool_results(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "tool_result")
        .map(|b| b["content"].to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_malformed_settings_file_stops_tack_before_any_request() {
    let env = Env::new(Script::new([Reply::text("never")])).await;
    let home = env.home.path();
    // The user's own file (a broken one of the repository's is skipped with a
    // warning: hardening2.rs).
    let path = write(
        home.join(".claude/settings.json"),
        "{\n  \"model\": \"claude-opus-4-1\",\n  \"permissions\": {\"allow\": [\"Read\"],}\n}\n",
    );
    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "Error: invalid settings in {}:3:37: trailing comma\n",
            path.display()
        )
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert!(env.server.requests().is_empty());
    assert!(env.transcripts().is_empty());

    // A known key with the wrong type, in tack's own user settings.
    std::fs::remove_file(&path).unwrap();
    let path = write(
        home.join(".tack/settings.json"),
        "{\"cleanupPeriodDays\": \"soon\"}",
    );
    let out = env
        .tack()
        .args(["-p", "hi", "--output-format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "Error: invalid settings in {}:1:28: `cleanupPeriodDays`: invalid type: string \"soon\", expected u32\n",
            path.display()
        )
    );
    assert!(env.server.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_model_comes_from_settings_below_env_and_flags() {
    let replies = (0..4).map(|_| Reply::text("ok"));
    let env = Env::new(Script::new(replies)).await;
    write(
        env.home.path().join(".claude/settings.json"),
        r#"{"model": "claude-opus-4-1"}"#,
    );
    // The project level beats the user level; an alias resolves.
    write(
        env.cwd().join(".claude/settings.json"),
        r#"{"model": "haiku"}"#,
    );
    let run = |cmd: &mut assert_cmd::Command| {
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    };
    run(env.tack().args(["-p", "hi"]));
    // ANTHROPIC_MODEL beats settings; --model beats both; --settings beats files.
    run(env
        .tack()
        .args(["-p", "hi"])
        .env("ANTHROPIC_MODEL", "claude-opus-4-1"));
    run(env
        .tack()
        .args(["-p", "hi", "--model", "sonnet"])
        .env("ANTHROPIC_MODEL", "claude-opus-4-1"));
    run(env
        .tack()
        .args(["-p", "hi", "--settings", r#"{"model": "claude-opus-4-1"}"#]));
    let models: Vec<Value> = env
        .request_bodies()
        .iter()
        .map(|b| b["model"].clone())
        .collect();
    assert_eq!(
        models,
        [
            "claude-haiku-5-5",
            "claude-opus-4-1",
            "claude-sonnet-5-5",
            "claude-opus-4-1"
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_settings_deny_rule_denies_the_call_and_names_its_file() {
    let script = Script::new([
        Reply::message()
            .tool_use("t1", "Bash", json!({"command": "rm victim.txt"}))
            .into(),
        Reply::text("Could not."),
    ]);
    let env = Env::new(script).await;
    std::fs::write(env.cwd().join("victim.txt"), "keep me").unwrap();
    // bypassPermissions would allow anything; the deny rule still wins.
    let path = write(
        env.cwd().join(".tack/settings.json"),
        r#"{"permissions": {"defaultMode": "bypassPermissions", "deny": ["Bash(rm *)"]}}"#,
    );
    let out = env
        .tack()
        .args(["-p", "clean up", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(env.cwd().join("victim.txt").exists());
    let result = &lines(&out.stdout)[0];
    assert_eq!(
        result["permission_denials"],
        json!([{"tool_name": "Bash", "tool_use_id": "t1", "tool_input": {"command": "rm victim.txt"}}])
    );
    let sent = tool_results(&env.request_bodies()[1]);
    let expected = format!(
        "Permission to use Bash has been denied by rule `Bash(rm *)` (projectSettings) in {}",
        path.display()
    );
    assert!(sent.contains(&expected), "{sent}");
}

#[tokio::test(flavor = "multi_thread")]
async fn inline_settings_json_is_the_top_settings_layer() {
    let replies = (0..2).map(|_| Reply::text("ok"));
    let env = Env::new(Script::new(replies)).await;
    env.trust();
    write(
        env.cwd().join(".claude/settings.local.json"),
        r#"{"model": "haiku", "permissions": {"defaultMode": "acceptEdits"}}"#,
    );
    let inline = r#"{"model": "claude-opus-4-1", "permissions": {"defaultMode": "plan"}}"#;
    let out = env
        .tack()
        .args(["-p", "hi", "--output-format", "stream-json", "--verbose"])
        .args(["--settings", inline])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let init = &lines(&out.stdout)[0];
    assert_eq!(
        (&init["model"], &init["permissionMode"]),
        (&json!("claude-opus-4-1"), &json!("plan"))
    );

    // A file works too (relative to the cwd); --permission-mode beats settings.
    write(env.cwd().join("ci/settings.json"), r#"{"model": "sonnet"}"#);
    let out = env
        .tack()
        .args(["-p", "hi", "--output-format", "stream-json", "--verbose"])
        .args([
            "--settings",
            "ci/settings.json",
            "--permission-mode",
            "default",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let init = &lines(&out.stdout)[0];
    assert_eq!(
        (&init["model"], &init["permissionMode"]),
        (&json!("claude-sonnet-5-5"), &json!("default"))
    );
    let models: Vec<Value> = env
        .request_bodies()
        .iter()
        .map(|b| b["model"].clone())
        .collect();
    assert_eq!(models, ["claude-opus-4-1", "claude-sonnet-5-5"]);

    // A --settings file that does not exist is an error.
    let out = env
        .tack()
        .args(["-p", "hi", "--settings", "missing.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "Error: cannot read settings file {}: No such file or directory (os error 2)\n",
            env.cwd().join("missing.json").display()
        )
    );
    assert_eq!(env.server.requests().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn settings_env_reaches_tack_and_the_bash_tool() {
    let script = Script::new([
        Reply::message()
            .tool_use(
                "t1",
                "Bash",
                json!({"command": "echo \"FOO=$FOO BAR=$BAR\""}),
            )
            .into(),
        Reply::text("done"),
    ]);
    let env = Env::new(script).await;
    env.trust();
    write(
        env.home.path().join(".claude/settings.json"),
        r#"{"env": {"FOO": "from-user-settings", "BAR": "user", "ANTHROPIC_MODEL": "claude-opus-4-1",
                    "CLAUDE_CODE_MAX_OUTPUT_TOKENS": "4096", "MAX_THINKING_TOKENS": 1024},
            "permissions": {"allow": ["Bash(echo *)"]}}"#,
    );
    write(
        env.cwd().join(".tack/settings.local.json"),
        r#"{"env": {"BAR": "local"}}"#,
    );
    // A settings `env` value beats the inherited environment (as in Claude Code).
    let out = env
        .tack()
        .args(["-p", "show"])
        .env("FOO", "from-shell")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let bodies = env.request_bodies();
    // The variables tack reads come from settings too (a number is accepted).
    assert_eq!(
        (
            &bodies[0]["model"],
            &bodies[0]["max_tokens"],
            &bodies[0]["thinking"]["budget_tokens"]
        ),
        (&json!("claude-opus-4-1"), &json!(4096), &json!(1024))
    );
    let sent = tool_results(&bodies[1]);
    assert!(sent.contains("FOO=from-user-settings BAR=local"), "{sent}");
}

#[tokio::test(flavor = "multi_thread")]
async fn api_key_helper_output_is_sent_as_both_headers() {
    let env = Env::new(Script::new([Reply::text("ok"), Reply::text("ok")])).await;
    env.trust();
    write(
        env.cwd().join(".claude/settings.json"),
        r#"{"apiKeyHelper": "printf 'sk-from-helper\n'"}"#,
    );
    let out = env
        .tack()
        .args(["-p", "hi", "--output-format", "stream-json", "--verbose"])
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(lines(&out.stdout)[0]["apiKeySource"], "apiKeyHelper");
    let requests = env.server.requests();
    let auth = (
        requests[0].header("x-api-key"),
        requests[0].header("authorization"),
    );
    assert_eq!(
        auth,
        (Some("sk-from-helper"), Some("Bearer sk-from-helper"))
    );

    // ANTHROPIC_API_KEY wins over the helper, which then does not run.
    write(
        env.cwd().join(".claude/settings.json"),
        r#"{"apiKeyHelper": "echo broken >&2; exit 7"}"#,
    );
    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let requests = env.server.requests();
    assert_eq!(requests[1].header("x-api-key"), Some("test"));
    // Without it the helper's failure stops tack before any request.
    let out = env
        .tack()
        .args(["-p", "hi"])
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "Error: apiKeyHelper `echo broken >&2; exit 7` exited with status 7: broken\n"
    );
    assert_eq!(env.server.requests().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn proxy_variables_from_settings_env_reach_the_http_client() {
    // reqwest reads HTTP(S)_PROXY from the process environment, where main puts
    // the settings `env`: the scripted server plays the proxy for a host that
    // does not exist.
    let env = Env::new(Script::new([Reply::text("via proxy")])).await;
    let settings = json!({"env": {"HTTP_PROXY": env.server.base_url()}}).to_string();
    let out = env
        .tack()
        .args(["-p", "hi", "--settings", &settings])
        .env("ANTHROPIC_BASE_URL", "http://api.tack-proxy-test.invalid")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "via proxy\n");
    assert_eq!(env.server.requests().len(), 1);
}
