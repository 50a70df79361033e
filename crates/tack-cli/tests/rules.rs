//! `.claude/rules/` end to end: a rule without `paths` is memory like
//! CLAUDE.md (at its place in the first prompt's context, frontmatter left
//! out); a rule with `paths` reaches the model only once a tool call touches
//! a matching file, after that message's tool results, with its imports,
//! once a session; the user's rules too.

use crate::common;

use common::{Env, stderr, write};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// The `# claudeMd` section of the first request's user context.
fn claude_md(body: &Value) -> String {
    let first = body["messages"][0]["content"][0]["text"].as_str().unwrap();
    let start = first.find("# claudeMd\n").unwrap();
    let end = first.find("\n\n# currentDate").unwrap();
    first[start..end].to_owned()
}

/// The blocks after the tool results of a request's last message.
fn attachments(body: &Value) -> Vec<Value> {
    let last = body["messages"].as_array().unwrap().last().unwrap();
    let blocks = last["content"].as_array().unwrap();
    assert_eq!(blocks[0]["type"], "tool_result", "{last}");
    blocks[1..]
        .iter()
        .map(|b| {
            let mut b = b.clone();
            b.as_object_mut().unwrap().remove("cache_control");
            b
        })
        .collect()
}

fn reminder(text: String) -> Value {
    json!({"type": "text", "text": format!("<system-reminder>\n{text}\n</system-reminder>")})
}

#[tokio::test(flavor = "multi_thread")]
async fn path_rules_load_when_a_matching_file_is_read_and_others_at_the_start() {
    let env = Env::new(Script::new([
        Reply::tool_use("t1", "Read", json!({"file_path": "src/api/v1.rs"})),
        Reply::tool_use("t2", "Read", json!({"file_path": "src/api/v1.rs"})),
        Reply::tool_use("t3", "Read", json!({"file_path": "notes.txt"})),
        Reply::text("done"),
    ]))
    .await;
    let cwd = env.cwd();
    let home = env.home.path().canonicalize().unwrap();
    write(cwd.join("CLAUDE.md"), "PROJECT-MEMORY\n");
    write(cwd.join(".claude/rules/style.md"), "STYLE-RULE\n");
    write(
        cwd.join(".claude/rules/frontend/react.md"),
        "---\ndescription: React\n---\nREACT-RULE\n",
    );
    write(
        cwd.join(".claude/rules/api.md"),
        "---\npaths:\n  - \"src/api/**/*.rs\"\n---\nAPI-RULE, see @../../docs/api-notes.md\n",
    );
    write(cwd.join("docs/api-notes.md"), "API-NOTES\n");
    write(
        cwd.join(".claude/rules/tests.md"),
        "---\npaths: \"*.test.ts\"\n---\nTESTS-RULE\n",
    );
    write(cwd.join("CLAUDE.local.md"), "LOCAL-MEMORY\n");
    write(home.join(".claude/rules/mine.md"), "USER-RULE\n");
    write(
        home.join(".claude/rules/rust.md"),
        "---\npaths: \"**/*.rs\"\n---\nUSER-RUST-RULE\n",
    );
    write(cwd.join("src/api/v1.rs"), "fn v1() {}\n");
    write(cwd.join("notes.txt"), "notes\n");

    let out = env.tack().args(["-p", "look at the api"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");

    let bodies = env.request_bodies();
    let (c, h) = (cwd.display(), home.display());
    let project = "project instructions, checked into the codebase";
    assert_eq!(
        claude_md(&bodies[0]),
        format!(
            "# claudeMd\nCodebase and user instructions are shown below. Be sure to adhere to \
             these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and \
             you MUST follow them exactly as written.\n\n\
             Contents of {h}/.claude/rules/mine.md (user's private global instructions for all projects):\n\nUSER-RULE\n\n\
             Contents of {c}/CLAUDE.md ({project}):\n\nPROJECT-MEMORY\n\n\
             Contents of {c}/.claude/rules/style.md ({project}):\n\nSTYLE-RULE\n\n\
             Contents of {c}/.claude/rules/frontend/react.md ({project}):\n\nREACT-RULE\n\n\
             Contents of {c}/CLAUDE.local.md (user's private project instructions, not checked in):\n\nLOCAL-MEMORY"
        )
    );
    assert_eq!(
        attachments(&bodies[1]),
        vec![
            reminder(format!(
                "Contents of {h}/.claude/rules/rust.md:\n\nUSER-RUST-RULE"
            )),
            reminder(format!(
                "Contents of {c}/.claude/rules/api.md:\n\nAPI-RULE, see @../../docs/api-notes.md"
            )),
            reminder(format!("Contents of {c}/docs/api-notes.md:\n\nAPI-NOTES")),
        ]
    );
    // Loaded once: the second read of the file and a file no rule matches
    // bring nothing.
    assert_eq!(attachments(&bodies[2]), Vec::<Value>::new());
    assert_eq!(attachments(&bodies[3]), Vec::<Value>::new());
    let sent = serde_json::to_string(&bodies).unwrap();
    assert!(!sent.contains("TESTS-RULE"), "{sent}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_folder_below_the_cwd_loads_its_memory_and_rules_when_a_file_in_it_is_read() {
    let env = Env::new(Script::new([
        Reply::tool_use(
            "t1",
            "Read",
            json!({"file_path": "packages/web/src/app.tsx"}),
        ),
        Reply::tool_use(
            "t2",
            "Read",
            json!({"file_path": "packages/web/src/app.tsx"}),
        ),
        Reply::text("done"),
    ]))
    .await;
    let cwd = env.cwd();
    let web = cwd.join("packages/web");
    write(web.join("CLAUDE.md"), "WEB-MEMORY\n");
    write(web.join(".claude/rules/ui.md"), "WEB-UI-RULE\n");
    write(
        web.join(".claude/rules/tsx.md"),
        "---\npaths: \"src/**/*.tsx\"\n---\nWEB-TSX-RULE\n",
    );
    write(
        web.join(".claude/rules/css.md"),
        "---\npaths: \"*.css\"\n---\nWEB-CSS-RULE\n",
    );
    write(web.join("src/app.tsx"), "export {}\n");

    let out = env.tack().args(["-p", "look at the app"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let bodies = env.request_bodies();
    let w = web.display();
    assert_eq!(
        attachments(&bodies[1]),
        vec![
            reminder(format!("Contents of {w}/CLAUDE.md:\n\nWEB-MEMORY")),
            reminder(format!(
                "Contents of {w}/.claude/rules/ui.md:\n\nWEB-UI-RULE"
            )),
            reminder(format!(
                "Contents of {w}/.claude/rules/tsx.md:\n\nWEB-TSX-RULE"
            )),
        ]
    );
    assert_eq!(attachments(&bodies[2]), Vec::<Value>::new());
    let first = serde_json::to_string(&bodies[0]).unwrap();
    assert!(!first.contains("WEB-"), "{first}");
    let sent = serde_json::to_string(&bodies).unwrap();
    assert!(!sent.contains("WEB-CSS-RULE"), "{sent}");
}

#[tokio::test(flavor = "multi_thread")]
async fn after_clear_a_rule_loads_again() {
    let env = Env::new(Script::new([
        Reply::tool_use("t1", "Read", json!({"file_path": "src/lib.rs"})),
        Reply::text("ok"),
        Reply::tool_use("t2", "Read", json!({"file_path": "src/lib.rs"})),
        Reply::text("ok again"),
    ]))
    .await;
    let cwd = env.cwd();
    write(
        cwd.join(".claude/rules/rust.md"),
        "---\npaths: \"**/*.rs\"\n---\nRUST-RULE\n",
    );
    write(cwd.join("src/lib.rs"), "pub fn f() {}\n");
    let input = ["read it", "/clear", "read it again"]
        .map(|text| format!("{}\n", common::user_line(text)))
        .concat();
    let out = env
        .tack()
        .args(common::STREAM_JSON)
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 4);
    let rule = vec![reminder(format!(
        "Contents of {}/.claude/rules/rust.md:\n\nRUST-RULE",
        cwd.display()
    ))];
    assert_eq!(
        (attachments(&bodies[1]), attachments(&bodies[3])),
        (rule.clone(), rule)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_path_rule_loaded_by_a_read_fires_instructions_loaded_with_why() {
    let env = Env::new(Script::new([
        Reply::tool_use("t1", "Read", json!({"file_path": "src/api/v1.rs"})),
        Reply::text("done"),
    ]))
    .await;
    let cwd = env.cwd();
    std::fs::create_dir_all(cwd.join(".git")).unwrap();
    write(
        cwd.join(".claude/rules/api.md"),
        "---\npaths:\n  - \"src/api/**/*.rs\"\n---\nAPI-RULE, see @../../docs/api-notes.md\n",
    );
    write(cwd.join("docs/api-notes.md"), "API-NOTES\n");
    write(cwd.join("src/api/v1.rs"), "fn v1() {}\n");
    let log = "(cat; echo) >> \"$CLAUDE_PROJECT_DIR/loaded.jsonl\"";
    write(
        cwd.join(".claude/settings.json"),
        &json!({"hooks": {"InstructionsLoaded": [{"matcher": "path_glob_match|include",
            "hooks": [{"type": "command", "command": log}]}]}})
        .to_string(),
    );
    env.trust();
    let out = env.tack().args(["-p", "read it"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(cwd.join("loaded.jsonl")).unwrap_or_default();
    let loaded: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            for key in ["session_id", "transcript_path", "permission_mode", "cwd"] {
                v.as_object_mut().unwrap().remove(key);
            }
            v
        })
        .collect();
    let (rule, notes) = (
        cwd.join(".claude/rules/api.md"),
        cwd.join("docs/api-notes.md"),
    );
    let trigger = cwd.join("src/api/v1.rs");
    assert_eq!(
        loaded,
        vec![
            json!({"hook_event_name": "InstructionsLoaded", "file_path": rule,
                "memory_type": "Project", "load_reason": "path_glob_match",
                "globs": ["src/api/**/*.rs"], "trigger_file_path": trigger}),
            json!({"hook_event_name": "InstructionsLoaded", "file_path": notes,
                "memory_type": "Project", "load_reason": "include",
                "trigger_file_path": trigger, "parent_file_path": rule}),
        ]
    );
}
