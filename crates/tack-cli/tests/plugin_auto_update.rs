//! Marketplace `autoUpdate` runs only where a person is at the terminal: the
//! terminal UI refreshes an auto-updating marketplace beside its session,
//! while a `-p` session (as an SDK or `tack batch` child) starts no `git` for
//! it; `tack plugin marketplace update` refreshes it by command.

use std::path::{Path, PathBuf};

use crate::common;
use crate::interactive::{WAIT, tack as tui};
use crate::plugins::market_m;
use crate::plugins_cli::commit_all;

use common::{Env, git, stderr, write};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};
use tack_tui::testing::keys;

/// Sets `autoUpdate` on the known marketplace `name`.
fn ask_for_auto_updates(env: &Env, name: &str) {
    let path = env.claude_dir().join("plugins/known_marketplaces.json");
    let mut known: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    known[name]["autoUpdate"] = json!(true);
    write(&path, &known.to_string());
}

/// What `installed_plugins.json` records of `id`'s first install.
fn installed(env: &Env, id: &str) -> Value {
    let path = env.claude_dir().join("plugins/installed_plugins.json");
    let record: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    record["plugins"][id][0].clone()
}

/// A `git` first on a PATH that logs each command line to `log`, then runs
/// the real one; the PATH to give tack.
fn logging_git(dir: &Path, log: &Path) -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let real = std::env::split_paths(&path)
        .map(|d| d.join("git"))
        .find(|g| g.is_file())
        .expect("git on PATH");
    let bin = dir.join("bin");
    let script = format!(
        "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
        log.display(),
        real.display()
    );
    let fake = write(bin.join("git"), &script);
    std::fs::set_permissions(
        &fake,
        <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755),
    )
    .unwrap();
    std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&path))).unwrap()
}

/// The git subcommand of each logged command line (after tack's `-c` pairs).
fn subcommands(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .map(|line| {
            // The first word that is no global option (`-c k=v`, `--no-pager`).
            let mut words = line.split_whitespace();
            let mut word = words.next().unwrap_or_default();
            while word.starts_with('-') {
                if word == "-c" {
                    words.next();
                }
                word = words.next().unwrap_or_default();
            }
            word.to_owned()
        })
        .collect()
}

/// A git marketplace (a local repository through `file://`) that asks for
/// auto-updates and has a new commit: `tack -p` runs no `git` at all and
/// leaves the clone and the plugin as they were; the command then fetches.
#[tokio::test(flavor = "multi_thread")]
async fn a_print_session_runs_no_git_for_an_auto_updating_marketplace() {
    let env = Env::new(Script::new([Reply::text("hi")])).await;
    let repo = tempfile::tempdir().unwrap();
    let repo = repo.path();
    market_m(repo, "Say HELLO to $ARGUMENTS.\n");
    git(repo, &["init", "-q", "-b", "main"]);
    let first = commit_all(repo, "one");
    let url = format!("file://{}", repo.display());
    for args in [
        vec!["plugin", "marketplace", "add", &url],
        vec!["plugin", "install", "kit@m"],
    ] {
        let out = env.tack().args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    ask_for_auto_updates(&env, "m");
    write(
        repo.join("kit/.claude-plugin/plugin.json"),
        r#"{"name": "kit", "version": "1.1.0"}"#,
    );
    let second = commit_all(repo, "two");
    let clone: PathBuf = env.claude_dir().join("plugins/marketplaces/m");
    assert_eq!(git(&clone, &["rev-parse", "HEAD"]), first);

    let log = env.home.path().join("git.log");
    let path = logging_git(env.home.path(), &log);
    let out = env
        .tack()
        .env("PATH", &path)
        .args(["-p", "hi"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        (stderr(&out), subcommands(&log)),
        (String::new(), Vec::<String>::new())
    );
    assert_eq!(git(&clone, &["rev-parse", "HEAD"]), first);
    assert_eq!(installed(&env, "kit@m")["version"], json!("1.0.0"));

    // By command: the same PATH's git fetches the new commit.
    let out = env
        .tack()
        .env("PATH", &path)
        .args(["plugin", "marketplace", "update", "m"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(subcommands(&log).contains(&"clone".to_owned()), "{logged}");
    assert_eq!(git(&clone, &["rev-parse", "HEAD"]), second);
}

/// The terminal UI refreshes an auto-updating marketplace beside its
/// session and updates the plugin installed from it, saying so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_terminal_ui_auto_updates_a_marketplace_beside_its_session() {
    let env = Env::new(Script::new(Vec::<Reply>::new())).await;
    let market = tempfile::tempdir().unwrap();
    let market = market.path();
    market_m(market, "Say HELLO to $ARGUMENTS.\n");
    for args in [
        vec!["plugin", "marketplace", "add", market.to_str().unwrap()],
        vec!["plugin", "install", "kit@m"],
    ] {
        let out = env.tack().args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    write(
        market.join("kit/.claude-plugin/plugin.json"),
        r#"{"name": "kit", "version": "1.1.0"}"#,
    );
    ask_for_auto_updates(&env, "m");
    env.trust();

    let mut pty = tui(&env, 100, 30);
    pty.wait_for_text("plugin kit@m auto-updated to 1.1.0 (was 1.0.0)", WAIT)
        .unwrap();
    pty.send(keys::CTRL_D).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());
    let install = installed(&env, "kit@m");
    assert_eq!(
        (
            &install["version"],
            install["installPath"]
                .as_str()
                .unwrap()
                .ends_with("/cache/m/kit/1.1.0")
        ),
        (&json!("1.1.0"), true)
    );
}
