//! Output styles end to end: `outputStyle` picks a built-in or a style file,
//! the system prompt of the request changes as Claude Code's does (the
//! style's section last, "be concise" gone, the coding section kept only with
//! `keep-coding-instructions`), every prompt carries the reminder, a
//! project's styles need trust, and `system/init` / `initialize` name them.

use crate::common;

use common::{
    Env, STREAM_JSON, initialize_then, last_texts, lines, stderr, stdout, user_line, write,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// The request's system prompt, its blocks joined.
fn system(body: &Value) -> String {
    body["system"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n\n")
}

const CONCISE: &str = "- Be concise and direct";
const CODING: &str = "\n# Doing the task\n";

fn reminder(name: &str) -> String {
    format!(
        "<system-reminder>\n{name} output style is active. Remember to follow the specific \
         guidelines for this style.\n</system-reminder>"
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_builtin_style_from_settings_changes_the_prompt_and_reminds_every_turn() {
    let env = Env::new(Script::new([Reply::text("one"), Reply::text("two")])).await;
    write(
        env.home.path().join(".claude/settings.json"),
        r#"{"outputStyle": "explanatory"}"#,
    );
    let input = format!("{}\n{}\n", user_line("first"), user_line("second"));
    let out = env
        .tack()
        .args(STREAM_JSON)
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let records = lines(&out.stdout);
    let init = records.iter().find(|r| r["subtype"] == "init").unwrap();
    assert_eq!(init["output_style"], "Explanatory");

    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 2);
    for body in &bodies {
        let system = system(body);
        assert!(system.contains(CODING), "{system}");
        assert!(!system.contains(CONCISE), "{system}");
        let style = system
            .split("# Output Style: Explanatory\n")
            .nth(1)
            .unwrap();
        assert!(style.contains("★ Insight"), "{style}");
        assert_eq!(last_texts(body).last().unwrap(), &reminder("Explanatory"),);
    }
    assert_eq!(last_texts(&bodies[1])[0], "second");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_style_the_prompt_is_the_default_one() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let body = &env.request_bodies()[0];
    let system = system(body);
    assert!(
        system.contains(CONCISE) && system.contains(CODING),
        "{system}"
    );
    assert!(!system.contains("# Output Style"), "{system}");
    assert_eq!(last_texts(body).last().unwrap(), "hi");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_project_style_needs_trust_and_replaces_the_coding_section() {
    let env = Env::new(Script::new([Reply::text("a"), Reply::text("b")])).await;
    write(
        env.cwd().join(".claude/settings.json"),
        r#"{"outputStyle": "Pirate"}"#,
    );
    let styles = env.cwd().join(".claude/output-styles");
    write(
        styles.join("pirate.md"),
        "---\nname: Pirate\ndescription: Talks like a pirate\n---\n\nAnswer like a pirate.\n",
    );
    write(styles.join("broken.md"), "---\n[unclosed\n---\nx\n");

    // Untrusted: the project's settings and styles are not read as the
    // user's; the default prompt, with a warning naming the folder.
    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "a\n");
    let system_untrusted = system(&env.request_bodies()[0]);
    assert!(
        !system_untrusted.contains("# Output Style"),
        "{system_untrusted}"
    );

    env.trust();
    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let warning = format!(
        "warning: {}: bad frontmatter: ",
        styles.join("broken.md").display()
    );
    assert!(stderr(&out).contains(&warning), "{}", stderr(&out));
    let body = &env.request_bodies()[1];
    let system = system(body);
    assert!(
        system.ends_with("# Output Style: Pirate\nAnswer like a pirate."),
        "{system}"
    );
    assert!(
        !system.contains(CODING) && !system.contains(CONCISE),
        "{system}"
    );
    assert!(system.contains("\n# Using the tools\n"), "{system}");
    assert_eq!(last_texts(body).last().unwrap(), &reminder("Pirate"));
}

#[tokio::test(flavor = "multi_thread")]
async fn initialize_lists_every_style_and_an_unknown_one_is_a_warning() {
    let env = Env::new(Script::new([Reply::text("a")])).await;
    write(
        env.home.path().join(".claude/settings.json"),
        r#"{"outputStyle": "Nope"}"#,
    );
    write(
        env.home.path().join(".claude/output-styles/terse.md"),
        "---\nkeep-coding-instructions: true\n---\nOne line answers.\n",
    );
    let input = initialize_then(&["hi"]);
    let out = env
        .tack()
        .args(STREAM_JSON)
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("warning: outputStyle `Nope`: no such output style; using the default"),
        "{}",
        stderr(&out)
    );
    let records = lines(&out.stdout);
    let answer = records
        .iter()
        .find(|r| r["type"] == "control_response")
        .unwrap();
    let response = &answer["response"]["response"];
    assert_eq!(
        (
            &response["output_style"],
            &response["available_output_styles"]
        ),
        (
            // Named as settings name it, as Claude Code does (the default
            // style applies).
            &json!("Nope"),
            &json!([
                "default",
                "Proactive",
                "Concise",
                "Explanatory",
                "Learning",
                "terse"
            ])
        )
    );
    assert!(!system(&env.request_bodies()[0]).contains("# Output Style"));
}
