//! `~/.claude.json` and files like it are changed by Claude Code, other tacks
//! and `tack mcp` at once: every edit keeps what it did not change, a broken
//! or hostile file is an error naming it and is left as it was.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_config::json_object_file::{Access, JsonFileError, edit, read};

fn set(path: &Path, key: &str, value: Value) -> Result<bool, JsonFileError> {
    edit(path, Access::Private, |o| {
        o.insert(key.to_owned(), value);
        Ok::<_, JsonFileError>(true)
    })
}

fn on_disk(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn an_edit_keeps_every_other_key_and_is_the_users_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home/.claude.json");
    // Nothing changed: a missing file stays missing.
    let unchanged = edit(&path, Access::Private, |_| Ok::<_, JsonFileError>(false));
    assert_eq!(unchanged.unwrap(), false);
    assert!(!path.exists());
    assert_eq!(read(&path).unwrap(), None);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, r#"{"numStartups": 4, "projects": {"/p": {}}}"#).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert!(set(&path, "editorMode", json!("vim")).unwrap());
    assert_eq!(
        on_disk(&path),
        json!({"numStartups": 4, "projects": {"/p": {}}, "editorMode": "vim"})
    );
    assert_eq!(mode(&path), 0o600);
    // A shared file keeps its permissions; a new one is 0644.
    let shared = dir.path().join("p/.mcp.json");
    edit(&shared, Access::Shared, |o| {
        o.insert("mcpServers".into(), json!({}));
        Ok::<_, JsonFileError>(true)
    })
    .unwrap();
    assert_eq!(
        (on_disk(&shared), mode(&shared)),
        (json!({"mcpServers": {}}), 0o644)
    );
}

#[test]
fn a_torn_or_wrong_typed_file_is_an_error_naming_it_and_is_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".claude.json");
    for (text, said) in [
        (
            r#"{"projects": {"/p": "#,
            "is not valid JSON: EOF while parsing a value at line 1 column 20; fix or remove it",
        ),
        ("[1, 2]", "is not a JSON object; fix or remove it"),
        ("\"vim\"", "is not a JSON object; fix or remove it"),
    ] {
        std::fs::write(&path, text).unwrap();
        let err = set(&path, "editorMode", json!("vim")).unwrap_err();
        assert_eq!(err.to_string(), format!("{} {said}", path.display()));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        // A change's own error writes nothing either.
        std::fs::write(&path, "{}").unwrap();
        let refused = edit(&path, Access::Private, |o| {
            o.insert("half".into(), json!(1));
            Err(JsonFileError::NotObject { path: path.clone() })
        });
        assert!(refused.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
    }
}

#[test]
fn a_huge_file_a_fifo_or_a_directory_is_refused_not_read_forever() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".claude.json");
    // Sparse: 65 MB of nothing, over the 64 MB a state file may be.
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(65 * 1024 * 1024).unwrap();
    let err = set(&path, "k", json!(1)).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("cannot read {}: it is larger than 64 MB", path.display())
    );
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 65 * 1024 * 1024);
    std::fs::remove_file(&path).unwrap();
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    assert_eq!(
        read(&path).unwrap_err().to_string(),
        format!(
            "cannot read {}: it is a FIFO (named pipe), not a regular file",
            path.display()
        )
    );
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    assert_eq!(
        set(&path, "k", json!(1)).unwrap_err().to_string(),
        format!(
            "cannot read {}: it is a directory, not a regular file",
            path.display()
        )
    );
}

#[test]
fn a_symlinked_file_is_written_through_its_link_and_a_dangling_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dotfiles = dir.path().join("dotfiles");
    std::fs::create_dir(&dotfiles).unwrap();
    let target = dotfiles.join("claude.json");
    std::fs::write(&target, r#"{"theme": "dark"}"#).unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let link = home.join(".claude.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    set(&link, "editorMode", json!("normal")).unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        on_disk(&target),
        json!({"theme": "dark", "editorMode": "normal"})
    );
    let dangling = home.join("gone.json");
    std::os::unix::fs::symlink(dotfiles.join("nowhere.json"), &dangling).unwrap();
    let err = set(&dangling, "k", json!(1)).unwrap_err();
    assert!(
        matches!(&err, JsonFileError::Write { path, .. } if path == &dangling),
        "{err}"
    );
    assert!(
        std::fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn writers_at_once_lose_no_update() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".claude.json");
    std::fs::write(&path, r#"{"keep": true}"#).unwrap();
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let path = path.clone();
            std::thread::spawn(move || {
                for _ in 0..25 {
                    edit(&path, Access::Private, |o| {
                        let n = o.get("count").and_then(Value::as_u64).unwrap_or(0);
                        o.insert("count".into(), json!(n + 1));
                        o.insert(format!("writer{w}"), json!(true));
                        Ok::<_, JsonFileError>(true)
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let mut expected = json!({"keep": true, "count": 200});
    for w in 0..8 {
        expected[format!("writer{w}")] = json!(true);
    }
    assert_eq!(on_disk(&path), expected);
}
