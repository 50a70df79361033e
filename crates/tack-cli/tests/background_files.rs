//! What background sessions leave for other tools to read: `state.json`'s
//! other keys and `timeline.jsonl` as Claude Code keeps them, jobs found by
//! part of a name, and a session a live background process holds refused to
//! `-r` and `-c`.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

use crate::background::{CLAUDE_KEYS, agents, background, state, tack, wait_for};
use crate::common::Env;

#[tokio::test(flavor = "multi_thread")]
async fn the_state_json_carries_claude_codes_other_keys_and_jobs_are_found_by_part_of_a_name() {
    let env = Env::new(Script::new([
        Reply::text("the answer is 42\nas always"),
        Reply::text("a second"),
    ]))
    .await;
    let prompt = "what is the answer\nthink hard";
    let (id, dir, _reap) = background(&env, &["--name", "answer-one", prompt]);
    let (other, _, _reap_other) = background(&env, &["-n", "answer-two", "and this"]);
    wait_for(&dir, "done", "idle");
    let whole: Value =
        serde_json::from_slice(&std::fs::read(dir.join("state.json")).unwrap()).unwrap();
    let claude: Vec<(&str, Value)> = CLAUDE_KEYS
        .iter()
        .map(|k| (*k, whole[*k].clone()))
        .filter(|(k, _)| !k.ends_with("At"))
        .collect();
    assert_eq!(
        claude,
        vec![
            ("nameSource", json!("user")),
            ("intent", json!(prompt)),
            ("detail", json!("the answer is 42")),
            ("output", json!("the answer is 42\nas always")),
        ]
    );
    for key in ["createdAt", "updatedAt"] {
        let at = whole[key].as_str().unwrap();
        assert!(humantime::parse_rfc3339(at).is_ok(), "{key}: {at}");
    }
    assert_eq!(whole["name"], "answer-one");
    // Claude Code's log of the state changes, each line whole.
    let timeline: Vec<Value> = std::fs::read_to_string(dir.join("timeline.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let shape: Vec<(Value, Value, Value)> = timeline
        .iter()
        .map(|l| (l["state"].clone(), l["detail"].clone(), l["text"].clone()))
        .collect();
    assert_eq!(
        shape,
        vec![
            (json!("working"), json!("what is the answer"), Value::Null),
            (
                json!("done"),
                json!("the answer is 42"),
                json!("the answer is 42\nas always")
            ),
        ]
    );
    assert!(timeline.iter().all(|l| l["at"].is_string()));
    // The agent view's rows carry its keys alone.
    let rows = agents(&env, &[]);
    let keys: Vec<Vec<&String>> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_object().unwrap().keys().collect())
        .collect();
    // In the order written (serde_json keeps it, as JavaScript does).
    let expected = [
        "pid",
        "id",
        "cwd",
        "kind",
        "startedAt",
        "sessionId",
        "name",
        "status",
        "state",
    ];
    assert_eq!(keys.len(), 2);
    for row_keys in keys {
        assert_eq!(row_keys, expected.iter().collect::<Vec<_>>());
    }

    // By the id's first digits, the whole name, or a part only one has.
    for key in [&id[..3], "answer-one", "one"] {
        let (out, _) = tack(&env, &["logs", key]);
        assert!(out.status.success(), "logs {key}: {out:?}");
        let printed = String::from_utf8(out.stdout).unwrap();
        assert!(printed.starts_with("> what is the answer"), "{printed}");
    }
    // A part both have: both listed, nothing done.
    let (out, _) = tack(&env, &["logs", "answer"]);
    assert!(!out.status.success());
    let said = crate::common::stderr(&out);
    assert!(
        said.contains("2 background sessions match answer")
            && said.contains(&format!("{id}  answer-one"))
            && said.contains(&format!("{other}  answer-two")),
        "{said}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_a_background_process_holds_is_not_resumed_by_another() {
    let env = Env::new(Script::new([Reply::text("the answer is 42")])).await;
    let (id, dir, _reap) = background(&env, &["what is the answer"]);
    let row = wait_for(&dir, "done", "idle");
    let session_id = row["sessionId"].as_str().unwrap();
    let (out, _) = tack(&env, &["-p", "-r", session_id, "and then?"]);
    assert!(!out.status.success());
    assert_eq!(
        crate::common::stderr(&out).trim_end(),
        format!(
            "Error: Session {session_id} is running as a background session ({id}). \
             Run `tack attach {id}` to open it, or `tack stop {id}` first."
        )
    );
    // `-c` would pick the same session, the newest here.
    let (out, _) = tack(&env, &["-p", "-c", "and then?"]);
    assert!(!out.status.success());
    assert!(
        crate::common::stderr(&out).contains(&format!("running as a background session ({id})")),
        "{out:?}"
    );
    // Nothing reached the model, and the session goes on.
    assert_eq!(env.request_bodies().len(), 1);
    assert_eq!(state(&dir)["status"], "idle");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_resumed_session_that_writes_its_row_first_names_its_conversation() {
    // `/bg` and `respawn` start `--bg-job DIR -r ID`; the session may write
    // its row before its launcher does (a loaded machine): the row still has
    // the conversation's id and the name.
    let env = Env::new(Script::new([Reply::text("the answer is 42")])).await;
    let (out, _) = tack(&env, &["-p", "what is the answer"]);
    assert!(out.status.success(), "{out:?}");
    let transcript = env.transcripts().remove(0);
    let session_id = transcript.file_stem().unwrap().to_str().unwrap().to_owned();
    let dir = env.claude_dir().join("jobs").join("0badc0de");
    std::fs::create_dir_all(&dir).unwrap();
    let job = dir.to_str().unwrap();
    let session = std::process::Command::new(assert_cmd::cargo::cargo_bin("tack"))
        .env_clear()
        .envs(env.vars())
        .current_dir(env.cwd())
        .args(["--name", "the answer", "--bg-job", job, "-r", &session_id])
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let row = wait_for(&dir, "done", "idle");
    crate::background::kill_9(&row);
    drop(session);
    assert_eq!(
        (row["sessionId"].clone(), row["name"].clone()),
        (json!(session_id), json!("the answer"))
    );
}
