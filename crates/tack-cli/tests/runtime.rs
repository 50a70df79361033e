//! End-to-end: the session runtime's promises, through the real binary and
//! through a minimal front end written in the test (no CLI code at all).

use crate::common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{Env, kinds, lines, redact};
use common::{stderr, write};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_runtime::records::Records;
use tack_runtime::{RuntimeEvent, SessionOptions, UserInput};
use tack_testkit::{Reply, Script};

/// A tool-using session: Glob, then a final answer.
fn glob_script() -> Script {
    Script::new([
        Reply::message()
            .text("Looking.")
            .tool_use("toolu_1", "Glob", json!({"pattern": "*.txt"}))
            .usage(20, 8)
            .into(),
        Reply::message().text("Found a.txt.").usage(30, 5).into(),
    ])
}

/// The transcript's records with what differs between runs replaced.
fn transcript_records(path: &std::path::Path, cwd: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut ids: HashMap<String, String> = HashMap::new();
    text.lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            // Chain ids are renumbered in order of appearance, so the chain
            // shape is compared, not the random ids.
            for key in ["uuid", "parentUuid", "promptId", "sourceToolAssistantUUID"] {
                if let Some(id) = v[key].as_str() {
                    let n = ids.len();
                    let id = ids.entry(id.to_owned()).or_insert_with(|| format!("id{n}"));
                    v[key] = json!(id);
                }
            }
            redact(&mut v, cwd);
            v["sessionId"] = json!("[session]");
            v
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_front_end_with_no_cli_code_gets_the_same_events_and_transcript_as_tack_p() {
    // The binary.
    let env = Env::new(glob_script()).await;
    write(env.cwd().join("a.txt"), "a");
    let out = env
        .tack()
        .args(["-p", "list", "--output-format", "stream-json", "--verbose"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let mut printed = lines(&out.stdout);
    let cli_transcript = transcript_records(&env.transcripts()[0], &env.cwd());

    // The same session driven by the runtime alone, in another project.
    let env2 = Env::new(glob_script()).await;
    write(env2.cwd().join("a.txt"), "a");
    let runtime = runtime_in(&env2).await;
    let records = Records::new(runtime.info().session_id.clone(), false);
    let (handle, mut events) = runtime.spawn();
    handle.submit(UserInput::text("list")).unwrap();
    drop(handle);
    let mut rendered = Vec::new();
    while let Some(event) = events.next().await {
        match event {
            RuntimeEvent::Started(info) => rendered.push(records.init(&info)),
            RuntimeEvent::Loop(e) => rendered.extend(records.loop_event(&e)),
            RuntimeEvent::TurnEnded(end) => rendered.push(
                tack_protocol::stream_json::StreamJsonRecord::Result(end.record.clone()),
            ),
            RuntimeEvent::Notice(n) => panic!("unexpected notice: {n:?}"),
            // The SDK front end renders these only when asked.
            RuntimeEvent::SessionState(_) => {}
            RuntimeEvent::CompactEnded { .. }
            | RuntimeEvent::Task(_)
            | RuntimeEvent::Teammate(_)
            | RuntimeEvent::PermissionDenied(_)
            | RuntimeEvent::Input(_)
            | RuntimeEvent::PermissionRequest(_)
            | RuntimeEvent::HookCallback(_)
            | RuntimeEvent::AskWithdrawn { .. }
            | RuntimeEvent::Reply { .. }
            | RuntimeEvent::Hook(_)
            | RuntimeEvent::ConversationReset(_)
            | RuntimeEvent::TranscriptMirror(_)
            | RuntimeEvent::Subagent(_) => {
                panic!("unexpected event")
            }
            RuntimeEvent::Ended => break,
        }
    }
    let mut direct: Vec<Value> = rendered
        .iter()
        .map(|r| serde_json::to_value(r).unwrap())
        .collect();
    for (records, cwd) in [(&mut printed, env.cwd()), (&mut direct, env2.cwd())] {
        for r in records.iter_mut() {
            redact(r, &cwd);
        }
    }
    assert_eq!(
        kinds(&direct),
        [
            "system/init",
            "assistant",
            "assistant",
            "user",
            "assistant",
            "result/success"
        ]
    );
    assert_eq!(direct, printed);
    let direct_transcript = transcript_records(&env2.transcripts()[0], &env2.cwd());
    assert_eq!(direct_transcript, cli_transcript);
    // And both sent the same requests.
    let strip = |bodies: Vec<Value>, cwd: &std::path::Path| -> Vec<Value> {
        bodies
            .into_iter()
            .map(|mut b| {
                b["system"] = Value::Null; // has the cwd and the date
                b["metadata"] = Value::Null; // has the session id
                redact(&mut b, cwd);
                b
            })
            .collect()
    };
    assert_eq!(
        strip(env2.request_bodies(), &env2.cwd()),
        strip(env.request_bodies(), &env.cwd())
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pre_compact_hook_on_its_own_runs_on_autocompaction_with_trigger_auto() {
    let env = Env::new(Script::new([
        // The reported usage puts the context over the autocompact threshold
        // (167k of Sonnet 4.5's 200k) for the next request.
        Reply::message()
            .tool_use("toolu_1", "Glob", json!({"pattern": "*"}))
            .usage(170_000, 10)
            .into(),
        Reply::text("<summary>Listed the files.</summary>"),
        Reply::text("Done."),
    ]))
    .await;
    std::fs::create_dir_all(env.cwd().join(".git")).unwrap();
    let log = env.cwd().join("precompact.log");
    let hook = format!("cat >> {}; echo >> {}", log.display(), log.display());
    write(
        env.cwd().join(".claude/settings.json"),
        &json!({"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": hook}]}]}})
            .to_string(),
    );
    env.trust();
    let out = env
        .tack()
        .args([
            "-p",
            "go",
            "--model",
            "claude-sonnet-4-5",
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(kinds(&lines(&out.stdout)).contains(&"system/compact_boundary".to_owned()));
    let inputs: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(inputs.len(), 1, "{inputs:?}");
    assert_eq!(
        (&inputs[0]["hook_event_name"], &inputs[0]["trigger"]),
        (&json!("PreCompact"), &json!("auto"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_async_hook_does_not_delay_the_result() {
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use("toolu_1", "Glob", json!({"pattern": "*"}))
            .into(),
        Reply::text("Done."),
    ]))
    .await;
    std::fs::create_dir_all(env.cwd().join(".git")).unwrap();
    let started = env.cwd().join("lint-started");
    // Marks that it started, then would hold the session for 30 s if waited for.
    let hook = format!("touch {}; sleep 30", started.display());
    write(
        env.cwd().join(".claude/settings.json"),
        &json!({"hooks": {"PostToolUse": [{"matcher": "Glob",
            "hooks": [{"type": "command", "command": hook, "async": true, "timeout": 60}]}]}})
        .to_string(),
    );
    env.trust();
    // stream-json input keeps tack running after the result, so the test can
    // see the hook running while the turn is already over.
    let mut child = env.stream_json();
    let mut stdin = child.stdin.take().unwrap();
    let begun = Instant::now();
    writeln!(
        stdin,
        "{}",
        json!({"type": "user", "message": {"role": "user", "content": "go"}})
    )
    .unwrap();
    stdin.flush().unwrap();
    let mut result = None;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let record: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if record["type"] == "result" {
            result = Some(record);
            break;
        }
    }
    let took = begun.elapsed();
    let result = result.expect("a result record");
    assert_eq!(result["result"], "Done.");
    assert!(
        took < Duration::from_secs(20),
        "the turn waited {took:?} for the hook"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !started.exists() {
        assert!(Instant::now() < deadline, "the async hook never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn what_an_async_hook_reports_reaches_the_model_on_the_next_turn() {
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use("toolu_1", "Glob", json!({"pattern": "*"}))
            .into(),
        Reply::text("Done."),
        Reply::text("Fixing the warnings."),
    ]))
    .await;
    std::fs::create_dir_all(env.cwd().join(".git")).unwrap();
    let done = env.cwd().join("lint-done");
    // A linter that takes a second, then reports; the turn does not wait for it.
    // Its last act is to leave its pid, so the test can see when tack has reaped it.
    let hook = format!(
        "sleep 1; echo '{{\"systemMessage\": \"lint: 2 warnings in a.rs\"}}'; echo $$ > {}",
        done.display()
    );
    write(
        env.cwd().join(".claude/settings.json"),
        &json!({"hooks": {"PostToolUse": [{"matcher": "Glob",
            "hooks": [{"type": "command", "command": hook, "async": true}]}]}})
        .to_string(),
    );
    env.trust();
    let mut child = env.stream_json();
    let mut stdin = child.stdin.take().unwrap();
    let mut results = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str::<Value>(&l.unwrap()).unwrap())
        .filter(|r| r["type"] == "result");
    let mut say = |text: &str| {
        writeln!(
            stdin,
            "{}",
            json!({"type": "user", "message": {"role": "user", "content": text}})
        )
        .unwrap();
        stdin.flush().unwrap();
    };
    say("lint as you go");
    assert_eq!(results.next().unwrap()["result"], "Done.");
    // Until tack has reaped the hook (its /proc entry goes with the zombie), and
    // so read its whole output.
    let deadline = Instant::now() + Duration::from_secs(10);
    let reaped = || {
        std::fs::read_to_string(&done)
            .ok()
            .and_then(|pid| pid.trim().parse::<u32>().ok())
            .is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists())
    };
    while !reaped() {
        assert!(Instant::now() < deadline, "the async hook never finished");
        std::thread::sleep(Duration::from_millis(10));
    }
    say("anything else?");
    assert_eq!(results.next().unwrap()["result"], "Fixing the warnings.");
    drop(stdin);
    assert!(child.wait().unwrap().success());

    let bodies = env.request_bodies();
    let last_user = |body: &Value| {
        body["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .to_string()
    };
    let said = "PostToolUse hook (async) says: lint: 2 warnings in a.rs";
    assert!(
        !last_user(&bodies[1]).contains(said),
        "{}",
        last_user(&bodies[1])
    );
    assert!(
        last_user(&bodies[2]).contains(said),
        "{}",
        last_user(&bodies[2])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_untrusted_repos_allow_rules_do_not_apply_until_it_is_trusted() {
    let victim = |n: u32| format!("victim-{n}.txt");
    let script = |n: u32| {
        Reply::message()
            .tool_use(
                &format!("toolu_{n}"),
                "Bash",
                json!({"command": format!("rm {}", victim(n))}),
            )
            .into()
    };
    let env = Env::new(Script::new([
        script(1),
        Reply::text("could not"),
        script(2),
        Reply::text("removed"),
    ]))
    .await;
    std::fs::create_dir_all(env.cwd().join(".git")).unwrap();
    let settings = env.cwd().join(".claude/settings.json");
    write(&settings, r#"{"permissions": {"allow": ["Bash(*)"]}}"#);
    write(env.cwd().join(victim(1)), "keep me");
    write(env.cwd().join(victim(2)), "remove me");

    let out = env
        .tack()
        .args(["-p", "clean up", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        env.cwd().join(victim(1)).exists(),
        "rm ran in an untrusted repo"
    );
    assert_eq!(
        stderr(&out),
        format!(
            "Ignoring 1 permissions.allow entry from .claude/settings.json: this workspace has not been trusted. Run `tack trust` in {} to trust it.\n",
            env.cwd().display()
        )
    );
    let result = &lines(&out.stdout)[0];
    assert_eq!(result["permission_denials"][0]["tool_name"], "Bash");

    env.trust();
    let out = env
        .tack()
        .args(["-p", "clean up", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    assert!(
        !env.cwd().join(victim(2)).exists(),
        "rm did not run once trusted"
    );
    assert_eq!(lines(&out.stdout)[0]["permission_denials"], json!([]));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupt_over_stream_json_ends_the_turn_at_once_and_the_next_message_works() {
    let env = Env::new(Script::new([
        // A 20 s answer: a few events, then nothing for 20 s.
        Reply::message()
            .text("This answer takes a long time to write out in full.")
            .stall_after(4, Duration::from_secs(20))
            .into(),
        Reply::text("Second answer."),
    ]))
    .await;
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("tack"))
        .env_clear()
        .envs(env.vars())
        .current_dir(env.cwd())
        .args(common::STREAM_JSON)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<(Instant, Value)>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send((Instant::now(), serde_json::from_str(&line).unwrap()));
        }
    });
    let send = |stdin: &mut std::process::ChildStdin, line: Value| {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    };
    send(
        &mut stdin,
        json!({"type": "user", "message": {"role": "user", "content": "write a lot"}}),
    );
    // Wait until the answer is streaming, then one second more.
    let deadline = Instant::now() + Duration::from_secs(10);
    while env.server.requests().is_empty() {
        assert!(Instant::now() < deadline, "no request was sent");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_secs(1));
    let interrupted_at = Instant::now();
    send(
        &mut stdin,
        json!({"type": "control_request", "request_id": "req_int", "request": {"subtype": "interrupt"}}),
    );
    let mut records = Vec::new();
    let result_at = loop {
        let (at, record) = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("a result record");
        let is_result = record["type"] == "result";
        records.push(record);
        if is_result {
            break at;
        }
    };
    let latency = result_at - interrupted_at;
    assert!(
        latency < Duration::from_millis(200),
        "result {latency:?} after the interrupt"
    );
    let result = records.last().unwrap();
    assert_eq!(
        (&result["subtype"], &result["is_error"]),
        (&json!("error_during_execution"), &json!(true))
    );
    // The interrupt is answered (with its receipt) just before the result of
    // the turn it ended, as Claude Code does.
    let answer = &records[records.len() - 2];
    assert_eq!(
        answer,
        &json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": "req_int", "response": {"still_queued": []}}})
    );

    send(
        &mut stdin,
        json!({"type": "user", "message": {"role": "user", "content": "again"}}),
    );
    let mut second = Vec::new();
    loop {
        let (_, record) = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the second turn");
        let is_result = record["type"] == "result";
        second.push(record);
        if is_result {
            break;
        }
    }
    assert_eq!(kinds(&second), ["assistant", "result/success"]);
    assert_eq!(second[1]["result"], "Second answer.");
    drop(stdin);
    assert!(child.wait().unwrap().success());

    // The transcript is valid and resumes: both prompts and the second answer.
    let loaded = tack_store::load(&env.transcripts()[0]).unwrap();
    assert_eq!(loaded.warnings.len(), 0, "{:?}", loaded.warnings);
    let texts: Vec<&str> = loaded
        .messages
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|b| match b {
            tack_protocol::ContentBlock::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["write a lot", "again", "Second answer."]);
    // The second request carried both prompts.
    let bodies = env.request_bodies();
    assert!(bodies[1]["messages"].to_string().contains("write a lot"));
}

#[tokio::test(flavor = "multi_thread")]
async fn without_credentials_tack_says_what_it_looked_for_before_any_request() {
    let env = Env::new(Script::new([Reply::text("never")])).await;
    let out = env
        .tack()
        .args(["-p", "hi"])
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "Error: no credentials: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or an apiKeyHelper command in settings\n"
    );
    assert!(env.server.requests().is_empty());
    assert!(env.transcripts().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn transcripts_older_than_cleanup_period_days_are_removed_at_start() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let store = tack_store::SessionStore::new(env.claude_dir());
    let other_project = store.project_dir(std::path::Path::new("/some/other/project"));
    let old = other_project.join("11111111-1111-4111-8111-111111111111.jsonl");
    let recent = other_project.join("22222222-2222-4222-8222-222222222222.jsonl");
    for path in [&old, &recent] {
        write(path, "{}\n");
    }
    let file = std::fs::File::options().write(true).open(&old).unwrap();
    file.set_modified(std::time::SystemTime::now() - Duration::from_secs(3 * 86_400))
        .unwrap();
    write(
        env.config_dir().join("settings.json"),
        r#"{"cleanupPeriodDays": 2}"#,
    );
    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!old.exists(), "the old transcript is still there");
    assert!(recent.exists());
    assert_eq!(env.transcripts().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn temp_files_left_by_a_killed_write_are_removed_at_the_next_start() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let journals = env.config_dir().join("pending-writes");
    let dir = env.config_dir().join("somewhere");
    let left = dir.join(".settings.json.tack-0123456789abcdef.tmp");
    let kept_live = dir.join(".settings.json.tack-fedcba9876543210.tmp");
    let not_ours = dir.join("notes.txt");
    for path in [&left, &kept_live, &not_ours] {
        write(path, "x");
    }
    // A process that has exited listed one of ours and a file that is not a
    // temporary file; this (live) test process listed another.
    let mut gone = Command::new("true").spawn().unwrap();
    let gone_pid = gone.id();
    gone.wait().unwrap();
    let listing = |paths: &[&std::path::Path]| {
        paths
            .iter()
            .map(|p| format!("{}\n", p.display()))
            .collect::<String>()
    };
    write(
        journals.join(gone_pid.to_string()),
        &listing(&[&left, &not_ours]),
    );
    write(
        journals.join(std::process::id().to_string()),
        &listing(&[&kept_live]),
    );
    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !left.exists(),
        "the dead process's temp file is still there"
    );
    assert!(!journals.join(gone_pid.to_string()).exists());
    assert!(kept_live.exists(), "a live process's temp file was removed");
    assert!(
        not_ours.exists(),
        "a file not named like a temp file was removed"
    );
}

/// A session started by the runtime alone in `env`'s project.
async fn runtime_in(env: &Env) -> tack_runtime::Runtime {
    let vars: HashMap<String, String> = env
        .vars()
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_string_lossy().into_owned()))
        .collect();
    let place = tack_runtime::Place::new(env.cwd(), tack_runtime::Env(vars)).unwrap();
    let loaded = tack_runtime::load_settings(&place, None).unwrap();
    tack_runtime::start(place, &loaded, SessionOptions::default())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_arrival_wakes_the_idle_session_which_waits_for_expected_ones_after_its_input() {
    let env = Env::new(Script::new([Reply::text("First."), Reply::text("Heard.")])).await;
    let runtime = runtime_in(&env).await;
    let arrivals = runtime.arrivals();
    // A teammate still running: the session must not end with its input.
    let expecting = arrivals.expect();
    let (handle, mut events) = runtime.spawn();
    handle.submit(UserInput::text("hello")).unwrap();
    handle.end_input(None).unwrap();
    drop(handle);
    let message = "<teammate-message teammate_id=\"tester\">tests pass</teammate-message>";
    let mut expecting = Some(expecting);
    let mut results = Vec::new();
    while let Some(event) = tokio::time::timeout(Duration::from_secs(20), events.next())
        .await
        .expect("the session hangs")
    {
        match event {
            // The teammate reports and ends while the first answer streams
            // (too late for its request: it waits for the session to idle);
            // the first result is held until then, as for a background agent.
            RuntimeEvent::Loop(tack_runtime::LoopEvent::AssistantMessage(_)) => {
                if let Some(guard) = expecting.take() {
                    arrivals.push(tack_runtime::Arrival::soon(message));
                    drop(guard);
                }
            }
            RuntimeEvent::TurnEnded(end) => results.push(end.record.result.clone()),
            RuntimeEvent::Ended => break,
            _ => {}
        }
    }
    assert_eq!(
        results,
        [Some("First.".to_owned()), Some("Heard.".to_owned())]
    );
    let bodies = env.request_bodies();
    assert_eq!(
        bodies[1]["messages"].as_array().unwrap().last().unwrap(),
        &json!({"role": "user", "content": [{"type": "text", "text": message,
            "cache_control": {"type": "ephemeral"}}]})
    );
}
