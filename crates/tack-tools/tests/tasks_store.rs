//! The shared task list's store: files in Claude Code's shape, ids never
//! reused, dependencies kept on both sides, claims decided under the lock,
//! and hostile files and ids refused with errors that name them.

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_tools::tasks::{
    ClaimRefused, NewTask, TaskError, TaskList, TaskStatus, list_dir, open_blockers,
};

fn new(subject: &str) -> NewTask {
    NewTask {
        subject: subject.into(),
        description: format!("{subject}, fully"),
        active_form: Some(format!("Doing {subject}")),
        metadata: None,
    }
}

fn file(dir: &Path, name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn tasks_are_numbered_files_in_claude_codes_shape_and_ids_are_never_reused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tasks").join("list");
    let list = TaskList::open(&dir).unwrap();
    for s in ["one", "two", "three"] {
        list.create(new(s)).unwrap();
    }
    assert_eq!(
        file(&dir, "2.json"),
        json!({"id": "2", "subject": "two", "description": "two, fully",
               "activeForm": "Doing two", "status": "pending", "blocks": [], "blockedBy": []})
    );
    assert!(list.delete("3").unwrap());
    assert!(!list.delete("3").unwrap());
    let fourth = list.create(new("four")).unwrap();
    assert_eq!(fourth.id, "4");
    assert_eq!(
        names(&dir),
        [".highwatermark", ".lock", "1.json", "2.json", "4.json"]
    );
    assert_eq!(
        std::fs::read_to_string(dir.join(".highwatermark")).unwrap(),
        "3"
    );
    let listed: Vec<(String, TaskStatus)> = (list.list().unwrap().into_iter())
        .map(|t| (t.id, t.status))
        .collect();
    assert_eq!(
        listed,
        [
            ("1".to_owned(), TaskStatus::Pending),
            ("2".to_owned(), TaskStatus::Pending),
            ("4".to_owned(), TaskStatus::Pending)
        ]
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        [
            mode(&dir),
            mode(&dir.join("1.json")),
            mode(&dir.join(".lock"))
        ],
        [0o700, 0o600, 0o600]
    );
}

#[test]
fn blocking_is_kept_on_both_sides_and_a_deleted_task_leaves_no_reference() {
    let tmp = tempfile::tempdir().unwrap();
    let list = TaskList::open(tmp.path()).unwrap();
    for s in ["a", "b", "c"] {
        list.create(new(s)).unwrap();
    }
    assert!(list.block("1", "3").unwrap());
    assert!(list.block("2", "3").unwrap());
    assert!(list.block("2", "3").unwrap(), "an edge twice is one edge");
    assert!(!list.block("1", "9").unwrap());
    let edges = |list: &TaskList| -> Vec<(String, Vec<String>, Vec<String>)> {
        (list.list().unwrap().into_iter())
            .map(|t| (t.id, t.blocks, t.blocked_by))
            .collect()
    };
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        edges(&list),
        [
            ("1".into(), s(&["3"]), s(&[])),
            ("2".into(), s(&["3"]), s(&[])),
            ("3".into(), s(&[]), s(&["1", "2"]))
        ]
    );
    let all = list.list().unwrap();
    assert_eq!(open_blockers(&all[2], &all), s(&["1", "2"]));
    list.update("1", |t| t.status = TaskStatus::Completed)
        .unwrap();
    let all = list.list().unwrap();
    assert_eq!(
        open_blockers(&all[2], &all),
        s(&["2"]),
        "a completed task unblocks"
    );
    assert!(list.delete("2").unwrap());
    assert_eq!(
        edges(&list),
        [
            ("1".into(), s(&["3"]), s(&[])),
            ("3".into(), s(&[]), s(&["1"]))
        ]
    );
}

#[test]
fn a_claim_is_refused_for_the_reasons_claude_code_gives() {
    let tmp = tempfile::tempdir().unwrap();
    let list = TaskList::open(tmp.path()).unwrap();
    for s in ["a", "b", "c"] {
        list.create(new(s)).unwrap();
    }
    list.block("1", "2").unwrap();
    let blocked = list.claim("2", "ann").unwrap().unwrap_err();
    assert!(matches!(&blocked, ClaimRefused::Blocked { by, .. } if by == &["1".to_owned()]));
    let got = list.claim("1", "ann").unwrap().unwrap();
    assert_eq!(got.owner.as_deref(), Some("ann"));
    assert!(matches!(
        list.claim("1", "bob").unwrap(),
        Err(ClaimRefused::AlreadyClaimed(_))
    ));
    assert!(
        list.claim("1", "ann").unwrap().is_ok(),
        "claiming one's own task again is fine"
    );
    list.update("3", |t| t.status = TaskStatus::Completed)
        .unwrap();
    assert!(matches!(
        list.claim("3", "bob").unwrap(),
        Err(ClaimRefused::AlreadyResolved(_))
    ));
    assert_eq!(list.claim("7", "bob").unwrap(), Err(ClaimRefused::NotFound));
    list.update("1", |t| t.status = TaskStatus::InProgress)
        .unwrap();
    let freed: Vec<String> = list
        .unassign("ann")
        .unwrap()
        .into_iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(freed, ["1"]);
    let one = list.get("1").unwrap().unwrap();
    assert_eq!((one.owner, one.status), (None, TaskStatus::Pending));
}

#[test]
fn keys_tack_does_not_know_are_kept_through_an_update() {
    let tmp = tempfile::tempdir().unwrap();
    let theirs = json!({"id": "1", "subject": "s", "description": "d", "status": "in_progress",
        "owner": "w1", "blocks": [], "blockedBy": [], "metadata": {"_internal": true, "k": 1},
        "createdAt": 1739012345678u64, "futureKey": {"x": [1, 2]}});
    std::fs::write(tmp.path().join("1.json"), theirs.to_string()).unwrap();
    let list = TaskList::open(tmp.path()).unwrap();
    let (task, ()) = list
        .update("1", |t| {
            t.status = TaskStatus::Completed;
            t.merge_metadata(json!({"k": null, "n": 2}).as_object().unwrap());
        })
        .unwrap()
        .unwrap();
    assert!(task.is_internal());
    let mut expected = theirs;
    expected["status"] = json!("completed");
    expected["metadata"] = json!({"_internal": true, "n": 2});
    assert_eq!(file(tmp.path(), "1.json"), expected);
}

#[test]
fn a_torn_or_hostile_file_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let list = TaskList::open(tmp.path()).unwrap();
    list.create(new("a")).unwrap();
    let torn = tmp.path().join("2.json");
    std::fs::write(&torn, "{\"id\": \"2\", \"subj").unwrap();
    let err = list.list().unwrap_err();
    assert!(
        matches!(&err, TaskError::Torn { path, .. } if path == &torn),
        "{err}"
    );
    assert!(
        err.to_string()
            .starts_with(&format!("{} is not a task file: ", torn.display()))
    );

    std::fs::write(&torn, json!({"id": "2", "subject": 5}).to_string()).unwrap();
    assert!(matches!(list.get("2"), Err(TaskError::Torn { .. })));

    std::fs::write(&torn, vec![b' '; 2 << 20]).unwrap();
    let err = list.get("2").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("cannot read {}: it is larger than 1 MB", torn.display())
    );

    std::fs::remove_file(&torn).unwrap();
    let fifo = std::ffi::CString::new(torn.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads the NUL-terminated path and touches nothing else.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let err = list.get("2").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "cannot read {}: it is a FIFO (named pipe), not a regular file",
            torn.display()
        )
    );
    std::fs::remove_file(&torn).unwrap();
    std::fs::write(tmp.path().join("tasks.json"), "not a task").unwrap();
    std::fs::write(tmp.path().join("x1.json"), "not a task").unwrap();
    assert_eq!(list.list().unwrap().len(), 1, "other names are not tasks");
}

#[test]
fn ids_and_list_ids_that_could_leave_the_folder_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let list = TaskList::open(tmp.path()).unwrap();
    for id in ["../1", "1/2", "", "-1", "1.5", "١"] {
        assert!(
            matches!(list.get(id), Err(TaskError::TaskId { .. })),
            "{id:?}"
        );
    }
    assert_eq!(
        list.update("../x", |_| ()).unwrap_err().to_string(),
        "\"../x\" is not a task id (task ids are numbers: \"1\", \"2\", ...)"
    );
    let root = Path::new("/c");
    for id in ["../../etc", "a/b", "..", "", "x\0y"] {
        let err = list_dir(root, id).unwrap_err();
        assert!(matches!(err, TaskError::ListId { .. }), "{id:?}");
        assert!(
            err.to_string()
                .starts_with(&format!("task list id {id:?} is refused"))
        );
    }
    assert_eq!(
        list_dir(root, "my team.v2").unwrap(),
        Path::new("/c/tasks/my-team-v2"),
        "Claude Code's folder name"
    );
    assert_eq!(
        list_dir(root, "0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60").unwrap(),
        Path::new("/c/tasks/0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60")
    );
}

#[test]
fn claude_codes_lock_folders_are_waited_for_and_a_dead_holders_is_taken_over() {
    use std::time::{Duration, Instant, SystemTime};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let list = TaskList::open(&dir).unwrap();
    list.create(new("a")).unwrap();
    // Claude Code holds task 1 (proper-lockfile's `<file>.lock` folder).
    let held = dir.join("1.json.lock");
    std::fs::create_dir(&held).unwrap();
    let waiting = {
        let list = list.clone();
        std::thread::spawn(move || list.update("1", |t| t.subject = "changed".into()).unwrap())
    };
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !waiting.is_finished(),
        "the update waits for Claude Code's lock"
    );
    std::fs::remove_dir(&held).unwrap();
    waiting.join().unwrap();
    assert_eq!(list.get("1").unwrap().unwrap().subject, "changed");

    // A holder that died a minute ago left `.lock.lock` behind.
    let dead = dir.join(".lock.lock");
    std::fs::create_dir(&dead).unwrap();
    let minute_ago = SystemTime::now() - Duration::from_secs(60);
    (std::fs::File::open(&dead).unwrap())
        .set_modified(minute_ago)
        .unwrap();
    let start = Instant::now();
    assert_eq!(list.create(new("b")).unwrap().id, "2");
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(
        names(&dir),
        [".lock", "1.json", "2.json"],
        "no lock folder is left behind"
    );
}
