//! The agent-team files in Claude Code's shape: read, changed and written
//! back with unknown keys kept; torn and hostile files are errors naming the
//! file; concurrent appenders to one inbox lose nothing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::{Value, json};
use tack_runtime::teams::files::TeamFileError;
use tack_runtime::teams::files::config::{self, LeadFacts, TeamConfig};
use tack_runtime::teams::files::inbox::{self, InboxMessage};
use tack_runtime::teams::files::place::TeamDir;
use tack_runtime::teams::files::structured::{Body, body};

const TEAM: &str = "quiet-reading-otter";

fn fixture_copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/teams/config-dir");
    copy_tree(&src, tmp.path());
    let dir = tmp.path().to_path_buf();
    (tmp, dir)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn json_of(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_claude_code_team_is_read_joined_and_written_back_with_its_unknown_keys() {
    let (_tmp, claude_dir) = fixture_copy();
    let team = TeamDir::new(&claude_dir, TEAM).unwrap();
    let before = json_of(&team.config());
    let read = config::read(&team).unwrap().unwrap();
    assert_eq!(
        (
            read.lead_agent_id.as_str(),
            read.members.len(),
            read.next_color()
        ),
        ("team-lead@quiet-reading-otter", 2, "green")
    );

    let written = config::update(
        &team,
        || unreachable!(),
        |c| {
            let mut joined = c.members[1].clone();
            joined.name = "reader-2".into();
            joined.agent_id = config::agent_id("reader-2", TEAM);
            joined.color = Some("green".into());
            joined.extra.clear();
            c.members.push(joined);
        },
    )
    .unwrap();
    let after = json_of(&team.config());
    let mut expected = before.clone();
    let mut joined = before["members"][1].clone();
    joined["name"] = json!("reader-2");
    joined["agentId"] = json!("reader-2@quiet-reading-otter");
    joined["color"] = json!("green");
    joined.as_object_mut().unwrap().remove("laterField");
    expected["members"].as_array_mut().unwrap().push(joined);
    assert_eq!(after, expected);
    assert_eq!(config::read(&team).unwrap().unwrap(), written);
}

#[test]
fn an_inbox_is_taken_once_and_marked_read_in_place() {
    let (_tmp, claude_dir) = fixture_copy();
    let team = TeamDir::new(&claude_dir, TEAM).unwrap();
    let lead = team.inbox("team-lead").unwrap();
    let before = json_of(&lead);

    let unread = inbox::take_unread(&lead).unwrap();
    assert_eq!(unread.len(), 1);
    assert!(
        matches!(body(&unread[0].text), Body::Structured { ref kind, .. } if kind == "idle_notification")
    );
    let mut expected = before;
    expected[1]["read"] = json!(true);
    assert_eq!(json_of(&lead), expected);
    assert_eq!(
        inbox::take_unread(&lead).unwrap(),
        Vec::<InboxMessage>::new()
    );

    let reader = team.inbox("reader-1").unwrap();
    let taken = inbox::take_unread(&reader).unwrap();
    assert_eq!(json_of(&reader)[0]["futureKey"], json!("kept"));
    assert_eq!(taken[0].extra.get("futureKey"), Some(&json!("kept")));
}

#[test]
fn an_inbox_write_waits_for_claude_codes_lock_folder_and_leaves_none() {
    use std::time::Duration;
    let (_tmp, claude_dir) = fixture_copy();
    let team = TeamDir::new(&claude_dir, TEAM).unwrap();
    let lead = team.inbox("team-lead").unwrap();
    let before = json_of(&lead).as_array().unwrap().len();
    // A Claude Code teammate is appending (proper-lockfile's `<inbox>.lock`).
    let held = PathBuf::from(format!("{}.lock", lead.display()));
    std::fs::create_dir(&held).unwrap();
    let writer = {
        let lead = lead.clone();
        std::thread::spawn(move || {
            inbox::append(&lead, InboxMessage::new("reader-1", "hi".into(), None))
        })
    };
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        !writer.is_finished(),
        "the append waits for Claude Code's lock"
    );
    assert_eq!(json_of(&lead).as_array().unwrap().len(), before);
    std::fs::remove_dir(&held).unwrap();
    writer.join().unwrap().unwrap();
    let after = json_of(&lead);
    assert_eq!(after.as_array().unwrap().len(), before + 1);
    assert_eq!(after[before]["text"], json!("hi"));
    inbox::take_unread(&lead).unwrap();
    assert!(!held.exists(), "no lock folder is left behind");
}

#[test]
fn a_new_team_is_in_claude_codes_shape() {
    let tmp = tempfile::tempdir().unwrap();
    let team = TeamDir::new(tmp.path(), "fresh").unwrap();
    let lead = LeadFacts {
        model: "claude-opus-4-6".into(),
        cwd: "/p".into(),
    };
    let made = config::update(
        &team,
        || TeamConfig::new("fresh", "", "sess-1", lead),
        |_| {},
    )
    .unwrap();
    let mut on_disk = json_of(&team.config());
    let created = on_disk["createdAt"].take();
    assert_eq!(created, json!(made.created_at));
    assert_eq!(on_disk["members"][0]["joinedAt"].take(), created);
    assert_eq!(
        on_disk,
        json!({
            "name": "fresh", "description": "", "createdAt": null,
            "leadAgentId": "team-lead@fresh", "leadSessionId": "sess-1",
            "members": [{
                "agentId": "team-lead@fresh", "name": "team-lead", "agentType": "team-lead",
                "model": "claude-opus-4-6", "joinedAt": null, "tmuxPaneId": "", "cwd": "/p",
                "subscriptions": []
            }]
        })
    );
    assert!(team.inboxes().is_dir());
}

#[test]
fn torn_and_hostile_files_are_errors_naming_them() {
    let tmp = tempfile::tempdir().unwrap();
    let team = TeamDir::new(tmp.path(), "t").unwrap();
    std::fs::create_dir_all(team.inboxes()).unwrap();
    let torn = team.inbox("a").unwrap();
    std::fs::write(&torn, "[{\"from\":\"x\",\"te").unwrap();
    let wrong = team.inbox("b").unwrap();
    std::fs::write(&wrong, "{\"from\":1}").unwrap();
    let folder = team.inbox("c").unwrap();
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(team.config(), "[]").unwrap();

    for path in [&torn, &wrong] {
        let err = inbox::take_unread(path).unwrap_err();
        assert!(matches!(err, TeamFileError::Malformed { .. }), "{err}");
        assert!(
            err.to_string().starts_with(&path.display().to_string()),
            "{err}"
        );
        let append = inbox::append(path, InboxMessage::new("x", "y".into(), None));
        assert!(append.is_err());
    }
    let err = inbox::read_all(&folder).unwrap_err();
    assert!(
        err.to_string().contains(&folder.display().to_string()),
        "{err}"
    );
    let err = config::read(&team).unwrap_err();
    assert!(err.to_string().contains("config.json"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&torn).unwrap(),
        "[{\"from\":\"x\",\"te"
    );
}

/// Appends `per` messages from each of `writers` threads, each its own open
/// of the lock (as separate processes would be), while a reader takes them.
fn hammer(writers: usize, per: usize) -> (Vec<String>, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    let team = TeamDir::new(tmp.path(), "busy").unwrap();
    let path = Arc::new(team.inbox("lead").unwrap());
    let mut handles = Vec::new();
    for w in 0..writers {
        let path = Arc::clone(&path);
        handles.push(std::thread::spawn(move || {
            for i in 0..per {
                inbox::append(
                    &path,
                    InboxMessage::new(&format!("w{w}"), format!("{w}-{i}"), None),
                )
                .unwrap();
            }
        }));
    }
    let reader = {
        let path = Arc::clone(&path);
        std::thread::spawn(move || {
            let mut taken = Vec::new();
            for _ in 0..writers * per {
                taken.extend(
                    inbox::take_unread(&path)
                        .unwrap()
                        .into_iter()
                        .map(|m| m.text),
                );
            }
            taken
        })
    };
    for h in handles {
        h.join().unwrap();
    }
    let mut taken = reader.join().unwrap();
    taken.extend(
        inbox::take_unread(&path)
            .unwrap()
            .into_iter()
            .map(|m| m.text),
    );
    let mut all: Vec<String> = inbox::read_all(&path)
        .unwrap()
        .into_iter()
        .map(|m| m.text)
        .collect();
    let mut expected: Vec<String> = (0..writers)
        .flat_map(|w| (0..per).map(move |i| format!("{w}-{i}")))
        .collect();
    expected.sort();
    all.sort();
    taken.sort();
    assert_eq!(all, expected);
    (taken, expected)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    #[test]
    fn concurrent_appenders_never_lose_a_message_and_each_is_taken_once(
        writers in 2usize..8, per in 1usize..12
    ) {
        let (taken, expected) = hammer(writers, per);
        prop_assert_eq!(taken, expected);
    }
}
