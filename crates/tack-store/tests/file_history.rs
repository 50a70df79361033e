//! File checkpoints: what a turn keeps, what a rewind puts back, the limits.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use tack_store::{FileHistory, FileHistoryError, Limits, Rewound, file_history_dir};

struct Fixture {
    _tmp: tempfile::TempDir,
    work: PathBuf,
    backups: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let backups = file_history_dir(&tmp.path().join("config"), "s-1");
    Fixture {
        _tmp: tmp,
        work,
        backups,
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn backup_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn the_history_lives_under_the_config_dir_by_session() {
    assert_eq!(
        file_history_dir(Path::new("/home/u/.tack"), "abc"),
        PathBuf::from("/home/u/.tack/file-history/abc")
    );
}

#[test]
fn only_a_turns_first_change_is_kept_and_rewind_goes_back_to_the_message() {
    let f = fixture();
    let a = f.work.join("a.txt");
    std::fs::write(&a, "one\nshared\n").unwrap();
    let mut history = FileHistory::new(f.backups.clone(), Limits::default());

    history.begin("m1");
    history.before_change(&a).unwrap();
    std::fs::write(&a, "two\nshared\n").unwrap();
    history.before_change(&a).unwrap();
    std::fs::write(&a, "three\nshared\n").unwrap();
    history.begin("m2");
    history.before_change(&a).unwrap();
    std::fs::write(&a, "four\nshared\nmore\n").unwrap();

    // Two turns, two backups: the same turn's second change keeps nothing.
    let names = backup_names(&f.backups);
    assert_eq!(names.len(), 2);
    let hash = names[0].strip_suffix("@v1").unwrap();
    assert_eq!(hash.len(), 16);
    assert!(hash.chars().all(|c| c.is_ascii_hexdigit()), "{hash}");
    assert_eq!(names, [format!("{hash}@v1"), format!("{hash}@v2")]);
    assert_eq!(read(&f.backups.join(&names[0])), "one\nshared\n");

    // A dry run says what would change and changes nothing.
    let to_m2 = Rewound {
        files_changed: vec![a.clone()],
        insertions: 1,
        deletions: 2,
        skipped: 0,
    };
    assert_eq!(history.rewind("m2", true).unwrap(), to_m2);
    assert_eq!(read(&a), "four\nshared\nmore\n");

    assert_eq!(
        history.rewind("m1", false).unwrap(),
        Rewound {
            files_changed: vec![a.clone()],
            insertions: 1,
            deletions: 2,
            skipped: 0,
        }
    );
    assert_eq!(read(&a), "one\nshared\n");
    // Already there: nothing left to change.
    assert_eq!(history.rewind("m1", false).unwrap(), Rewound::default());
    // The later checkpoint still holds.
    history.rewind("m2", false).unwrap();
    assert_eq!(read(&a), "three\nshared\n");
}

#[test]
fn a_file_created_since_the_message_is_deleted_and_untouched_files_stay() {
    let f = fixture();
    let new = f.work.join("sub/new.txt");
    let before = f.work.join("before.txt");
    let mut history = FileHistory::new(f.backups.clone(), Limits::default());

    history.begin("m1");
    history.before_change(&before).unwrap();
    std::fs::write(&before, "made in the first turn\n").unwrap();
    history.begin("m2");
    history.before_change(&new).unwrap();
    std::fs::create_dir_all(new.parent().unwrap()).unwrap();
    std::fs::write(&new, "x\ny\n").unwrap();

    assert_eq!(
        history.rewind("m2", false).unwrap(),
        Rewound {
            files_changed: vec![new.clone()],
            insertions: 0,
            deletions: 2,
            skipped: 0,
        }
    );
    assert!(!new.exists());
    assert_eq!(read(&before), "made in the first turn\n");
    // Nothing existed to back up: the history folder was never made.
    assert!(!f.backups.exists());

    history.rewind("m1", false).unwrap();
    assert!(!before.exists());
}

#[test]
fn files_over_the_limits_are_not_kept_and_a_rewind_leaves_them() {
    let f = fixture();
    let limits = Limits {
        per_file: 10,
        per_session: 15,
    };
    let big = f.work.join("big.txt");
    let first = f.work.join("first.txt");
    let second = f.work.join("second.txt");
    std::fs::write(&big, "0123456789AB").unwrap();
    std::fs::write(&first, "1234567890").unwrap();
    std::fs::write(&second, "abcdefghij").unwrap();
    let mut history = FileHistory::new(f.backups.clone(), limits);

    history.begin("m1");
    for path in [&big, &first, &second] {
        history.before_change(path).unwrap();
        std::fs::write(path, "changed").unwrap();
    }
    // Only `first` fits: `big` is over the file limit, `second` would take the
    // session past its total.
    assert_eq!(backup_names(&f.backups).len(), 1);
    assert_eq!(
        history.rewind("m1", false).unwrap(),
        Rewound {
            files_changed: vec![first.clone()],
            insertions: 1,
            deletions: 1,
            skipped: 2,
        }
    );
    assert_eq!(
        [read(&big), read(&first), read(&second)],
        ["changed", "1234567890", "changed"]
    );
}

#[test]
fn a_symlink_is_neither_kept_nor_written_through() {
    let f = fixture();
    let target = f.work.join("target.txt");
    let link = f.work.join("link.txt");
    std::fs::write(&target, "target\n").unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let mut history = FileHistory::new(f.backups.clone(), Limits::default());
    history.begin("m1");
    history.before_change(&link).unwrap();
    std::fs::write(&target, "changed\n").unwrap();
    assert_eq!(history.rewind("m1", false).unwrap().skipped, 1);
    assert_eq!(read(&target), "changed\n");
}

#[test]
fn an_unknown_message_is_an_error_and_changes_outside_a_turn_are_not_kept() {
    let f = fixture();
    let a = f.work.join("a.txt");
    std::fs::write(&a, "a").unwrap();
    let mut history = FileHistory::new(f.backups.clone(), Limits::default());
    history.before_change(&a).unwrap();
    assert!(!f.backups.exists());
    history.begin("m1");
    assert!(history.knows("m1"));
    assert!(!history.knows("m0"));
    let err = history.rewind("m0", true).unwrap_err();
    assert!(matches!(err, FileHistoryError::UnknownMessage(ref id) if id == "m0"));
    assert_eq!(
        err.to_string(),
        "No file checkpoint found for this message."
    );
}
