//! Transcripts where Claude Code keeps them, in its shape (issue 21): tack
//! writes `$CLAUDE_CONFIG_DIR/projects/<slug>/<id>.jsonl` record for record as
//! Claude Code does (compared with the recorded files in
//! `shared/spec/samples/claude-code-transcripts/`, copied into
//! `tests/fixtures`), resumes Claude Code's own
//! files, and still resumes sessions an older tack wrote under its config dir.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::{Env, stderr, stdout as stdout_of};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// The recorded Claude Code 2.1.328 sessions (run in `/tmp/cctr/repo`; a copy
/// of the spec's samples).
fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/claude-code-transcripts/-tmp-cctr-repo")
}

const TOOL_SESSION: &str = "9c8598e3-6ab9-4477-bccb-37f287a50120";
const AGENT_SESSION: &str = "3917157e-236c-4d47-959e-2948709f7340";

/// Keys Claude Code writes on chain records that tack does not (yet): they
/// describe things tack does not record (the `api-request` record a
/// `requestRef` names, the response's request id, effort and cache choices,
/// input streaming time, how a permission was decided, Bash's sandbox).
const NOT_WRITTEN: [&str; 8] = [
    "requestId",
    "requestRef",
    "promptCacheRequested",
    "effort",
    "perTurnEffort",
    "toolInputStreamMs",
    "permissionDecision",
    "sandboxed",
];

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The conversation records (user and assistant), in file order.
fn chain(records: &[Value]) -> Vec<Value> {
    records
        .iter()
        .filter(|r| matches!(r["type"].as_str(), Some("user" | "assistant")))
        .cloned()
        .collect()
}

fn keys(record: &Value) -> BTreeSet<String> {
    let keys = record.as_object().unwrap().keys();
    keys.filter(|k| !NOT_WRITTEN.contains(&k.as_str()))
        .cloned()
        .collect()
}

/// What a record says, without what differs from run to run: role, content
/// block types and tool names / ids, the prompt's text.
fn gist(record: &Value) -> Value {
    let content = &record["message"]["content"];
    let blocks = match content {
        Value::String(s) => json!(s),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| json!([b["type"], b.get("name").or(b.get("tool_use_id"))]))
            .collect(),
        _ => Value::Null,
    };
    json!([record["type"], blocks])
}

/// The tool session of the sample, scripted: Bash after a text, Read + Write in
/// one message, Edit, a final text.
fn tool_session_script() -> Script {
    Script::new([
        Reply::message()
            .text("Let me run a command first.")
            .tool_use(
                "toolu_mock_0001",
                "Bash",
                json!({"command": "echo hi", "description": "Print hi"}),
            )
            .into(),
        Reply::message()
            .tool_use("toolu_mock_0002", "Read", json!({"file_path": "notes.txt"}))
            .tool_use(
                "toolu_mock_0003",
                "Write",
                json!({"file_path": "new.txt", "content": "written by the mock\n"}),
            )
            .into(),
        Reply::tool_use(
            "toolu_mock_0004",
            "Edit",
            json!({"replace_all": false, "file_path": "notes.txt", "old_string": "beta line", "new_string": "beta line (edited)"}),
        ),
        Reply::text("All done: ran echo, read notes.txt, wrote new.txt and edited notes.txt."),
    ])
}

/// tack with `CLAUDE_CONFIG_DIR` set (for the child only).
fn tack_in(env: &Env, claude_dir: &Path) -> assert_cmd::Command {
    let mut cmd = env.tack();
    cmd.env("CLAUDE_CONFIG_DIR", claude_dir);
    cmd
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_is_written_where_claude_code_keeps_it_record_for_record() {
    let env = Env::new(tool_session_script()).await;
    let cwd = env.cwd();
    std::fs::write(cwd.join("notes.txt"), "alpha line\nbeta line\n").unwrap();
    let claude = tempfile::tempdir().unwrap();
    // Absolute paths in the inputs, as the model gives them.
    let prompt = "Run echo hi, read notes.txt, write new.txt, then edit notes.txt";
    let out = tack_in(&env, claude.path())
        .args(["-p", prompt, "--permission-mode", "bypassPermissions"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));

    let dir = claude
        .path()
        .join("projects")
        .join(tack_store::sanitize_cwd(&cwd));
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(!env.config_dir().join("projects").exists());
    assert!(
        !env.claude_dir().exists(),
        "CLAUDE_CONFIG_DIR wins over HOME"
    );

    let ours = chain(&records(&files[0]));
    let theirs = chain(&records(&samples().join(format!("{TOOL_SESSION}.jsonl"))));
    assert_eq!(
        ours.iter().map(gist).collect::<Vec<_>>(),
        theirs.iter().map(gist).collect::<Vec<_>>()
    );
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!((i, keys(a)), (i, keys(b)), "record {i}: {a}");
        assert_eq!(
            (
                i,
                a["message"].as_object().unwrap().keys().collect::<Vec<_>>()
            ),
            (
                i,
                b["message"].as_object().unwrap().keys().collect::<Vec<_>>()
            ),
        );
    }
    // The chain: each record's parent is the one before, the first has none;
    // a tool result names the assistant record that made the call.
    assert_eq!(ours[0]["parentUuid"], Value::Null);
    for pair in ours.windows(2) {
        assert_eq!(pair[1]["parentUuid"], pair[0]["uuid"]);
    }
    let by_call = |id: &str| {
        let call = ours
            .iter()
            .find(|r| r["message"]["content"][0]["id"] == id)
            .unwrap();
        let result = ours
            .iter()
            .find(|r| r["message"]["content"][0]["tool_use_id"] == id)
            .unwrap();
        (
            result["sourceToolAssistantUUID"].clone(),
            call["uuid"].clone(),
        )
    };
    for id in ["toolu_mock_0001", "toolu_mock_0002", "toolu_mock_0003"] {
        let (source, call) = by_call(id);
        assert_eq!(source, call, "{id}");
    }
    // One prompt id for the turn; the sample's fixed values.
    let prompt_ids: BTreeSet<String> = ours
        .iter()
        .filter(|r| r["type"] == "user")
        .map(|r| r["promptId"].to_string())
        .collect();
    assert_eq!(prompt_ids.len(), 1);
    let first = &ours[0];
    assert_eq!(
        [
            &first["permissionMode"],
            &first["entrypoint"],
            &first["turnPosition"],
            &first["userType"],
            &first["isSidechain"],
        ],
        [
            &json!("bypassPermissions"),
            &json!("sdk-cli"),
            &json!({"promptIndex": 0, "turnIndex": 1}),
            &json!("external"),
            &json!(false),
        ]
    );
}

/// Copies a recorded Claude Code session into `claude/projects/<slug of cwd>`.
fn install_sample(claude: &Path, cwd: &Path, id: &str) {
    let dir = claude.join("projects").join(tack_store::sanitize_cwd(cwd));
    std::fs::create_dir_all(&dir).unwrap();
    let name = format!("{id}.jsonl");
    std::fs::copy(samples().join(&name), dir.join(&name)).unwrap();
}

/// The conversation a request carried: role and, per block, its type and text,
/// tool name or the id it answers.
fn sent(request: &Value) -> Value {
    let messages = request["messages"].as_array().unwrap();
    messages
        .iter()
        .map(|m| {
            let blocks: Vec<Value> = match &m["content"] {
                Value::String(s) => vec![json!(["text", s])],
                Value::Array(blocks) => blocks
                    .iter()
                    .filter(|b| {
                        !b["text"]
                            .as_str()
                            .is_some_and(|t| t.starts_with("<system-reminder>"))
                    })
                    .map(|b| {
                        let what = b
                            .get("text")
                            .or(b.get("name"))
                            .or(b.get("tool_use_id"))
                            .cloned()
                            .unwrap_or(Value::Null);
                        json!([b["type"], what])
                    })
                    .collect(),
                _ => Vec::new(),
            };
            json!([m["role"], blocks])
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn tack_resumes_claude_codes_own_session_with_parallel_tool_results() {
    let env = Env::new(Script::new([Reply::text("continued")])).await;
    let claude = tempfile::tempdir().unwrap();
    install_sample(claude.path(), &env.cwd(), TOOL_SESSION);
    let out = tack_in(&env, claude.path())
        .args(["-p", "and then?", "--resume", TOOL_SESSION])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "", "no repair was needed");
    let requests = env.request_bodies();
    assert_eq!(
        sent(&requests[0]),
        json!([
            [
                "user",
                [[
                    "text",
                    "Run echo hi, read notes.txt, write new.txt, then edit notes.txt"
                ]]
            ],
            [
                "assistant",
                [
                    ["text", "Let me run a command first."],
                    ["tool_use", "Bash"]
                ]
            ],
            ["user", [["tool_result", "toolu_mock_0001"]]],
            ["assistant", [["tool_use", "Read"], ["tool_use", "Write"]]],
            [
                "user",
                [
                    ["tool_result", "toolu_mock_0002"],
                    ["tool_result", "toolu_mock_0003"]
                ]
            ],
            ["assistant", [["tool_use", "Edit"]]],
            ["user", [["tool_result", "toolu_mock_0004"]]],
            [
                "assistant",
                [[
                    "text",
                    "All done: ran echo, read notes.txt, wrote new.txt and edited notes.txt."
                ]]
            ],
            ["user", [["text", "and then?"]]],
        ])
    );
    // The new turn went on in the same file, chained to its last record.
    let path = claude
        .path()
        .join("projects")
        .join(tack_store::sanitize_cwd(&env.cwd()))
        .join(format!("{TOOL_SESSION}.jsonl"));
    let all = chain(&records(&path));
    let prompt = all.iter().find(|r| r["message"]["content"] == "and then?");
    assert_eq!(
        prompt.unwrap()["parentUuid"],
        json!("ce4ab2ac-97e7-4bb5-b2c5-56be3af511d5")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn tack_resumes_claude_codes_resumed_subagent_session() {
    let env = Env::new(Script::new([Reply::text("third")])).await;
    let claude = tempfile::tempdir().unwrap();
    install_sample(claude.path(), &env.cwd(), AGENT_SESSION);
    let out = tack_in(&env, claude.path())
        .args(["-p", "a third question", "--continue"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // The sub-agent's own records (its sidechain file) are not the
    // conversation; the task notification Claude Code queued is.
    let notification = "<task-notification>\n<task-id>afd6e76824e2c5fd3</task-id>\n<tool-use-id>toolu_agent_a</tool-use-id>\n<output-file>/tmp/claude-0/-tmp-cctr-repo/3917157e-236c-4d47-959e-2948709f7340/tasks/afd6e76824e2c5fd3.output</output-file>\n<status>completed</status>\n<summary>Agent \"part A\" finished</summary>\n<note>A task-notification fires each time this agent stops with no live background children of its own. The user can send it another message and resume it, so the same task-id may notify more than once.</note>\n<result>RESULT-A-OK: a.txt notes.txt</result>\n<usage><subagent_tokens>7167</subagent_tokens><tool_uses>0</tool_uses><duration_ms>231</duration_ms></usage>\n</task-notification>";
    assert_eq!(
        sent(&env.request_bodies()[0]),
        json!([
            ["user", [["text", "split the job"]]],
            [
                "assistant",
                [["text", "Starting a sub-agent."], ["tool_use", "Agent"]]
            ],
            ["user", [["tool_result", "toolu_agent_a"]]],
            ["assistant", [["text", "The sub-agent reported."]]],
            ["user", [["text", notification]]],
            ["assistant", [["text", "Second turn answer."]]],
            ["user", [["text", "and now a second question"]]],
            ["assistant", [["text", "done"]]],
            ["user", [["text", "a third question"]]],
        ])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_an_older_tack_wrote_under_its_config_dir_still_resume() {
    let env = Env::new(Script::new([Reply::text("first"), Reply::text("second")])).await;
    // Written where tack kept transcripts before: `~/.tack/projects/...`.
    let old = env.store_in_tack_dir();
    let out = env.tack().args(["-p", "an old question"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let new_path = env.transcripts().remove(0);
    let id = new_path.file_stem().unwrap().to_string_lossy().into_owned();
    let old_path = old.join(format!("{id}.jsonl"));
    std::fs::create_dir_all(&old).unwrap();
    std::fs::rename(&new_path, &old_path).unwrap();

    let out = env
        .tack()
        .args(["-p", "a new question", "--resume", &id])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        sent(&env.request_bodies()[1]),
        json!([
            ["user", [["text", "an old question"]]],
            ["assistant", [["text", "first"]]],
            ["user", [["text", "a new question"]]],
        ])
    );
    // Continued in place, so the session stays one file.
    assert_eq!(chain(&records(&old_path)).len(), 4);
    assert_eq!(env.transcripts(), [old_path]);
}

#[tokio::test(flavor = "multi_thread")]
async fn trust_is_read_from_and_written_to_claude_codes_claude_json() {
    let env = Env::new(Script::new([])).await;
    let claude = tempfile::tempdir().unwrap();
    let cwd = env.cwd().to_string_lossy().into_owned();
    let claude_json = claude.path().join(".claude.json");
    let doctor = |env: &Env| {
        let out = tack_in(env, claude.path()).arg("doctor").output().unwrap();
        stdout_of(&out)
            .lines()
            .find(|l| l.starts_with("  trust: "))
            .unwrap()
            .to_owned()
    };
    assert!(doctor(&env).starts_with("  trust: not trusted"));

    // A folder the SDK's CI (or Claude Code's dialog) marked trusted.
    let marked = json!({"numStartups": 3, "projects": {cwd.clone(): {"hasTrustDialogAccepted": true, "allowedTools": []}}});
    std::fs::write(&claude_json, marked.to_string()).unwrap();
    assert_eq!(doctor(&env), "  trust: trusted");

    // `tack trust` records it where Claude Code reads it too, keeping the rest.
    std::fs::write(&claude_json, json!({"numStartups": 3}).to_string()).unwrap();
    let out = tack_in(&env, claude.path()).arg("trust").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let written: Value = serde_json::from_slice(&std::fs::read(&claude_json).unwrap()).unwrap();
    assert_eq!(
        written,
        json!({"numStartups": 3, "projects": {cwd.clone(): {"hasTrustDialogAccepted": true}}})
    );
    let ours: Value =
        serde_json::from_slice(&std::fs::read(env.config_dir().join("config.json")).unwrap())
            .unwrap();
    assert_eq!(
        ours,
        json!({"projects": {cwd: {"hasTrustDialogAccepted": true}}})
    );
}
