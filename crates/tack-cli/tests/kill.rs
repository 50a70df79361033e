//! The kill test: SIGKILL `tack` at 20 random moments of a slowly streaming,
//! tool-running session, then `--resume` each. Everything printed before the
//! kill must be in the transcript, and the resumed request must be a valid
//! conversation (every tool_use answered). Seeded, so failures reproduce.

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use tack_protocol::{ContentBlock, Role};
use tack_testkit::{MockServer, Reply, Script};

const SEED: u64 = 0x7ac4_2026;
const KILLS: usize = 20;
const PROMPT: &str = "run the two steps";

fn slow_script() -> Script {
    let pace = Duration::from_millis(8);
    Script::new([
        Reply::message()
            .text("Step one: I will run the first command now, slowly.")
            .tool_use("toolu_a", "Bash", json!({"command": "sleep 0.3; echo one"}))
            .pacing(pace)
            .into(),
        Reply::message()
            .text("Step two: the second command, also slowly.")
            .tool_use("toolu_b", "Bash", json!({"command": "sleep 0.3; echo two"}))
            .pacing(pace)
            .into(),
        Reply::message()
            .text("All done: both commands ran and printed their output.")
            .pacing(pace)
            .into(),
    ])
}

struct Run {
    printed: Vec<Value>,
    killed_during_tool: bool,
}

fn run_and_kill(env: &common::Env, base_url: &str, session_id: &str, kill_after: Duration) -> Run {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("tack"))
        .args([
            "-p",
            PROMPT,
            "--output-format",
            "stream-json",
            "--verbose",
            "--dangerously-skip-permissions",
        ])
        .args(["--session-id", session_id])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", env.home.path())
        .env("TACK_CONFIG_DIR", env.config_dir())
        .env("ANTHROPIC_BASE_URL", base_url)
        .env("ANTHROPIC_API_KEY", "test")
        .current_dir(env.cwd())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let reader = {
        let lines = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                lines.lock().unwrap().push(line);
            }
        })
    };
    let started = Instant::now();
    while started.elapsed() < kill_after {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = child.kill(); // SIGKILL
    child.wait().unwrap();
    reader.join().unwrap();
    let lines = lines.lock().unwrap().clone();
    // Only complete lines count as printed; a line cut by the kill is not JSON.
    let printed: Vec<Value> = lines
        .iter()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let mut pending_tools = 0i32;
    for r in &printed {
        let content = r["message"]["content"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for b in content {
            match b["type"].as_str() {
                Some("tool_use") => pending_tools += 1,
                Some("tool_result") => pending_tools -= 1,
                _ => {}
            }
        }
    }
    Run {
        printed,
        killed_during_tool: pending_tools > 0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_at_random_moments_then_resume_loses_nothing_shown() {
    // Measure one full run to pick kill moments across its whole length.
    let probe = common::Env::new(slow_script()).await;
    let (url, sid) = (probe.server.base_url(), uuid::Uuid::new_v4().to_string());
    let t0 = Instant::now();
    let full = tokio::task::spawn_blocking({
        let probe = Arc::new(probe);
        move || {
            let run = run_and_kill(&probe, &url, &sid, Duration::from_secs(30));
            (run, probe)
        }
    })
    .await
    .unwrap();
    let total = t0.elapsed();
    assert_eq!(
        full.0.printed.last().unwrap()["subtype"],
        "success",
        "the unkilled run completes"
    );

    let mut rng = rand::rngs::StdRng::seed_from_u64(SEED);
    let mut during_tool = 0;
    let mut with_output = 0;
    for i in 0..KILLS {
        let at = Duration::from_secs_f64(rng.random_range(0.0..total.as_secs_f64()));
        let env = Arc::new(common::Env::new(slow_script()).await);
        let sid = uuid::Uuid::new_v4().to_string();
        let run = tokio::task::spawn_blocking({
            let (env, url, sid) = (env.clone(), env.server.base_url(), sid.clone());
            move || run_and_kill(&env, &url, &sid, at)
        })
        .await
        .unwrap();
        during_tool += usize::from(run.killed_during_tool);
        with_output += usize::from(!run.printed.is_empty());

        let store = env.store();
        let path = store.transcript_path(&env.cwd(), &sid).unwrap();
        if run.printed.is_empty() && !path.exists() {
            continue; // killed before anything was written or shown
        }
        let loaded = tack_store::load(&path).unwrap_or_else(|e| panic!("kill {i} at {at:?}: {e}"));
        let ctx = format!(
            "kill {i} at {at:?}, printed {} records, warnings {:?}",
            run.printed.len(),
            loaded.warnings
        );

        // Everything printed is in the transcript.
        let blocks: Vec<&ContentBlock> = loaded
            .messages
            .iter()
            .flat_map(|m| m.content.iter())
            .collect();
        if !run.printed.is_empty() {
            assert!(
                loaded
                    .messages
                    .first()
                    .is_some_and(|m| m.role == Role::User && m.text().contains(PROMPT)),
                "{ctx}: the prompt is missing"
            );
        }
        for record in &run.printed {
            for b in record["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
            {
                let found = match b["type"].as_str() {
                    Some("text") => blocks.iter().any(|x| matches!(x, ContentBlock::Text { text, .. } if text == b["text"].as_str().unwrap())),
                    Some("tool_use") => blocks.iter().any(|x| matches!(x, ContentBlock::ToolUse { id, .. } if id == b["id"].as_str().unwrap())),
                    Some("tool_result") => blocks.iter().any(|x| matches!(x, ContentBlock::ToolResult { tool_use_id, is_error: false, .. } if tool_use_id == b["tool_use_id"].as_str().unwrap())),
                    _ => true,
                };
                assert!(found, "{ctx}: printed block {b} is not in the transcript");
            }
        }

        // Resume with a fresh server: the next request is a valid conversation.
        let server = MockServer::start(Script::new([Reply::text("Resumed.")]))
            .await
            .unwrap();
        let out = tokio::task::spawn_blocking({
            let (env, url, sid) = (env.clone(), server.base_url(), sid.clone());
            move || {
                let mut cmd = env.tack();
                cmd.env("ANTHROPIC_BASE_URL", url)
                    .args(["-p", "continue", "--resume", &sid]);
                cmd.output().unwrap()
            }
        })
        .await
        .unwrap();
        assert!(
            out.status.success(),
            "{ctx}: resume failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let requests = server.requests();
        assert_eq!(requests.len(), 1, "{ctx}");
        let messages = requests[0].body["messages"].as_array().unwrap().clone();
        common::assert_every_tool_use_answered(&messages);
        let roles: Vec<&str> = messages
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert!(
            roles.windows(2).all(|w| w[0] != w[1]),
            "{ctx}: roles alternate: {roles:?}"
        );
        assert_eq!(roles.last(), Some(&"user"), "{ctx}");
        assert!(
            requests[0].body.to_string().contains(PROMPT) || run.printed.is_empty(),
            "{ctx}"
        );
    }
    assert!(
        during_tool >= 3,
        "only {during_tool} kills landed during a tool run"
    );
    assert!(
        with_output >= 10,
        "only {with_output} kills happened after output started"
    );
    drop(full);
}
