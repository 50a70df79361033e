//! End-to-end: `tack plugin` through the real binary. A marketplace is built
//! in the test (a folder, a local git repository used via `file://`, and a
//! `marketplace.json` served by a local HTTP server) with a plugin having
//! every component kind; the files tack writes are compared whole with the
//! shape Claude Code writes (`known_marketplaces.json`,
//! `installed_plugins.json`, `enabledPlugins` in the scope's settings).
//! Each test has its own HOME and CLAUDE_CONFIG_DIR, passed to the child.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::{git, stderr, stdout, write};

pub(crate) const MARKET: &str = "tack-test-market";

/// A home, a Claude config dir, a project and a marketplace folder.
pub(crate) struct Fixture {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
    market: tempfile::TempDir,
}

impl Fixture {
    pub(crate) fn new() -> Fixture {
        let fx = Fixture {
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
            market: tempfile::tempdir().unwrap(),
        };
        build_marketplace(&fx.market_dir());
        fx
    }

    fn claude_dir(&self) -> PathBuf {
        self.home.path().join("claude-config")
    }

    pub(crate) fn cwd(&self) -> PathBuf {
        self.project.path().canonicalize().unwrap()
    }

    pub(crate) fn market_dir(&self) -> PathBuf {
        self.market.path().canonicalize().unwrap()
    }

    pub(crate) fn plugins(&self) -> PathBuf {
        self.claude_dir().join("plugins")
    }

    fn command(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("tack"));
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("TACK_CONFIG_DIR", self.home.path().join(".tack"))
            .env("CLAUDE_CONFIG_DIR", self.claude_dir())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .current_dir(self.cwd())
            .args(args)
            .stdin(std::process::Stdio::null());
        cmd
    }

    pub(crate) fn tack(&self, args: &[&str]) -> std::process::Output {
        self.command(args).output().unwrap()
    }

    /// Runs tack and expects success; its stdout.
    pub(crate) fn ok(&self, args: &[&str]) -> String {
        let out = self.tack(args);
        assert!(out.status.success(), "tack {args:?}: {}", stderr(&out));
        stdout(&out)
    }

    /// Runs tack and expects failure; its stderr.
    pub(crate) fn fails(&self, args: &[&str]) -> String {
        let out = self.tack(args);
        assert!(
            !out.status.success(),
            "tack {args:?} succeeded: {}",
            stdout(&out)
        );
        stderr(&out)
    }

    fn json(&self, path: impl AsRef<Path>) -> Value {
        let text = std::fs::read_to_string(self.claude_dir().join(path)).unwrap();
        redact_times(serde_json::from_str(&text).unwrap())
    }
}

/// Every `lastUpdated` / `installedAt` checked as a time, then replaced.
fn redact_times(mut value: Value) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for (k, item) in map.iter_mut() {
                    if k == "lastUpdated" || k == "installedAt" {
                        let text = item.as_str().unwrap();
                        assert!(text.ends_with('Z') && text.len() == 24, "{text}");
                        humantime::parse_rfc3339(text).unwrap();
                        *item = json!("<time>");
                    } else {
                        walk(item);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut value);
    value
}

/// A plugin with every component kind.
fn build_plugin(root: &Path, name: &str, version: &str) {
    write(
        root.join(".claude-plugin/plugin.json"),
        &json!({"name": name, "version": version, "description": "Every component"}).to_string(),
    );
    write(
        root.join("commands/commit.md"),
        "---\ndescription: Commit\n---\n!`git status`\nCommit the changes.\n",
    );
    write(
        root.join("agents/explorer.md"),
        "---\nname: explorer\ndescription: Explores\n---\nExplore.\n",
    );
    write(
        root.join("skills/greet/SKILL.md"),
        "---\nname: greet\ndescription: Greets\n---\nSay hello.\n",
    );
    write(
        root.join("hooks/hooks.json"),
        r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo ${CLAUDE_PLUGIN_ROOT}"}]}]}}"#,
    );
    write(
        root.join(".mcp.json"),
        r#"{"mcpServers":{"echo":{"command":"${CLAUDE_PLUGIN_ROOT}/server"}}}"#,
    );
    write(
        root.join("output-styles/terse.md"),
        "---\nname: Terse\n---\nBe terse.\n",
    );
}

/// The marketplace: `kit` (every component, strict) and `loose`
/// (`strict: false`, no manifest, its command named by the entry).
fn build_marketplace(root: &Path) {
    write(
        root.join(".claude-plugin/marketplace.json"),
        &json!({
            "name": MARKET,
            "owner": {"name": "Tack tests"},
            "plugins": [
                {"name": "kit", "source": "./plugins/kit", "description": "Every component"},
                {"name": "loose", "source": "./plugins/loose", "strict": false,
                 "version": "0.1.0", "commands": ["./extra/hello.md"]}
            ]
        })
        .to_string(),
    );
    build_plugin(&root.join("plugins/kit"), "kit", "1.2.0");
    write(root.join("plugins/loose/extra/hello.md"), "Say hello.\n");
}

/// Commits everything in `repo`; the new commit.
pub(crate) fn commit_all(repo: &Path, message: &str) -> String {
    git(repo, &["add", "-A"]);
    let who = ["-c", "user.name=t", "-c", "user.email=t@t"];
    git(repo, &[&who[..], &["commit", "-qm", message]].concat());
    git(repo, &["rev-parse", "HEAD"])
}

fn files_under(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                let rel = e
                    .path()
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_directory_marketplace_installs_lists_disables_enables_and_uninstalls_at_user_scope() {
    let fx = Fixture::new();
    let market = fx.market_dir();
    write(
        fx.claude_dir().join("settings.json"),
        r#"{"model": "opus"}"#,
    );
    assert_eq!(
        fx.ok(&["plugin", "marketplace", "add", market.to_str().unwrap()]),
        format!("✔ Successfully added marketplace: {MARKET}\n")
    );
    assert_eq!(
        fx.json("plugins/known_marketplaces.json"),
        json!({MARKET: {
            "source": {"source": "directory", "path": market},
            "installLocation": market,
            "lastUpdated": "<time>"
        }})
    );
    assert_eq!(
        fx.ok(&["plugin", "marketplace", "list"]),
        format!(
            "Configured marketplaces:\n\n  ❯ {MARKET}\n    Source: Directory ({})\n",
            market.display()
        )
    );

    assert_eq!(
        fx.ok(&["plugin", "install", "kit@tack-test-market"]),
        "✔ Successfully installed plugin: kit@tack-test-market (scope: user)\n"
    );
    let cache = fx.plugins().join("cache").join(MARKET).join("kit/1.2.0");
    assert_eq!(
        fx.json("plugins/installed_plugins.json"),
        json!({"version": 2, "plugins": {"kit@tack-test-market": [{
            "scope": "user",
            "installPath": cache,
            "version": "1.2.0",
            "installedAt": "<time>",
            "lastUpdated": "<time>"
        }]}})
    );
    assert_eq!(
        files_under(&cache),
        [
            ".claude-plugin/plugin.json",
            ".mcp.json",
            "agents/explorer.md",
            "commands/commit.md",
            "hooks/hooks.json",
            "output-styles/terse.md",
            "skills/greet/SKILL.md",
        ]
    );
    assert_eq!(
        fx.json("settings.json"),
        json!({"model": "opus", "enabledPlugins": {"kit@tack-test-market": true}})
    );
    let listed = |status: &str| {
        format!(
            "Installed plugins:\n\n  ❯ kit@tack-test-market\n    Version: 1.2.0\n    Scope: user\n    Status: {status}\n"
        )
    };
    assert_eq!(fx.ok(&["plugin", "list"]), listed("✔ enabled"));
    let listed_json: Value = serde_json::from_str(&fx.ok(&["plugin", "list", "--json"])).unwrap();
    assert_eq!(
        listed_json,
        json!([{"id": "kit@tack-test-market", "version": "1.2.0", "scope": "user",
                "enabled": true, "installPath": cache}])
    );
    let mut entries: Vec<String> = std::fs::read_dir(fx.plugins())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    entries.sort();
    assert_eq!(
        entries,
        ["cache", "installed_plugins.json", "known_marketplaces.json"]
    );

    assert_eq!(
        fx.ok(&["plugin", "disable", "kit"]),
        "✔ Successfully disabled plugin: kit@tack-test-market (scope: user)\n"
    );
    assert_eq!(
        fx.json("settings.json"),
        json!({"model": "opus", "enabledPlugins": {"kit@tack-test-market": false}})
    );
    assert_eq!(fx.ok(&["plugin", "list"]), listed("✘ disabled"));
    fx.ok(&["plugin", "enable", "kit@tack-test-market"]);
    assert_eq!(fx.ok(&["plugin", "list"]), listed("✔ enabled"));

    assert_eq!(
        fx.ok(&["plugin", "uninstall", "kit"]),
        "✔ Successfully uninstalled plugin: kit@tack-test-market (scope: user)\n"
    );
    assert_eq!(
        fx.json("plugins/installed_plugins.json"),
        json!({"version": 2, "plugins": {}})
    );
    assert_eq!(fx.json("settings.json"), json!({"model": "opus"}));
    assert!(!cache.exists());

    assert_eq!(
        fx.ok(&["plugin", "marketplace", "remove", MARKET]),
        format!("✔ Successfully removed marketplace: {MARKET}\n")
    );
    assert_eq!(fx.json("plugins/known_marketplaces.json"), json!({}));
    assert!(
        market.join(".claude-plugin/marketplace.json").is_file(),
        "a local folder is never deleted"
    );
}

#[test]
fn a_non_strict_entry_supplies_the_components_and_the_name() {
    let fx = Fixture::new();
    fx.ok(&[
        "plugin",
        "marketplace",
        "add",
        fx.market_dir().to_str().unwrap(),
    ]);
    fx.ok(&["plugin", "install", "loose"]);
    let cache = fx.plugins().join("cache").join(MARKET).join("loose/0.1.0");
    assert_eq!(files_under(&cache), ["extra/hello.md"]);
    assert_eq!(
        fx.ok(&["plugin", "details", "loose"]),
        format!(
            "loose@{MARKET}\n  Marketplace: {MARKET}\n  Installed (user): 0.1.0 at {}\n  Adds to every prompt: ~0 tokens\n  Commands: loose:hello\n",
            cache.display()
        )
    );
}

#[test]
fn a_git_marketplace_via_file_url_clones_records_the_commit_and_updates() {
    let fx = Fixture::new();
    let repo = fx.market_dir();
    git(&repo, &["init", "-q", "-b", "main"]);
    let first = commit_all(&repo, "one");
    let url = format!("file://{}", repo.display());
    fx.ok(&["plugin", "marketplace", "add", &url]);
    let clone = fx.plugins().join("marketplaces").join(MARKET);
    assert_eq!(
        fx.json("plugins/known_marketplaces.json"),
        json!({MARKET: {
            "source": {"source": "git", "url": url},
            "installLocation": clone,
            "lastUpdated": "<time>"
        }})
    );
    assert!(clone.join("plugins/kit/commands/commit.md").is_file());

    fx.ok(&["plugin", "install", "kit@tack-test-market"]);
    let v1 = fx.plugins().join("cache").join(MARKET).join("kit/1.2.0");
    assert_eq!(
        fx.json("plugins/installed_plugins.json"),
        json!({"version": 2, "plugins": {"kit@tack-test-market": [{
            "scope": "user",
            "installPath": v1,
            "version": "1.2.0",
            "installedAt": "<time>",
            "lastUpdated": "<time>",
            "gitCommitSha": first
        }]}})
    );

    build_plugin(&repo.join("plugins/kit"), "kit", "1.3.0");
    let second = commit_all(&repo, "two");
    assert_eq!(
        fx.ok(&["plugin", "marketplace", "update"]),
        format!("✔ Successfully updated marketplace: {MARKET}\n")
    );
    assert_eq!(
        fx.ok(&["plugin", "update", "kit"]),
        "✔ Plugin kit@tack-test-market updated from 1.2.0 to 1.3.0\n"
    );
    let v2 = fx.plugins().join("cache").join(MARKET).join("kit/1.3.0");
    assert_eq!(
        fx.json("plugins/installed_plugins.json")["plugins"]["kit@tack-test-market"][0],
        json!({
            "scope": "user",
            "installPath": v2,
            "version": "1.3.0",
            "installedAt": "<time>",
            "lastUpdated": "<time>",
            "gitCommitSha": second
        })
    );
    assert!(v2.join("skills/greet/SKILL.md").is_file());
    assert!(!v1.exists(), "the old version's files are removed");

    // `plugin update` refreshes the marketplace's clone itself.
    build_plugin(&repo.join("plugins/kit"), "kit", "1.4.0");
    commit_all(&repo, "three");
    assert_eq!(
        fx.ok(&["plugin", "update", "kit@tack-test-market"]),
        "✔ Plugin kit@tack-test-market updated from 1.3.0 to 1.4.0\n"
    );
    assert_eq!(
        fx.ok(&["plugin", "update", "kit"]),
        "✔ Plugin kit@tack-test-market is already at the latest version (1.4.0)\n"
    );
}

/// Serves `body` at every path, once per connection, until the test ends.
fn serve(body: String) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            stream.set_nodelay(true).unwrap();
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    format!("http://{addr}/marketplace.json")
}

#[test]
fn a_marketplace_json_url_is_fetched_and_its_git_plugins_install() {
    let fx = Fixture::new();
    let plugin_repo = fx.market_dir().join("plugins/kit");
    git(&plugin_repo, &["init", "-q", "-b", "main"]);
    let sha = commit_all(&plugin_repo, "kit");
    let plugin_url = format!("file://{}", plugin_repo.display());
    let url = serve(
        json!({
            "name": "remote-market",
            "owner": {"name": "Tack tests"},
            "plugins": [
                {"name": "kit", "source": {"source": "url", "url": plugin_url}},
                {"name": "local-only", "source": "./plugins/kit"}
            ]
        })
        .to_string(),
    );
    fx.ok(&["plugin", "marketplace", "add", &url]);
    let location = fx.plugins().join("marketplaces/remote-market");
    assert_eq!(
        fx.json("plugins/known_marketplaces.json"),
        json!({"remote-market": {
            "source": {"source": "url", "url": url},
            "installLocation": location,
            "lastUpdated": "<time>"
        }})
    );
    fx.ok(&["plugin", "install", "kit@remote-market", "--scope", "user"]);
    let cache = fx.plugins().join("cache/remote-market/kit/1.2.0");
    assert_eq!(
        fx.json("plugins/installed_plugins.json"),
        json!({"version": 2, "plugins": {"kit@remote-market": [{
            "scope": "user",
            "installPath": cache,
            "version": "1.2.0",
            "installedAt": "<time>",
            "lastUpdated": "<time>",
            "gitCommitSha": sha
        }]}})
    );
    assert!(!cache.join(".git").exists());
    assert!(
        fx.fails(&["plugin", "install", "local-only@remote-market"])
            .contains("a marketplace added by URL cannot provide"),
    );
}

#[test]
fn project_scope_writes_the_project_settings_and_counts_only_once_trusted() {
    let fx = Fixture::new();
    fx.ok(&[
        "plugin",
        "marketplace",
        "add",
        fx.market_dir().to_str().unwrap(),
    ]);
    assert_eq!(
        fx.ok(&["plugin", "install", "kit", "--scope", "project"]),
        "✔ Successfully installed plugin: kit@tack-test-market (scope: project)\n"
    );
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(fx.cwd().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        settings,
        json!({"enabledPlugins": {"kit@tack-test-market": true}})
    );
    let entry = &fx.json("plugins/installed_plugins.json")["plugins"]["kit@tack-test-market"][0];
    assert_eq!(
        (&entry["scope"], &entry["projectPath"]),
        (&json!("project"), &json!(fx.cwd()))
    );
    // Not trusted: the project's own settings do not turn the plugin on.
    assert!(fx.ok(&["plugin", "list"]).contains("Status: ✘ disabled"));
    fx.ok(&["trust"]);
    assert!(fx.ok(&["plugin", "list"]).contains("Status: ✔ enabled"));
    fx.ok(&["plugin", "uninstall", "kit", "--scope", "project"]);
    assert_eq!(
        std::fs::read_to_string(fx.cwd().join(".claude/settings.json")).unwrap(),
        "{}\n"
    );
}

#[test]
fn extra_known_marketplaces_install_from_user_settings_but_not_from_an_untrusted_project() {
    let fx = Fixture::new();
    let declared = json!({"extraKnownMarketplaces": {MARKET: {
        "source": {"source": "directory", "path": fx.market_dir()}
    }}});
    write(
        fx.cwd().join(".claude/settings.json"),
        &declared.to_string(),
    );
    assert!(
        fx.fails(&["plugin", "install", "kit@tack-test-market"])
            .contains("marketplace `tack-test-market` not found")
    );
    write(fx.claude_dir().join("settings.json"), &declared.to_string());
    fx.ok(&["plugin", "install", "kit@tack-test-market"]);
    assert_eq!(
        fx.json("plugins/known_marketplaces.json")[MARKET]["installLocation"],
        json!(fx.market_dir())
    );
}

#[test]
fn strict_known_marketplaces_refuses_other_sources() {
    let fx = Fixture::new();
    write(
        fx.claude_dir().join("settings.json"),
        &json!({"strictKnownMarketplaces": [{"source": "github", "repo": "acme/plugins"}]})
            .to_string(),
    );
    let err = fx.fails(&[
        "plugin",
        "marketplace",
        "add",
        fx.market_dir().to_str().unwrap(),
    ]);
    assert!(err.contains("is not in strictKnownMarketplaces"), "{err}");
    assert!(!fx.plugins().join("known_marketplaces.json").exists());
}

#[test]
fn validate_names_each_problem_and_fails() {
    let fx = Fixture::new();
    let market = fx.market_dir();
    assert_eq!(
        fx.ok(&["plugin", "validate", market.to_str().unwrap()]),
        format!(
            "Validating marketplace manifest: {}\n\n✔ Validation passed\n",
            market.join(".claude-plugin/marketplace.json").display()
        )
    );
    let kit = market.join("plugins/kit");
    let manifest = kit.join(".claude-plugin/plugin.json");
    let check = |text: &str| {
        write(&manifest, text);
        let out = fx.tack(&["plugin", "validate", kit.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1));
        stdout(&out)
    };
    let failed = |error: String| {
        format!(
            "Validating plugin manifest: {}\n\n✘ Found 1 error:\n\n  ❯ {error}\n\n✘ Validation failed\n",
            manifest.display()
        )
    };
    let m = manifest.display();
    assert_eq!(
        check("{\"name\": "),
        failed(format!(
            "{m}: not valid JSON: EOF while parsing a value at line 1 column 9"
        ))
    );
    assert_eq!(
        check("{\"version\": \"1\"}"),
        failed(format!("{m}: `name` is required"))
    );
    assert_eq!(
        check(r#"{"name": "kit", "commands": "./missing"}"#),
        failed(format!("{m}: `./missing` does not exist"))
    );
    assert_eq!(
        check(r#"{"name": "kit", "agents": ["./../../etc"]}"#),
        failed(format!("{m}: `./../../etc` leaves the plugin's folder"))
    );

    write(&manifest, r#"{"name": "kit"}"#);
    let file = market.join(".claude-plugin/marketplace.json");
    write(
        &file,
        &json!({"name": MARKET, "owner": {"name": "t"}, "plugins": [
            {"name": "kit", "source": "./plugins/kit"},
            {"name": "kit", "source": "./plugins/loose"},
            {"name": "away", "source": "./../elsewhere"}
        ]})
        .to_string(),
    );
    let out = fx.tack(&["plugin", "validate", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let f = file.display();
    assert_eq!(
        stdout(&out),
        format!(
            "Validating marketplace manifest: {f}\n\n✘ Found 2 errors:\n\n  \
             ❯ {f}: two plugins are named `kit`\n  \
             ❯ {f}: plugin source `./../elsewhere` leaves the marketplace's folder\n\n\
             ✘ Validation failed\n"
        )
    );
}

#[test]
fn a_plugin_source_that_leaves_the_marketplace_or_a_symlink_out_is_not_copied() {
    let fx = Fixture::new();
    let market = fx.market_dir();
    let secret = fx.home.path().join("secret.txt");
    std::fs::write(&secret, "private").unwrap();
    std::os::unix::fs::symlink(&secret, market.join("plugins/kit/commands/leak.md")).unwrap();
    std::os::unix::fs::symlink("commit.md", market.join("plugins/kit/commands/alias.md")).unwrap();
    write(
        market.join(".claude-plugin/marketplace.json"),
        &json!({"name": MARKET, "owner": {"name": "t"}, "plugins": [
            {"name": "kit", "source": "./plugins/kit"},
            {"name": "away", "source": "./../"}
        ]})
        .to_string(),
    );
    fx.ok(&["plugin", "marketplace", "add", market.to_str().unwrap()]);
    let err = fx.fails(&["plugin", "install", "away"]);
    assert!(err.contains("leaves the marketplace's folder"), "{err}");
    fx.ok(&["plugin", "install", "kit"]);
    let commands = fx
        .plugins()
        .join("cache")
        .join(MARKET)
        .join("kit/1.2.0/commands");
    assert_eq!(files_under(&commands), ["alias.md", "commit.md"]);
}

#[test]
fn git_runs_no_hooks_and_no_ext_transport_from_anything_it_is_given() {
    let fx = Fixture::new();
    let marker = fx.home.path().join("ran");
    // The user's own git config names a hooks folder: a clone would run its
    // post-checkout hook, but tack's git runs none.
    let hooks = fx.home.path().join("hooks");
    write(
        hooks.join("post-checkout"),
        &format!("#!/bin/sh\ntouch {}\n", marker.display()),
    );
    std::fs::set_permissions(
        hooks.join("post-checkout"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    write(
        fx.home.path().join(".gitconfig"),
        &format!("[core]\n\thooksPath = {}\n", hooks.display()),
    );
    let repo = fx.market_dir();
    git(&repo, &["init", "-q", "-b", "main"]);
    commit_all(&repo, "one");
    let market = repo.join(".claude-plugin/marketplace.json");
    let ext = format!("ext::sh -c touch% {}", marker.display());
    write(
        &market,
        &json!({"name": MARKET, "owner": {"name": "t"}, "plugins": [
            {"name": "kit", "source": "./plugins/kit"},
            {"name": "evil", "source": {"source": "url", "url": ext}}
        ]})
        .to_string(),
    );
    commit_all(&repo, "two");
    fx.ok(&[
        "plugin",
        "marketplace",
        "add",
        &format!("file://{}", repo.display()),
    ]);
    fx.ok(&["plugin", "install", "kit"]);
    let err = fx.fails(&["plugin", "install", "evil"]);
    assert!(err.contains(&format!("git clone {ext} failed")), "{err}");
    assert!(!marker.exists(), "a hook or the ext:: transport ran");
}

#[test]
fn a_reserved_marketplace_name_is_refused_from_anywhere_but_anthropic() {
    let fx = Fixture::new();
    let market = fx.market_dir();
    write(
        market.join(".claude-plugin/marketplace.json"),
        &json!({"name": "claude-plugins-official", "owner": {"name": "t"}, "plugins": []})
            .to_string(),
    );
    let err = fx.fails(&["plugin", "marketplace", "add", market.to_str().unwrap()]);
    assert!(
        err.contains("is reserved for Anthropic's own marketplaces"),
        "{err}"
    );
}

#[test]
fn a_marketplace_added_for_the_project_is_declared_in_its_settings_and_listed_once_trusted() {
    let fx = Fixture::new();
    let market = fx.market_dir();
    fx.ok(&[
        "plugin",
        "marketplace",
        "add",
        market.to_str().unwrap(),
        "--scope",
        "project",
    ]);
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(fx.cwd().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        settings,
        json!({"extraKnownMarketplaces": {MARKET: {
            "source": {"source": "directory", "path": market}
        }}})
    );
    fx.ok(&["plugin", "marketplace", "remove", MARKET]);
    assert_eq!(
        fx.ok(&["plugin", "marketplace", "list"]),
        "No marketplaces configured\n"
    );
    fx.ok(&["trust"]);
    assert_eq!(
        fx.ok(&["plugin", "marketplace", "list"]),
        format!(
            "Configured marketplaces:\n\n  ❯ {MARKET}\n    Source: Directory ({})\n    \
             Declared in settings; added on first install\n",
            market.display()
        )
    );
}

/// Many `tack plugin` processes changing the state at once: each waits for
/// the plugins folder's lock, so no write loses another's entry.
#[test]
fn concurrent_installs_and_marketplace_adds_lose_no_entry() {
    const N: usize = 8;
    let fx = Fixture::new();
    let many = tempfile::tempdir().unwrap();
    let plugins: Vec<Value> = (0..N)
        .map(|i| json!({"name": format!("p{i}"), "source": format!("./p{i}")}))
        .collect();
    for (i, market) in ["many", "more0", "more1", "more2", "more3"]
        .iter()
        .enumerate()
    {
        let dir = many.path().join(market);
        write(
            dir.join(".claude-plugin/marketplace.json"),
            &json!({"name": market, "owner": {"name": "t"}, "plugins": if i == 0 { plugins.clone() } else { vec![] }})
                .to_string(),
        );
    }
    for i in 0..N {
        write(
            many.path()
                .join(format!("many/p{i}/.claude-plugin/plugin.json")),
            &json!({"name": format!("p{i}"), "version": "1.0.0"}).to_string(),
        );
    }
    fx.ok(&[
        "plugin",
        "marketplace",
        "add",
        many.path().join("many").to_str().unwrap(),
    ]);

    let dirs: Vec<String> = (0..4)
        .map(|i| many.path().join(format!("more{i}")).display().to_string())
        .collect();
    let ids: Vec<String> = (0..N).map(|i| format!("p{i}@many")).collect();
    let children: Vec<std::process::Child> = ids
        .iter()
        .map(|id| vec!["plugin", "install", id.as_str()])
        .chain(
            dirs.iter()
                .map(|d| vec!["plugin", "marketplace", "add", d.as_str()]),
        )
        .map(|args| {
            fx.command(&args)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }

    let read = |path: PathBuf| -> Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let installed = read(fx.plugins().join("installed_plugins.json"));
    let mut names: Vec<&String> = installed["plugins"].as_object().unwrap().keys().collect();
    names.sort();
    assert_eq!(names, ids.iter().collect::<Vec<_>>());
    let known = read(fx.plugins().join("known_marketplaces.json"));
    let mut markets: Vec<&String> = known.as_object().unwrap().keys().collect();
    markets.sort();
    assert_eq!(markets, ["many", "more0", "more1", "more2", "more3"]);
    let settings = read(fx.claude_dir().join("settings.json"));
    let enabled: Value = ids
        .iter()
        .map(|id| (id.clone(), json!(true)))
        .collect::<serde_json::Map<_, _>>()
        .into();
    assert_eq!(settings["enabledPlugins"], enabled);
}
