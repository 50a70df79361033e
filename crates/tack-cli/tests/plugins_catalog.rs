//! What the added marketplaces offer, through the real binary: `strict:
//! false` entries with component lists load only those (the init message's
//! `skills` and the reminder the scripted server receives), `plugin list
//! --available` and `plugin details` before and after install, and the
//! errors of `marketplace add` and `validate` (one check for both).

use pretty_assertions::assert_eq;
use serde_json::json;
use tack_testkit::{Reply, Script};

use crate::common::{Env, STREAM_JSON, last_texts, lines, stderr, stdout, write};
use crate::plugins_cli::{Fixture, MARKET};

/// A marketplace `ex` whose one entry is `strict: false`, takes the
/// marketplace's root as its source and lists two of its three skills (as
/// Anthropic's `example-skills` does).
fn skills_market(root: &std::path::Path) {
    write(
        root.join(".claude-plugin/marketplace.json"),
        &json!({"name": "ex", "owner": {"name": "t"}, "plugins": [
            {"name": "picked", "source": "./", "strict": false, "version": "1.0.0",
             "description": "Two of three skills",
             "skills": ["./skills/alpha", "./skills/beta"]}
        ]})
        .to_string(),
    );
    for (name, what) in [("alpha", "First"), ("beta", "Second"), ("gamma", "Third")] {
        write(
            root.join(format!("skills/{name}/SKILL.md")),
            &format!("---\nname: {name}\ndescription: {what} skill\n---\nDo {name}.\n"),
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_non_strict_entry_with_a_skills_list_loads_only_those_skills() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let market = tempfile::tempdir().unwrap();
    skills_market(market.path());
    let run = |args: &[&str]| {
        let out = env.tack().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    run(&[
        "plugin",
        "marketplace",
        "add",
        market.path().to_str().unwrap(),
    ]);
    assert_eq!(
        run(&["plugin", "details", "picked"]),
        "picked@ex\n  Description: Two of three skills\n  Marketplace: ex\n  \
         Not installed (`tack plugin install picked@ex`)\n  Adds to every prompt: ~18 tokens\n  \
         Skills: picked:alpha (~9 tokens), picked:beta (~9 tokens)\n"
    );
    run(&["plugin", "install", "picked@ex"]);
    let input = json!({"type": "user", "session_id": "", "parent_tool_use_id": null,
        "message": {"role": "user", "content": "hi"}});
    let out = env
        .tack()
        .args(STREAM_JSON)
        .write_stdin(format!("{input}\n"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let records = lines(&out.stdout);
    let init = records.iter().find(|r| r["subtype"] == "init").unwrap();
    assert_eq!(init["skills"], json!(["picked:alpha", "picked:beta"]));
    let prompt = last_texts(&env.request_bodies()[0]);
    let reminder = prompt
        .iter()
        .find(|t| t.contains("available for use with the Skill tool"))
        .unwrap();
    assert_eq!(
        reminder,
        "<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n\
         - picked:alpha: First skill\n- picked:beta: Second skill\n</system-reminder>"
    );
}

#[test]
fn list_available_and_details_show_plugins_before_they_are_installed() {
    let fx = Fixture::new();
    let market = fx.market_dir();
    assert_eq!(
        fx.ok(&["plugin", "list", "--available"]),
        "No plugins available: add a marketplace with `tack plugin marketplace add <source>`.\n"
    );
    fx.ok(&["plugin", "marketplace", "add", market.to_str().unwrap()]);
    let listing = format!(
        "Available plugins:\n\n  ❯ kit@{MARKET}\n    Every component\n    Status: not installed (`tack plugin install kit@{MARKET}`)\n\n  \
         ❯ loose@{MARKET}\n    Version: 0.1.0\n    Status: not installed (`tack plugin install loose@{MARKET}`)\n"
    );
    assert_eq!(fx.ok(&["plugin", "list", "--available"]), listing);
    let details = |installed: &str| {
        format!(
            "kit@{MARKET}\n  Description: Every component\n  Marketplace: {MARKET}\n{installed}  \
             Adds to every prompt: ~16 tokens\n  Skills: kit:greet (~7 tokens)\n  Commands: kit:commit\n  \
             Agents: kit:explorer (~9 tokens)\n  Output styles: kit:terse\n  Hooks: SessionStart\n  \
             MCP servers: plugin:kit:echo\n"
        )
    };
    assert_eq!(
        fx.ok(&["plugin", "details", "kit"]),
        details(&format!(
            "  Not installed (`tack plugin install kit@{MARKET}`)\n"
        ))
    );
    fx.ok(&["plugin", "install", "kit"]);
    let cache = fx.plugins().join("cache").join(MARKET).join("kit/1.2.0");
    assert_eq!(
        fx.ok(&["plugin", "details", &format!("kit@{MARKET}")]),
        details(&format!(
            "  Installed (user): 1.2.0 at {}\n",
            cache.display()
        ))
    );
    let json: serde_json::Value =
        serde_json::from_str(&fx.ok(&["plugin", "list", "--available", "--json"])).unwrap();
    assert_eq!(
        json,
        json!([
            {"id": format!("kit@{MARKET}"), "name": "kit", "marketplace": MARKET,
             "description": "Every component", "version": null, "installed": true, "enabled": true},
            {"id": format!("loose@{MARKET}"), "name": "loose", "marketplace": MARKET,
             "description": null, "version": "0.1.0", "installed": false, "enabled": false}
        ])
    );
    assert_eq!(
        fx.fails(&["plugin", "details", "ghost"]),
        "Error: plugin `ghost` not found: it is neither installed nor offered by an added \
         marketplace (see `tack plugin list --available`)\n"
    );
}

#[test]
fn a_reserved_name_fails_validate_as_add_refuses_it_and_says_what_to_do() {
    let fx = Fixture::new();
    let market = fx.market_dir();
    let file = market.join(".claude-plugin/marketplace.json");
    write(
        &file,
        &json!({"name": "claude-plugins-official", "owner": {"name": "t"}, "plugins": []})
            .to_string(),
    );
    let why = format!(
        "{}: the marketplace name `claude-plugins-official` is reserved for Anthropic's own \
         marketplaces; rename it (its `name` field) to one of your own. Reserved names: {}",
        file.display(),
        tack_plugins::RESERVED_NAMES.join(", ")
    );
    assert_eq!(
        fx.fails(&["plugin", "marketplace", "add", market.to_str().unwrap()]),
        format!("Error: {why}\n")
    );
    let out = fx.tack(&["plugin", "validate", market.to_str().unwrap()]);
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (
            Some(1),
            format!(
                "Validating marketplace manifest: {}\n\n✘ Found 1 error:\n\n  ❯ {why}\n\n✘ Validation failed\n",
                file.display()
            )
        )
    );
}

#[test]
fn a_folder_that_is_not_a_marketplace_says_where_it_looked() {
    let fx = Fixture::new();
    let empty = tempfile::tempdir().unwrap();
    let dir = empty.path().canonicalize().unwrap();
    assert_eq!(
        fx.fails(&["plugin", "marketplace", "add", dir.to_str().unwrap()]),
        format!(
            "Error: {} is not a marketplace: there is no .claude-plugin/marketplace.json\n",
            dir.display()
        )
    );
}
