//! Memory files from a checkout may only import from the project (issue 17).

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use tack_core::context::{DiscoveredMemory, MemoryKind, discover_memory};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A repository at `<tmp>/repo` whose CLAUDE.md imports one file inside, one
/// in an added directory, one elsewhere and one in the home directory; its
/// AGENTS.md is a symlink to a file outside. The home has user-level memory
/// importing from outside.
struct Layout {
    _tmp: tempfile::TempDir,
    repo: PathBuf,
    home: PathBuf,
    added: PathBuf,
    outside: PathBuf,
}

fn layout() -> Layout {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (repo, home, added, outside) = (
        root.join("repo"),
        root.join("home"),
        root.join("added"),
        root.join("outside"),
    );
    fs::create_dir_all(repo.join(".git")).unwrap();
    write(&repo.join("docs/in.md"), "inside\n");
    write(&added.join("extra.md"), "added dir\n");
    write(&outside.join("secret.md"), "secret\n");
    write(&outside.join("agents.md"), "linked agents\n");
    write(&home.join("private.md"), "home secret\n");
    write(
        &home.join(".claude/CLAUDE.md"),
        "user @../../outside/secret.md\n",
    );
    write(
        &repo.join("CLAUDE.md"),
        &format!(
            "@docs/in.md @{} @../outside/secret.md @~/private.md\n",
            added.join("extra.md").display()
        ),
    );
    std::os::unix::fs::symlink(outside.join("agents.md"), repo.join("AGENTS.md")).unwrap();
    Layout {
        _tmp: tmp,
        repo,
        home,
        added,
        outside,
    }
}

fn summary(found: &DiscoveredMemory) -> Vec<(String, MemoryKind)> {
    found
        .files
        .iter()
        .map(|f| (f.content.trim().to_owned(), f.kind))
        .collect()
}

#[test]
fn project_files_import_only_from_the_project_and_added_dirs() {
    let l = layout();
    let found = discover_memory(
        &l.repo,
        Some(&l.home),
        std::slice::from_ref(&l.added),
        false,
    );
    let claude = format!(
        "@docs/in.md @{} @../outside/secret.md @~/private.md",
        l.added.join("extra.md").display()
    );
    assert_eq!(
        summary(&found),
        vec![
            ("user @../../outside/secret.md".to_owned(), MemoryKind::User),
            // A user-level file imports freely.
            ("secret".to_owned(), MemoryKind::User),
            (claude, MemoryKind::Project),
            ("inside".to_owned(), MemoryKind::Project),
            ("added dir".to_owned(), MemoryKind::Project),
        ]
    );
    assert_eq!(
        found.warnings,
        vec![
            format!(
                "Skipped 2 import(s) in {} from outside the project (../outside/secret.md, \
                 ~/private.md). To allow them: tack trust --allow-external-imports",
                l.repo.join("CLAUDE.md").display()
            ),
            format!(
                "Skipped {} from outside the project (it links to {}). To allow it: tack trust \
                 --allow-external-imports",
                l.repo.join("AGENTS.md").display(),
                l.outside.join("agents.md").display()
            ),
        ]
    );
}

#[test]
fn approved_external_imports_load_everything_without_warnings() {
    let l = layout();
    let found = discover_memory(&l.repo, Some(&l.home), &[], true);
    let contents: Vec<String> = summary(&found).into_iter().map(|(c, _)| c).collect();
    assert_eq!(
        contents[2..],
        [
            format!(
                "@docs/in.md @{} @../outside/secret.md @~/private.md",
                l.added.join("extra.md").display()
            ),
            "inside".to_owned(),
            "added dir".to_owned(),
            // Already included (imported by the user file), not repeated.
            "home secret".to_owned(),
            "linked agents".to_owned(),
        ]
    );
    assert_eq!(found.warnings, Vec::<String>::new());
}

#[test]
fn imports_of_imports_are_held_to_the_project_too() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let repo = root.join("repo");
    fs::create_dir_all(repo.join(".git")).unwrap();
    write(&root.join("secret.md"), "secret\n");
    write(&repo.join("CLAUDE.md"), "@a.md\n");
    write(&repo.join("a.md"), "a imports @../secret.md\n");
    write(&repo.join("CLAUDE.local.md"), "local @/etc/hostname\n");
    let found = discover_memory(&repo, None, &[], false);
    assert_eq!(
        summary(&found),
        vec![
            ("@a.md".to_owned(), MemoryKind::Project),
            ("a imports @../secret.md".to_owned(), MemoryKind::Project),
            ("local @/etc/hostname".to_owned(), MemoryKind::Local),
        ]
    );
    let mut expected = vec![format!(
        "Skipped 1 import(s) in {} from outside the project (../secret.md). To allow them: \
         tack trust --allow-external-imports",
        repo.join("a.md").display()
    )];
    if Path::new("/etc/hostname").is_file() {
        expected.push(format!(
            "Skipped 1 import(s) in {} from outside the project (/etc/hostname). To allow them: \
             tack trust --allow-external-imports",
            repo.join("CLAUDE.local.md").display()
        ));
    }
    assert_eq!(found.warnings, expected);
}
