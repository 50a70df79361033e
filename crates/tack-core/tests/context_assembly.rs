//! Context assembly: memory file discovery, the git snapshot, the default system
//! prompt and the per-session memo.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use tack_core::context::{
    ContextCache, ContextOptions, MemoryFile, MemoryKind, OutputStylePrompt, PromptContext,
    SystemPromptOptions, default_system_prompt, discover_memory_files, format_memory_files,
    load_prompt_context, system_prompt_layers,
};
use tack_git::snapshot::{GitSnapshot, git_snapshot};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn file(path: PathBuf, kind: MemoryKind, content: &str) -> MemoryFile {
    MemoryFile {
        path,
        kind,
        content: content.to_owned(),
    }
}

#[test]
fn memory_files_from_home_and_repo_root_down_to_cwd() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let home = root.join("home");
    let repo = root.join("work/repo");
    let cwd = repo.join("crates/app");

    write(&home.join(".claude/CLAUDE.md"), "claude user rules\n");
    write(
        &home.join(".tack/CLAUDE.md"),
        "tack user rules\n@~/shared.md\n",
    );
    write(&home.join("shared.md"), "shared rules\n");
    // Above the repository root: not part of this project.
    write(&root.join("work/CLAUDE.md"), "outside rules\n");
    fs::create_dir_all(repo.join(".git")).unwrap();
    let root_claude =
        "root rules, see @docs/a.md.\n```\n@docs/fenced.md\n```\nNot `@docs/inline.md` either.\n";
    write(&repo.join("CLAUDE.md"), root_claude);
    write(&repo.join("docs/a.md"), "A imports @b.md and @missing.md\n");
    write(
        &repo.join("docs/b.md"),
        "B imports @a.md again and @../AGENTS.md\n",
    );
    write(&repo.join("docs/fenced.md"), "fenced\n");
    write(&repo.join("docs/inline.md"), "inline\n");
    write(&repo.join("AGENTS.md"), "agents rules\n");
    write(&repo.join("CLAUDE.local.md"), "local notes\n");
    write(&cwd.join("CLAUDE.md"), "app rules\n");
    write(&cwd.join(".claude/CLAUDE.md"), "app dot-claude rules\n");
    write(&cwd.join(".tack/CLAUDE.md"), "   \n");

    let files = discover_memory_files(&cwd, Some(&home));
    assert_eq!(
        files,
        vec![
            file(
                home.join(".claude/CLAUDE.md"),
                MemoryKind::User,
                "claude user rules\n"
            ),
            file(
                home.join(".tack/CLAUDE.md"),
                MemoryKind::User,
                "tack user rules\n@~/shared.md\n"
            ),
            file(home.join("shared.md"), MemoryKind::User, "shared rules\n"),
            file(repo.join("CLAUDE.md"), MemoryKind::Project, root_claude),
            file(
                repo.join("docs/a.md"),
                MemoryKind::Project,
                "A imports @b.md and @missing.md\n"
            ),
            file(
                repo.join("docs/b.md"),
                MemoryKind::Project,
                "B imports @a.md again and @../AGENTS.md\n"
            ),
            // Imported by b.md first, so not repeated at its own place below.
            file(
                repo.join("AGENTS.md"),
                MemoryKind::Project,
                "agents rules\n"
            ),
            file(
                repo.join("CLAUDE.local.md"),
                MemoryKind::Local,
                "local notes\n"
            ),
            file(cwd.join("CLAUDE.md"), MemoryKind::Project, "app rules\n"),
            file(
                cwd.join(".claude/CLAUDE.md"),
                MemoryKind::Project,
                "app dot-claude rules\n"
            ),
        ]
    );
}

#[test]
fn without_a_repository_only_the_cwd_is_searched() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path().join("a/b");
    write(&tmp.path().join("a/CLAUDE.md"), "parent\n");
    write(&cwd.join("AGENTS.md"), "here\n");

    let files = discover_memory_files(&cwd, None);
    assert_eq!(
        files,
        vec![file(cwd.join("AGENTS.md"), MemoryKind::Project, "here\n")]
    );
}

#[test]
fn imports_go_four_hops_deep() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    fs::create_dir(cwd.join(".git")).unwrap();
    write(&cwd.join("CLAUDE.md"), "@d1.md\n");
    for i in 1..=5 {
        let next = i + 1;
        write(
            &cwd.join(format!("d{i}.md")),
            &format!("level {i} @d{next}.md\n"),
        );
    }

    let names: Vec<String> = discover_memory_files(cwd, None)
        .iter()
        .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["CLAUDE.md", "d1.md", "d2.md", "d3.md", "d4.md"]);
}

#[test]
fn symlinked_files_are_included_once() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    write(&cwd.join("AGENTS.md"), "shared by both tools\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink(cwd.join("AGENTS.md"), cwd.join("CLAUDE.md")).unwrap();
    #[cfg(not(unix))]
    write(&cwd.join("CLAUDE.md"), "@AGENTS.md\n");

    let files = discover_memory_files(cwd, None);
    let paths: Vec<PathBuf> = files.into_iter().map(|f| f.path).collect();
    assert_eq!(paths, [cwd.join("CLAUDE.md")]);
}

#[test]
fn memory_files_are_formatted_with_their_kind() {
    let files = [
        file(
            "/home/u/.tack/CLAUDE.md".into(),
            MemoryKind::User,
            "Use British spelling.\n",
        ),
        file(
            "/r/CLAUDE.md".into(),
            MemoryKind::Project,
            "Run `make test`.\n\n",
        ),
        file(
            "/r/CLAUDE.local.md".into(),
            MemoryKind::Local,
            "My sandbox is at /tmp/x.",
        ),
    ];
    assert_eq!(format_memory_files(&[]), None);
    assert_eq!(
        format_memory_files(&files).unwrap(),
        "Codebase and user instructions are shown below. Be sure to adhere to these \
         instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you \
         MUST follow them exactly as written.\n\n\
         Contents of /home/u/.tack/CLAUDE.md (user's private global instructions for all projects):\n\n\
         Use British spelling.\n\n\
         Contents of /r/CLAUDE.md (project instructions, checked into the codebase):\n\n\
         Run `make test`.\n\n\
         Contents of /r/CLAUDE.local.md (user's private project instructions, not checked in):\n\n\
         My sandbox is at /tmp/x."
    );
}

#[test]
fn default_system_prompt_snapshot() {
    let opts = SystemPromptOptions {
        cwd: "/home/dev/project".into(),
        platform: "linux".into(),
        model: "claude-sonnet-4-5".into(),
        ..SystemPromptOptions::default()
    };
    insta::assert_snapshot!(default_system_prompt(&opts));
}

/// An output style: its section comes last; the conciseness bullet goes;
/// the coding section stays only with `keep-coding-instructions`.
#[test]
fn an_output_style_ends_the_prompt_and_replaces_what_it_should() {
    let base = SystemPromptOptions {
        cwd: "/p".into(),
        platform: "linux".into(),
        ..SystemPromptOptions::default()
    };
    let default = default_system_prompt(&base);
    let style = |keep| SystemPromptOptions {
        output_style: Some(OutputStylePrompt {
            name: "Pirate".into(),
            prompt: "Talk like a pirate.\n".into(),
            keep_coding_instructions: keep,
        }),
        ..base.clone()
    };
    let section = |text: &str, heading: &str| {
        text.split("\n\n")
            .find(|s| s.starts_with(heading))
            .map(str::to_owned)
    };
    let concise = "- Be concise and direct";
    assert!(default.contains(concise) && default.contains("\n# Doing the task\n"));

    let kept = default_system_prompt(&style(true));
    assert!(
        kept.ends_with("\n\n# Output Style: Pirate\nTalk like a pirate."),
        "{kept}"
    );
    assert!(!kept.contains(concise));
    assert_eq!(
        section(&kept, "# Doing the task"),
        section(&default, "# Doing the task")
    );
    assert_eq!(
        section(&kept, "# Using the tools"),
        section(&default, "# Using the tools")
    );
    assert_eq!(kept.split("\n\n").next(), default.split("\n\n").next());

    let replaced = default_system_prompt(&style(false));
    assert_eq!(section(&replaced, "# Doing the task"), None);
    assert_eq!(
        section(&replaced, "# Using the tools"),
        section(&default, "# Using the tools")
    );
    assert!(
        replaced.starts_with("You are tack, a command-line agent."),
        "{replaced}"
    );
    assert!(replaced.ends_with("# Output Style: Pirate\nTalk like a pirate."));
}

#[test]
fn custom_prompt_replaces_the_default_and_append_adds_a_layer() {
    let base = SystemPromptOptions {
        cwd: "/p".into(),
        platform: "linux".into(),
        ..SystemPromptOptions::default()
    };
    let appended = SystemPromptOptions {
        append: Some("Answer in French.".into()),
        ..base.clone()
    };
    assert_eq!(
        system_prompt_layers(&appended),
        vec![default_system_prompt(&base), "Answer in French.".to_owned()]
    );
    let custom = SystemPromptOptions {
        custom: Some("You are a poet.".into()),
        ..appended
    };
    assert_eq!(
        system_prompt_layers(&custom),
        vec!["You are a poet.".to_owned(), "Answer in French.".to_owned()]
    );
}

/// Runs git for test setup, isolated from the user's git configuration.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=Tack Test",
            "-c",
            "user.email=test@example.com",
        ])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim_end().to_owned()
}

fn git_available() -> bool {
    let found = Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipping: no `git` binary on PATH");
    }
    found
}

/// A repository on branch `feature` (with `main` beside it), two commits, one
/// modified and one untracked file.
fn sample_repo(dir: &Path) {
    git(dir, &["init", "-q"]);
    write(&dir.join("a.txt"), "one\n");
    git(dir, &["add", "a.txt"]);
    git(dir, &["commit", "-q", "-m", "first commit"]);
    git(dir, &["checkout", "-q", "-b", "feature"]);
    write(&dir.join("a.txt"), "two\n");
    git(dir, &["commit", "-q", "-am", "second commit"]);
    write(&dir.join("a.txt"), "three\n");
    write(&dir.join("new.txt"), "new\n");
}

#[tokio::test]
async fn git_snapshot_of_a_real_repository() {
    if !git_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    sample_repo(dir);
    fs::create_dir(dir.join("sub")).unwrap();

    let snapshot = git_snapshot(&dir.join("sub"), Duration::from_secs(10)).await;
    let log = git(dir, &["log", "--oneline", "-n", "5"]);
    assert_eq!(
        snapshot,
        Some(GitSnapshot {
            branch: Some("feature".into()),
            main_branch: "main".into(),
            status: " M ../a.txt\n?? ../new.txt".into(), // relative to the cwd, like `git status`
            recent_commits: log.clone(),
        })
    );
    let (second, first) = log.split_once('\n').unwrap();
    assert!(
        second.ends_with(" second commit") && first.ends_with(" first commit"),
        "{log}"
    );
}

#[tokio::test]
async fn git_snapshot_of_an_empty_repository_and_of_no_repository() {
    if !git_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    let snapshot = git_snapshot(&repo, Duration::from_secs(10)).await.unwrap();
    assert_eq!(
        snapshot,
        GitSnapshot {
            branch: Some("main".into()),
            main_branch: "main".into(),
            status: String::new(),
            recent_commits: String::new(),
        }
    );
    assert_eq!(
        snapshot.to_context(),
        "gitStatus: This is the git status at the start of the conversation. Note that this \
         status is a snapshot in time, and will not update during the conversation.\n\
         Current branch: main\n\n\
         Main branch (you will usually use this for PRs): main\n\n\
         Status:\n(clean)\n\n\
         Recent commits:\n(no commits yet)"
    );

    let plain = tmp.path().join("plain");
    fs::create_dir(&plain).unwrap();
    if Command::new("git")
        .args(["rev-parse", "--is-inside-work-tree"])
        .current_dir(&plain)
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("skipping the no-repository case: the temp dir is inside a work tree");
        return;
    }
    assert_eq!(git_snapshot(&plain, Duration::from_secs(10)).await, None);
}

fn session_options(cwd: &Path, home: &Path) -> ContextOptions {
    let mut opts = ContextOptions::new(cwd, "2026-08-22");
    opts.home_dir = Some(home.to_path_buf());
    opts.system_prompt.platform = "linux".into();
    opts.system_prompt.model = "claude-sonnet-4-5".into();
    opts
}

#[tokio::test]
async fn load_prompt_context_puts_memory_and_date_in_user_context_and_git_in_system_context() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let repo = tmp.path().join("repo");
    fs::create_dir_all(&repo).unwrap();
    write(&home.join(".tack/CLAUDE.md"), "Be brief.\n");
    write(&repo.join("CLAUDE.md"), "Run `cargo test`.\n");
    let has_git = git_available();
    if has_git {
        sample_repo(&repo);
    } else {
        fs::create_dir(repo.join(".git")).unwrap();
    }
    let opts = session_options(&repo, &home);

    let ctx = load_prompt_context(&opts).await;
    let home_file = home.join(".tack/CLAUDE.md");
    let repo_file = repo.join("CLAUDE.md");
    let user_context = format!(
        "As you answer the user's questions, you can use the following context:\n\
         # claudeMd\n\
         Codebase and user instructions are shown below. Be sure to adhere to these \
         instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you \
         MUST follow them exactly as written.\n\n\
         Contents of {} (user's private global instructions for all projects):\n\n\
         Be brief.\n\n\
         Contents of {} (project instructions, checked into the codebase):\n\n\
         Run `cargo test`.\n\n\
         # currentDate\n\
         Today's date is 2026-08-22.\n\n\
         IMPORTANT: this context may or may not be relevant to your tasks. You should not \
         respond to this context unless it is highly relevant to your task.",
        home_file.display(),
        repo_file.display()
    );
    let system_context = if has_git {
        git_snapshot(&repo, Duration::from_secs(10))
            .await
            .map(|s| s.to_context())
    } else {
        None
    };
    assert_eq!(
        ctx,
        PromptContext {
            system_prompt: vec![default_system_prompt(&opts.system_prompt)],
            user_context: Some(user_context),
            system_context: system_context.clone(),
        }
    );
    if has_git {
        assert!(
            system_context
                .unwrap()
                .contains("Current branch: feature\n")
        );
    }

    // Flags off and no date: nothing but the system prompt.
    let mut bare = opts.clone();
    bare.include_git = false;
    bare.include_memory_files = false;
    bare.today.clear();
    assert_eq!(
        load_prompt_context(&bare).await,
        PromptContext {
            system_prompt: vec![default_system_prompt(&opts.system_prompt)],
            user_context: None,
            system_context: None,
        }
    );

    // A custom system prompt drops the git snapshot, as in Claude Code.
    let mut custom = bare.clone();
    custom.include_git = true;
    custom.system_prompt.custom = Some("You are a poet.".into());
    assert_eq!(load_prompt_context(&custom).await.system_context, None);
}

#[tokio::test]
async fn context_cache_loads_once_until_invalidated() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let repo = tmp.path().join("repo");
    fs::create_dir_all(repo.join(".git")).unwrap();
    write(&repo.join("CLAUDE.md"), "version one\n");
    let mut opts = session_options(&repo, &home);
    opts.include_git = false;

    let mut cache = ContextCache::new(opts);
    assert_eq!(
        cache.loaded(),
        None,
        "nothing is read before the first request"
    );
    let first = cache.get().await;
    assert!(
        first
            .user_context
            .as_deref()
            .unwrap()
            .contains("version one")
    );

    write(&repo.join("CLAUDE.md"), "version two\n");
    assert!(
        Arc::ptr_eq(&cache.get().await, &first),
        "memoised for the session"
    );

    cache.invalidate();
    let reloaded = cache.get().await;
    assert!(
        reloaded
            .user_context
            .as_deref()
            .unwrap()
            .contains("version two")
    );

    let fixed = PromptContext {
        system_prompt: vec!["fixed".into()],
        ..PromptContext::default()
    };
    let mut preloaded = ContextCache::preloaded(fixed.clone());
    preloaded.invalidate();
    assert_eq!(*preloaded.get().await, fixed);
}
