//! What a sandboxed command must not plant (issue 35): code that git or tack
//! runs later, outside the sandbox. Each attempt is auto-allowed (the
//! sandbox on, Bash allowed) and sits beside its allowed twin: the same
//! write somewhere nothing runs it.

use std::collections::BTreeMap;

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::sandbox::{bash, project, refused, run, script, trimmed};

/// A config that makes the next `git status` run `touch pwned`.
const FSMONITOR: &str = "printf '[core]\\n\\tfsmonitor = touch pwned\\n'";

fn read_only(what: &str) -> String {
    refused(what, true)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sandboxed_command_cannot_plant_what_git_or_tack_runs_later() {
    let calls = vec![
        // (a) A commondir naming a copy of .git whose config git then reads.
        bash(
            "commondir",
            &format!(
                "mkdir evil && {FSMONITOR} > evil/config && echo \"$PWD/evil\" > .git/commondir; echo rc=$?"
            ),
        ),
        bash(
            "commondir_twin",
            "echo \"$PWD/evil\" > evil/commondir; echo rc=$?",
        ),
        // (b) .git renamed (the read-only binds would go with it), a new one
        // made with a config of the command's own.
        bash(
            "rename",
            &format!(
                "mv .git .git-old && mkdir .git && cp -r .git-old/HEAD .git-old/objects .git-old/refs .git/ \
                 && {FSMONITOR} > .git/config; echo rc=$?"
            ),
        ),
        bash(
            "rename_twin",
            "mkdir notes && mv notes notes-old; echo rc=$?",
        ),
        // (c) A submodule's git dir.
        bash(
            "module",
            &format!("{FSMONITOR} >> .git/modules/sub/config; echo rc=$?"),
        ),
        bash(
            "module_twin",
            &format!("mkdir -p vendor/sub && {FSMONITOR} >> vendor/sub/config; echo rc=$?"),
        ),
        // (d) A nested repository and settings folder, made during the
        // command: moved aside when it ends.
        bash(
            "nested",
            &format!(
                "mkdir -p sub/.git sub/.claude && {FSMONITOR} > sub/.git/config \
                 && echo '{{\"hooks\": {{}}}}' > sub/.claude/settings.json; echo rc=$?"
            ),
        ),
        bash(
            "nested_twin",
            "mkdir -p sub2/.github && echo x > sub2/.github/f; echo rc=$?",
        ),
        // Editor folders: an existing one is read-only, a new one moved aside.
        bash("vscode", "echo '{}' > .vscode/tasks.json; echo rc=$?"),
        bash(
            "idea",
            "mkdir .idea && echo x > .idea/workspace.xml; echo rc=$?",
        ),
        // git itself still reads the repository inside.
        bash("git_reads", "git rev-parse --is-inside-work-tree"),
    ];
    let settings = json!({
        "permissions": {"allow": ["Bash(*)"]},
        "sandbox": {"enabled": true},
    });
    let env = project(script(vec![calls]), settings).await;
    let cwd = env.cwd();
    let modules = cwd.join(".git/modules/sub");
    std::fs::create_dir_all(&modules).unwrap();
    std::fs::write(modules.join("config"), "[core]\n").unwrap();
    std::fs::write(cwd.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    for dir in [".git/objects", ".git/refs", ".vscode"] {
        std::fs::create_dir_all(cwd.join(dir)).unwrap();
    }
    let (_, results) = run(&env, &[]).await;
    let moved = |rel: &str, what: &str| {
        let path = cwd.join(rel);
        format!(
            "tack sandbox: the command created {} ({what}); it was moved to {}.blocked-by-sandbox. \
             Creating it needs the command run with the sandbox disabled, which asks first.",
            path.display(),
            path.display()
        )
    };
    let repo = "a repository: git runs what its config and hooks name, outside the sandbox";
    let nested = format!(
        "rc=0\n{}\n{}",
        moved(
            "sub/.claude",
            "a settings folder: tack runs its hooks, outside the sandbox"
        ),
        moved("sub/.git", repo)
    );
    let idea = format!(
        "rc=0\n{}",
        moved(
            ".idea",
            "an editor's settings: the editor runs the tasks they name"
        )
    );
    let expected = BTreeMap::from([
        ("commondir", read_only(".git/commondir")),
        ("commondir_twin", "rc=0".to_owned()),
        (
            "rename",
            "rc=1\nmv: cannot move '.git' to '.git-old': Device or resource busy".to_owned(),
        ),
        ("rename_twin", "rc=0".to_owned()),
        ("module", read_only(".git/modules/sub/config")),
        ("module_twin", "rc=0".to_owned()),
        ("nested", nested),
        ("nested_twin", "rc=0".to_owned()),
        ("vscode", read_only(".vscode/tasks.json")),
        ("idea", idea),
        ("git_reads", "true".to_owned()),
    ]);
    let expected: BTreeMap<&str, &str> = expected.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert_eq!(trimmed(&results), vec![expected]);
    let exists = |rel: &str| cwd.join(rel).symlink_metadata().is_ok();
    let left = [
        ".git/commondir",
        ".git-old",
        "sub/.git",
        "sub/.claude",
        ".idea",
        ".vscode/tasks.json",
        "sub/.git.blocked-by-sandbox",
        "sub2/.github/f",
        "evil/commondir",
    ]
    .map(exists);
    assert_eq!(
        left,
        [false, false, false, false, false, false, true, true, true]
    );
    assert_eq!(
        std::fs::read_to_string(modules.join("config")).unwrap(),
        "[core]\n"
    );
    assert_eq!(
        std::fs::read_to_string(cwd.join(".git/config")).unwrap(),
        "[core]\n"
    );
}

/// `--add-dir ~`: tack's settings and trust store, Claude Code's folder,
/// git's global config and `~/.ssh` stay read-only; the rest of the home
/// folder is writable.
#[tokio::test(flavor = "multi_thread")]
async fn an_added_home_keeps_tacks_gits_and_sshs_files_read_only() {
    let calls = vec![
        bash(
            "tack",
            "echo '{}' > \"$HOME/.tack/settings.json\"; echo rc=$?",
        ),
        bash(
            "claude",
            "echo '{}' > \"$HOME/.claude/settings.json\"; echo rc=$?",
        ),
        bash(
            "git",
            &format!("{FSMONITOR} >> \"$HOME/.config/git/config\"; echo rc=$?"),
        ),
        bash(
            "ssh",
            "echo key >> \"$HOME/.ssh/authorized_keys\"; echo rc=$?",
        ),
        bash("twin", "echo x > \"$HOME/notes.txt\"; echo rc=$?"),
    ];
    let settings = json!({
        "permissions": {"allow": ["Bash(*)"]},
        "sandbox": {"enabled": true},
    });
    let env = project(script(vec![calls]), settings).await;
    let home_var = env.home.path().to_path_buf();
    for dir in [".tack", ".claude", ".config/git", ".ssh"] {
        std::fs::create_dir_all(home_var.join(dir)).unwrap();
    }
    std::fs::write(home_var.join(".config/git/config"), "[user]\n").unwrap();
    let added = home_var.display().to_string();
    let (_, results) = run(&env, &["--add-dir", &added]).await;
    let ro = |rel: &str| read_only(&format!("{added}/{rel}"));
    let expected = BTreeMap::from([
        ("tack", ro(".tack/settings.json")),
        ("claude", ro(".claude/settings.json")),
        ("git", ro(".config/git/config")),
        ("ssh", ro(".ssh/authorized_keys")),
        ("twin", "rc=0".to_owned()),
    ]);
    let expected: BTreeMap<&str, &str> = expected.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert_eq!(trimmed(&results), vec![expected]);
    assert_eq!(
        std::fs::read_to_string(home_var.join(".config/git/config")).unwrap(),
        "[user]\n"
    );
    assert!(!home_var.join(".ssh/authorized_keys").exists());
    assert!(home_var.join("notes.txt").exists());
}

/// A command that ignores the timeout's SIGTERM is ended with its namespace
/// a second later, before the caller's kill grace, so what it planted is
/// still found and moved aside.
#[tokio::test(flavor = "multi_thread")]
async fn a_plant_by_a_command_that_ignores_its_timeout_is_still_moved_aside() {
    let call = (
        "stubborn".to_owned(),
        json!({
            "command": "trap '' TERM; mkdir -p sub/.git && touch sub/.git/config && sleep 30",
            "timeout": 500,
        }),
    );
    let settings = json!({"permissions": {"allow": ["Bash(*)"]}, "sandbox": {"enabled": true}});
    let env = project(script(vec![vec![call]]), settings).await;
    run(&env, &[]).await;
    let cwd = env.cwd();
    assert_eq!(
        (
            cwd.join("sub/.git").exists(),
            cwd.join("sub/.git.blocked-by-sandbox/config").exists()
        ),
        (false, true)
    );
}
