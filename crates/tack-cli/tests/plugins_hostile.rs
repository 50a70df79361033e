//! End-to-end: `tack plugin` against hostile marketplaces (issue 35). Names
//! and descriptions carrying terminal escape sequences are shown, not obeyed:
//! `Error:` lines, `tack plugin details` and `tack plugin validate` print each
//! control character as its visible picture (ESC as `␛`). A file too large is
//! refused with its reason said once.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::{stderr, stdout, write};

/// A home for tack and Claude Code, a project, and marketplace folders.
struct Fixture {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture {
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
        }
    }

    /// A marketplace folder named `dir` (under the home) listing plugin
    /// `plugin` (description `description`), whose own manifest says `plugin`.
    fn market(&self, dir: &str, name: &str, plugin: &str, description: &str) -> PathBuf {
        let root = self.home.path().join(dir);
        let manifest = json!({"name": name, "owner": {"name": "o"}, "plugins": [
            {"name": plugin, "source": "./plugins/p", "description": description}]});
        write(
            root.join(".claude-plugin/marketplace.json"),
            &manifest.to_string(),
        );
        write(
            root.join("plugins/p/.claude-plugin/plugin.json"),
            &json!({"name": plugin}).to_string(),
        );
        root
    }

    fn tack(&self, args: &[&str]) -> std::process::Output {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("tack"))
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("TACK_CONFIG_DIR", self.home.path().join(".tack"))
            .env("CLAUDE_CONFIG_DIR", self.home.path().join("claude"))
            .current_dir(self.project.path())
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    }
}

fn text(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn a_marketplace_name_with_escapes_is_shown_not_obeyed() {
    let fx = Fixture::new();
    let market = fx.market("m", "mk\x1b[31mred", "kit", "d");
    let manifest = market.join(".claude-plugin/marketplace.json");
    let why = format!(
        "{}: marketplace name `mk␛[31mred`: use letters, digits, `-`, `_` and `.`",
        manifest.display()
    );
    let added = fx.tack(&["plugin", "marketplace", "add", text(&market)]);
    assert_eq!(
        (added.status.success(), stderr(&added)),
        (false, format!("Error: {why}\n"))
    );
    let validated = fx.tack(&["plugin", "validate", text(&market)]);
    assert_eq!(
        stdout(&validated),
        format!(
            "Validating marketplace manifest: {}\n\n✘ Found 1 error:\n\n  ❯ {why}\n\n✘ Validation failed\n",
            manifest.display()
        )
    );
}

#[test]
fn a_plugin_name_with_escapes_is_shown_not_obeyed() {
    let fx = Fixture::new();
    let market = fx.market("m", "mk", "kit\x1b[31m", "d");
    let plugin = market.join("plugins/p");
    let validated = fx.tack(&["plugin", "validate", text(&plugin)]);
    let manifest = plugin.join(".claude-plugin/plugin.json");
    assert_eq!(
        stdout(&validated),
        format!(
            "Validating plugin manifest: {0}\n\n✘ Found 1 error:\n\n  ❯ {0}: plugin name `kit␛[31m`: \
             use letters, digits, `-`, `_` and `.`, not starting with `.`\n\n✘ Validation failed\n",
            manifest.display()
        )
    );
    let added = fx.tack(&["plugin", "marketplace", "add", text(&market)]);
    let unknown = fx.tack(&["plugin", "install", "no\x1b[31m@mk\x07"]);
    assert_eq!(
        [stderr(&added), stderr(&unknown)],
        [
            format!(
                "Error: {}: plugins[0]: plugin name `kit␛[31m`: use letters, digits, `-`, `_` and `.`\n",
                market.join(".claude-plugin/marketplace.json").display()
            ),
            "Error: marketplace `mk␇` not found: add it with `tack plugin marketplace add <source>`\n"
                .to_owned(),
        ]
    );
}

#[test]
fn plugin_details_show_a_description_with_escapes() {
    let fx = Fixture::new();
    let market = fx.market("m", "mk", "kit", "desc \x1b]0;title\x07 here\u{9b}2J");
    let added = fx.tack(&["plugin", "marketplace", "add", text(&market)]);
    assert!(added.status.success(), "{}", stderr(&added));
    let details = fx.tack(&["plugin", "details", "kit@mk"]);
    let missing = fx.tack(&["plugin", "install", "no\x1b[31m@mk"]);
    assert_eq!(
        [stdout(&details), stderr(&missing)],
        [
            "kit@mk\n  Description: desc ␛]0;title␇ here<U+009B>2J\n  Marketplace: mk\n  Not installed (`tack plugin install kit@mk`)\n  Components: none\n",
            "Error: plugin `no␛[31m` not found in marketplace `mk`\n"
        ]
    );
}

#[test]
fn a_marketplace_file_too_large_is_refused_with_the_reason_said_once() {
    let fx = Fixture::new();
    let market = fx.market("m", "mk", "kit", &"x".repeat(9 << 20));
    let added = fx.tack(&["plugin", "marketplace", "add", text(&market)]);
    assert_eq!(
        stderr(&added),
        format!(
            "Error: cannot read {}: it is larger than 8 MB\n",
            market.join(".claude-plugin/marketplace.json").display()
        )
    );
}
