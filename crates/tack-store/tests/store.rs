use std::io::Write;
use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_protocol::{ContentBlock, Message};
use tack_store::{
    INTERRUPTED_TOOL_RESULT, LoadWarning, RecordMeta, SessionStore, StoreError, Transcript, load,
};

const SID: &str = "0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60";

fn meta() -> RecordMeta {
    RecordMeta {
        cwd: "/home/dev/proj".into(),
        git_branch: "main".into(),
        version: "0.1.0".into(),
        entrypoint: String::new(),
    }
}

fn assistant(id: &str, blocks: Value) -> Value {
    json!({"id": id, "type": "message", "role": "assistant", "model": "claude-test",
           "content": blocks, "stop_reason": null, "stop_sequence": null,
           "usage": {"input_tokens": 3, "output_tokens": 5}})
}

fn open(path: &Path) -> Transcript {
    Transcript::open(path, SID, meta(), None).unwrap()
}

/// A conversation written the way tack writes it: prompt, assistant blocks one
/// record each (text + tool_use sharing a message id), tool results, final answer.
fn write_conversation(t: &mut Transcript) {
    t.append_user(&Message::user_text("fix the bug")).unwrap();
    t.append_assistant(
        assistant("msg_1", json!([{"type": "text", "text": "Looking."}])),
        Some("req_1"),
    )
    .unwrap();
    t.append_assistant(
        assistant("msg_1", json!([{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/a"}}])),
        Some("req_1"),
    )
    .unwrap();
    t.append_tool_results(
        &Message::user(vec![ContentBlock::tool_result(
            "toolu_1", "1\thello", false,
        )]),
        Some(json!({"type": "text"})),
    )
    .unwrap();
    t.append_assistant(
        assistant("msg_2", json!([{"type": "text", "text": "Done."}])),
        Some("req_2"),
    )
    .unwrap();
}

fn expected_conversation() -> Vec<Message> {
    vec![
        Message::user_text("fix the bug"),
        Message::assistant(vec![
            ContentBlock::text("Looking."),
            ContentBlock::tool_use("toolu_1", "Read", json!({"file_path": "/a"})),
        ]),
        Message::user(vec![ContentBlock::tool_result(
            "toolu_1", "1\thello", false,
        )]),
        Message::assistant(vec![ContentBlock::text("Done.")]),
    ]
}

#[test]
fn a_written_conversation_loads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p").join(format!("{SID}.jsonl"));
    let mut t = open(&path);
    write_conversation(&mut t);
    let leaf = t.leaf_uuid().map(str::to_owned);
    let loaded = load(&path).unwrap();
    assert_eq!(loaded.messages, expected_conversation());
    assert_eq!(loaded.warnings, vec![]);
    assert_eq!(loaded.session_id, SID);
    assert_eq!(loaded.leaf_uuid, leaf);
    assert_eq!(loaded.lines, 5);
}

#[test]
fn loading_until_a_record_cuts_the_conversation_there() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p").join(format!("{SID}.jsonl"));
    let mut t = open(&path);
    t.append_user(&Message::user_text("first")).unwrap();
    let answer = t
        .append_assistant(
            assistant("msg_1", json!([{"type": "text", "text": "one"}])),
            None,
        )
        .unwrap();
    t.append_user(&Message::user_text("second")).unwrap();
    t.append_assistant(
        assistant("msg_2", json!([{"type": "text", "text": "two"}])),
        None,
    )
    .unwrap();
    let cut = tack_store::load_until(&path, &answer).unwrap();
    assert_eq!(
        cut.messages,
        [
            Message::user_text("first"),
            Message::assistant(vec![ContentBlock::text("one")])
        ]
    );
    assert_eq!(cut.leaf_uuid.as_deref(), Some(answer.as_str()));
    let err = tack_store::load_until(&path, "no-such-uuid").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "no message `no-such-uuid` in the session {}",
            path.display()
        )
    );
}

#[test]
fn loading_before_a_live_turn_leaves_its_records_out() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p").join(format!("{SID}.jsonl"));
    let mut t = open(&path);
    let first = t.append_user(&Message::user_text("first")).unwrap();
    t.append_assistant(
        assistant("msg_1", json!([{"type": "text", "text": "one"}])),
        None,
    )
    .unwrap();
    let second = t.append_user(&Message::user_text("second")).unwrap();
    let answer = t
        .append_assistant(
            assistant("msg_2", json!([{"type": "text", "text": "two"}])),
            None,
        )
        .unwrap();
    let before = |uuids: &[&str]| {
        let uuids = uuids.iter().map(|u| (*u).to_owned()).collect();
        tack_store::load_before(&path, &uuids).unwrap().messages
    };
    let earlier = [
        Message::user_text("first"),
        Message::assistant(vec![ContentBlock::text("one")]),
    ];
    // The live turn is the second prompt and its answer (either order).
    assert_eq!(before(&[&answer, &second]), earlier);
    // Only its answer is live (the prompt is history).
    assert_eq!(
        before(&[&answer]),
        [
            earlier[0].clone(),
            earlier[1].clone(),
            Message::user_text("second")
        ]
    );
    // The first prompt is live: no history.
    assert_eq!(before(&[&first, "other"]), []);
    // No live record in the file: all of it.
    assert_eq!(before(&["no-such-uuid"]).len(), 4);
    assert_eq!(before(&[]), tack_store::load(&path).unwrap().messages);
}

#[test]
fn records_have_claude_codes_shape() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{SID}.jsonl"));
    let mut t = open(&path);
    write_conversation(&mut t);
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Claude Code's key order, and the parentUuid chain.
    let first = text.lines().next().unwrap();
    let order = [
        "parentUuid",
        "isSidechain",
        "userType",
        "cwd",
        "sessionId",
        "version",
        "gitBranch",
        "type",
        "message",
        "uuid",
        "timestamp",
    ];
    let positions: Vec<usize> = order
        .iter()
        .map(|k| first.find(&format!("\"{k}\":")).unwrap())
        .collect();
    assert!(positions.windows(2).all(|p| p[0] < p[1]), "{first}");
    assert_eq!(lines[0].as_object().unwrap().len(), order.len());
    assert_eq!(lines[0]["parentUuid"], Value::Null);
    assert_eq!(lines[0]["userType"], "external");
    assert_eq!(
        lines[0]["message"],
        json!({"role": "user", "content": [{"type": "text", "text": "fix the bug"}]})
    );
    for pair in lines.windows(2) {
        assert_eq!(pair[1]["parentUuid"], pair[0]["uuid"]);
    }
    assert_eq!(lines[1]["requestId"], "req_1");
    assert_eq!(lines[3]["toolUseResult"], json!({"type": "text"}));
    let ts = lines[0]["timestamp"].as_str().unwrap();
    assert_eq!(ts.len(), "2026-08-20T09:14:02.118Z".len(), "{ts}");
    assert!(ts.ends_with('Z'));
}

#[test]
fn a_torn_last_line_is_skipped_and_the_next_append_starts_a_new_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{SID}.jsonl"));
    write_conversation(&mut open(&path));
    // The process died in the middle of writing another record.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(br#"{"parentUuid":"x","type":"assistant","message":{"id":"msg_3","con"#)
        .unwrap();
    let loaded = load(&path).unwrap();
    assert_eq!(loaded.messages, expected_conversation());
    assert_eq!(loaded.warnings, vec![LoadWarning::TornLastLine { line: 6 }]);

    // Resuming appends after the fragment, not glued onto it.
    let mut t = Transcript::open(&path, SID, meta(), loaded.leaf_uuid.clone()).unwrap();
    t.append_user(&Message::user_text("again")).unwrap();
    let reloaded = load(&path).unwrap();
    let mut expected = expected_conversation();
    expected.push(Message::user_text("again"));
    assert_eq!(reloaded.messages, expected);
    assert!(
        matches!(
            reloaded.warnings[..],
            [LoadWarning::GarbledLine { line: 6, .. }]
        ),
        "{:?}",
        reloaded.warnings
    );
}

#[test]
fn a_tool_use_without_result_gets_an_interrupted_result() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{SID}.jsonl"));
    let mut t = open(&path);
    t.append_user(&Message::user_text("go")).unwrap();
    t.append_assistant(
        assistant(
            "msg_1",
            json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "a"}}]),
        ),
        None,
    )
    .unwrap();
    t.append_assistant(
        assistant(
            "msg_1",
            json!([{"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "b"}}]),
        ),
        None,
    )
    .unwrap();
    // Only the second tool finished before the kill.
    t.append_tool_results(
        &Message::user(vec![ContentBlock::tool_result("t2", "ok", false)]),
        None,
    )
    .unwrap();
    let loaded = load(&path).unwrap();
    assert_eq!(
        loaded.messages[2],
        Message::user(vec![
            ContentBlock::tool_result("t1", INTERRUPTED_TOOL_RESULT, true),
            ContentBlock::tool_result("t2", "ok", false),
        ])
    );
    assert_eq!(
        loaded.warnings,
        vec![LoadWarning::InterruptedToolUse {
            tool_use_id: "t1".into()
        }]
    );

    // Killed before any result: a synthetic user message closes the turn, and a
    // new prompt appended on resume merges into it after the results.
    let path2 = dir.path().join("other.jsonl");
    let mut t = open(&path2);
    t.append_user(&Message::user_text("go")).unwrap();
    t.append_assistant(
        assistant(
            "msg_1",
            json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]),
        ),
        None,
    )
    .unwrap();
    let loaded = load(&path2).unwrap();
    assert_eq!(
        loaded.messages[2],
        Message::user(vec![ContentBlock::tool_result(
            "t1",
            INTERRUPTED_TOOL_RESULT,
            true
        )])
    );
    t.append_user(&Message::user_text("continue")).unwrap();
    let loaded = load(&path2).unwrap();
    assert_eq!(
        loaded.messages[2],
        Message::user(vec![
            ContentBlock::tool_result("t1", INTERRUPTED_TOOL_RESULT, true),
            ContentBlock::text("continue"),
        ])
    );
}

#[test]
fn loading_starts_at_the_last_compact_boundary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{SID}.jsonl"));
    let mut t = open(&path);
    write_conversation(&mut t);
    t.append_compact_boundary("auto", 12345, "Summary: the bug was fixed.")
        .unwrap();
    t.append_user(&Message::user_text("next")).unwrap();
    let loaded = load(&path).unwrap();
    assert_eq!(
        loaded.messages,
        vec![Message::user(vec![
            ContentBlock::text("Summary: the bug was fixed."),
            ContentBlock::text("next")
        ])]
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let boundary: Value = serde_json::from_str(text.lines().nth(5).unwrap()).unwrap();
    assert_eq!(boundary["subtype"], "compact_boundary");
    assert_eq!(boundary["parentUuid"], Value::Null);
    assert!(boundary["logicalParentUuid"].is_string());
}

#[test]
fn garbled_middle_lines_and_unknown_records_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{SID}.jsonl"));
    write_conversation(&mut open(&path));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines.insert(2, "not json at all".into());
    lines.insert(
        0,
        r#"{"type":"summary","summary":"A session","leafUuid":"x"}"#.into(),
    );
    lines.insert(
        0,
        r#"{"type":"file-history-snapshot","messageId":"m","snapshot":{}}"#.into(),
    );
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let loaded = load(&path).unwrap();
    assert_eq!(loaded.messages, expected_conversation());
    assert!(
        matches!(
            loaded.warnings[..],
            [LoadWarning::GarbledLine { line: 5, .. }]
        ),
        "{:?}",
        loaded.warnings
    );
}

#[test]
fn claude_code_transcript_lines_load() {
    // The two lines quoted in claude-code-config.md §7, plus a tool result.
    let text = r#"{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/tack","sessionId":"0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60","version":"2.1.240","gitBranch":"main","type":"user","message":{"role":"user","content":"list the crates"},"uuid":"a1f0c3d2-6b7e-4c11-9d2a-3e4f5a6b7c8d","timestamp":"2026-08-20T09:14:02.118Z","permissionMode":"default"}
{"parentUuid":"a1f0c3d2-6b7e-4c11-9d2a-3e4f5a6b7c8d","isSidechain":false,"userType":"external","cwd":"/home/dev/tack","sessionId":"0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60","version":"2.1.240","gitBranch":"main","type":"assistant","requestId":"req_011CT9","message":{"id":"msg_01Q","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"tool_use","id":"toolu_01B","name":"Glob","input":{"pattern":"crates/*/Cargo.toml"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":4,"cache_read_input_tokens":15020,"cache_creation_input_tokens":310,"output_tokens":52}},"uuid":"c9e8d7b6-1a2b-4c3d-8e9f-0a1b2c3d4e5f","timestamp":"2026-08-20T09:14:04.901Z"}
{"parentUuid":"c9e8d7b6-1a2b-4c3d-8e9f-0a1b2c3d4e5f","isSidechain":false,"userType":"external","cwd":"/home/dev/tack","sessionId":"0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60","version":"2.1.240","gitBranch":"main","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01B","type":"tool_result","content":"crates/a/Cargo.toml"}]},"uuid":"d9e8d7b6-1a2b-4c3d-8e9f-0a1b2c3d4e5f","timestamp":"2026-08-20T09:14:05.001Z","toolUseResult":{"filenames":["crates/a/Cargo.toml"]}}
"#;
    let loaded = tack_store::load_bytes(text.as_bytes(), String::new());
    assert_eq!(loaded.warnings, vec![]);
    assert_eq!(loaded.session_id, SID);
    assert_eq!(
        loaded.messages,
        vec![
            Message::user_text("list the crates"),
            Message::assistant(vec![ContentBlock::tool_use(
                "toolu_01B",
                "Glob",
                json!({"pattern": "crates/*/Cargo.toml"})
            )]),
            Message::user(vec![ContentBlock::tool_result(
                "toolu_01B",
                "crates/a/Cargo.toml",
                false
            )]),
        ]
    );
}

#[test]
fn sessions_are_listed_newest_first_and_unknown_ids_list_them() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionStore::new(home.path());
    let cwd = Path::new("/work/proj");
    assert!(matches!(
        store.latest_session(cwd),
        Err(StoreError::NoSessions { .. })
    ));
    let ids = [
        "11111111-1111-4111-8111-111111111111",
        "22222222-2222-4222-8222-222222222222",
    ];
    for (i, id) in ids.iter().enumerate() {
        let path = store.transcript_path(cwd, id).unwrap();
        let mut t = Transcript::open(&path, id, meta(), None).unwrap();
        t.append_user(&Message::user_text(format!(
            "prompt number {i}\nsecond line"
        )))
        .unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(
            std::time::SystemTime::UNIX_EPOCH
                + std::time::Duration::from_secs(1_000_000 + i as u64),
        )
        .unwrap();
    }
    assert!(store.project_dir(cwd).ends_with("projects/-work-proj"));
    let list = store.list_sessions(cwd).unwrap();
    assert_eq!(
        list.iter()
            .map(|s| s.session_id.as_str())
            .collect::<Vec<_>>(),
        [ids[1], ids[0]]
    );
    assert_eq!(
        list[0].first_prompt.as_deref(),
        Some("prompt number 1 second line")
    );
    assert_eq!(store.latest_session(cwd).unwrap().session_id, ids[1]);
    assert_eq!(store.find_session(cwd, ids[0]).unwrap(), list[1].path);

    let err = store
        .find_session(cwd, "33333333-3333-4333-8333-333333333333")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "no session `33333333-3333-4333-8333-333333333333` in this directory; recent sessions:\n  \
         22222222-2222-4222-8222-222222222222  1970-01-12T13:46:41Z  prompt number 1 second line\n  \
         11111111-1111-4111-8111-111111111111  1970-01-12T13:46:40Z  prompt number 0 second line"
    );
    assert!(matches!(
        store.find_session(cwd, "../x"),
        Err(StoreError::InvalidSessionId(_))
    ));
}

#[test]
fn two_writers_on_the_same_file_never_interleave_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{SID}.jsonl"));
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let path = path.clone();
            std::thread::spawn(move || {
                // Separate open file descriptions, like two processes.
                let mut t = Transcript::open(&path, SID, meta(), None).unwrap();
                for i in 0..1000 {
                    // Sizes up to ~20 KB so a line spans several pages.
                    let len = (i * 7919 + w * 31) % 20_000;
                    let text = format!("w{w} i{i} {}", "x".repeat(len));
                    t.append_user(&Message::user_text(text)).unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let mut seen = [0usize; 2];
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).expect("every line is a whole record");
        let t = v["message"]["content"][0]["text"].as_str().unwrap();
        let w: usize = t[1..2].parse().unwrap();
        let i: usize = t.split(' ').nth(1).unwrap()[1..].parse().unwrap();
        assert_eq!(i, seen[w], "writer {w}'s lines are in order");
        seen[w] += 1;
    }
    assert_eq!(seen, [1000, 1000]);
}

#[test]
fn a_sidechain_transcript_marks_every_record_and_loads_only_with_load_sidechain() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let path = store
        .subagent_transcript_path(Path::new("/home/dev/proj"), SID, "a0123abcd")
        .unwrap();
    assert_eq!(
        path,
        store
            .project_dir(Path::new("/home/dev/proj"))
            .join(SID)
            .join("subagents/agent-a0123abcd.jsonl")
    );
    let mut t = Transcript::open(&path, SID, meta(), None)
        .unwrap()
        .sidechain("a0123abcd");
    write_conversation(&mut t);
    let text = std::fs::read_to_string(&path).unwrap();
    for line in text.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        assert_eq!(
            (
                &record["isSidechain"],
                &record["agentId"],
                &record["sessionId"]
            ),
            (&json!(true), &json!("a0123abcd"), &json!(SID)),
            "{line}"
        );
    }
    let main = load(&path).unwrap();
    assert_eq!(main.messages, Vec::<Message>::new());
    let side = tack_store::load_sidechain(&path).unwrap();
    assert_eq!(side.messages, expected_conversation());
    assert_eq!(side.session_id, SID);
    assert_eq!(side.warnings, Vec::<LoadWarning>::new());
    assert_eq!(side.leaf_uuid, t.leaf_uuid().map(str::to_owned));
}

#[test]
fn the_agent_a_session_runs_as_is_written_before_its_first_record_and_loads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p").join(format!("{SID}.jsonl"));
    let mut t = open(&path);
    t.note_agent("reviewer");
    // Nothing of the conversation written yet: nor is the agent.
    assert_eq!(std::fs::read_to_string(&path).unwrap_or_default(), "");
    write_conversation(&mut t);
    let leaf = t.leaf_uuid().map(str::to_owned);
    let text = std::fs::read_to_string(&path).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        first,
        json!({"type": "agent-setting", "agentSetting": "reviewer", "sessionId": SID})
    );
    assert_eq!(text.lines().count(), 6);

    // The conversation loads as without it; the last agent named wins.
    let loaded = load(&path).unwrap();
    assert_eq!(loaded.messages, expected_conversation());
    assert_eq!(loaded.warnings, vec![]);
    assert_eq!(loaded.leaf_uuid, leaf);
    assert_eq!(loaded.agent_setting.as_deref(), Some("reviewer"));
    let mut t = Transcript::open(&path, SID, meta(), leaf).unwrap();
    t.note_agent("critic");
    t.append_user(&Message::user_text("again")).unwrap();
    let loaded = load(&path).unwrap();
    assert_eq!(loaded.agent_setting.as_deref(), Some("critic"));
    assert_eq!(loaded.messages.len(), 5);
    assert_eq!(loaded.warnings, vec![]);
}
