use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;

fn job(id: &str, recurring: bool) -> Job {
    Job {
        id: id.into(),
        cron: "*/5 * * * *".into(),
        prompt: format!("prompt {id}"),
        created_at: 1_765_000_000_000,
        last_fired_at: None,
        recurring,
        durable: true,
    }
}

fn file(store: &Store) -> Value {
    serde_json::from_str(&std::fs::read_to_string(store.path()).unwrap()).unwrap()
}

#[test]
fn jobs_are_written_in_claude_codes_shape_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    store.add(&job("aaaa0001", true)).unwrap();
    store.add(&job("aaaa0002", false)).unwrap();
    store.mark_fired("aaaa0001", 1_765_000_300_000).unwrap();
    assert_eq!(
        file(&store),
        json!({"tasks": [
            {"id": "aaaa0001", "cron": "*/5 * * * *", "prompt": "prompt aaaa0001",
             "createdAt": 1_765_000_000_000u64, "lastFiredAt": 1_765_000_300_000u64, "recurring": true},
            {"id": "aaaa0002", "cron": "*/5 * * * *", "prompt": "prompt aaaa0002",
             "createdAt": 1_765_000_000_000u64},
        ]})
    );
    assert_eq!(
        store.read().unwrap(),
        [
            Job {
                last_fired_at: Some(1_765_000_300_000),
                ..job("aaaa0001", true)
            },
            job("aaaa0002", false)
        ]
    );
    assert!(store.remove(&["aaaa0001"]).unwrap());
    assert!(!store.remove(&["nope"]).unwrap());
    assert_eq!(store.read().unwrap(), [job("aaaa0002", false)]);
}

#[test]
fn a_file_claude_code_wrote_keeps_what_tack_does_not_touch() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    // A task of Claude Code's assistant mode, a malformed one and one with a bad cron.
    std::fs::write(
        store.path(),
        r#"{"tasks":[{"id":"c0ffee00","cron":"0 9 * * *","prompt":"morning","createdAt":1,"recurring":true,"permanent":true},{"id":7},{"id":"bad","cron":"x","prompt":"p","createdAt":1}]}"#,
    )
    .unwrap();
    assert_eq!(
        store.read().unwrap(),
        [Job {
            id: "c0ffee00".into(),
            cron: "0 9 * * *".into(),
            prompt: "morning".into(),
            created_at: 1,
            last_fired_at: None,
            recurring: true,
            durable: true,
        }]
    );
    store.add(&job("aaaa0003", false)).unwrap();
    assert_eq!(
        file(&store)["tasks"][0],
        json!({"id":"c0ffee00","cron":"0 9 * * *","prompt":"morning","createdAt":1,"recurring":true,"permanent":true})
    );
}

/// What tack cannot read (a task of another shape, a cron it does not
/// know, keys of a later version) is kept through every change.
#[test]
fn a_change_keeps_the_tasks_and_keys_it_does_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    let written = json!({"version": 2, "tasks": [
        {"id": 7},
        {"id": "bad", "cron": "x", "prompt": "p", "createdAt": 1},
        {"id": "c0ffee00", "cron": "0 9 * * *", "prompt": "morning", "createdAt": 1,
         "recurring": true, "agentId": "a-1"},
    ]});
    std::fs::write(store.path(), written.to_string()).unwrap();
    store.add(&job("aaaa0005", false)).unwrap();
    store.mark_fired("c0ffee00", 1_765_000_300_000).unwrap();
    store.remove(&["bad"]).unwrap();
    assert_eq!(
        file(&store),
        json!({"version": 2, "tasks": [
            {"id": 7},
            {"id": "c0ffee00", "cron": "0 9 * * *", "prompt": "morning", "createdAt": 1,
             "recurring": true, "agentId": "a-1", "lastFiredAt": 1_765_000_300_000u64},
            {"id": "aaaa0005", "cron": "*/5 * * * *", "prompt": "prompt aaaa0005",
             "createdAt": 1_765_000_000_000u64},
        ]})
    );
}

#[test]
fn a_torn_or_hostile_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    let path = store.path().display().to_string();
    let mut got = Vec::new();
    for body in [r#"{"tasks":[{"id":"#, r#"{"jobs":[]}"#, "[1,2]"] {
        std::fs::write(store.path(), body).unwrap();
        got.push(store.read().unwrap_err().to_string());
        // Nothing is written over a file that could not be read.
        assert!(store.add(&job("aaaa0004", true)).is_err());
        assert_eq!(std::fs::read_to_string(store.path()).unwrap(), body);
    }
    assert_eq!(
        got,
        [
            format!(
                "{path} is not a scheduled tasks file: EOF while parsing a value at line 1 column 16"
            ),
            format!("{path} is not a scheduled tasks file: no \"tasks\" array"),
            format!("{path} is not a scheduled tasks file: no \"tasks\" array"),
        ]
    );
}

#[test]
fn writers_in_parallel_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let project = dir.path().to_path_buf();
            std::thread::spawn(move || {
                let store = Store::new(&project);
                for n in 0..10 {
                    store.add(&job(&format!("{t:04x}{n:04x}"), true)).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let mut ids: Vec<String> = Store::new(dir.path())
        .read()
        .unwrap()
        .into_iter()
        .map(|j| j.id)
        .collect();
    ids.sort();
    let mut want: Vec<String> = (0..8)
        .flat_map(|t| (0..10).map(move |n| format!("{t:04x}{n:04x}")))
        .collect();
    want.sort();
    assert_eq!(ids, want);
}
