//! Skills end to end: only names and descriptions reach the model until a
//! `Skill` call loads a body (with `${CLAUDE_SKILL_DIR}`), `/name args`
//! expands one in `-p`, a `Skill(name)` deny rule stops it, a broken
//! `SKILL.md` is a warning, and `system/init` and `initialize` list them.

use crate::common;

use common::{Env, STREAM_JSON, lines, stderr, stdout, write};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

const BODY: &str = "Run ${CLAUDE_SKILL_DIR}/deploy.sh for $ARGUMENTS.\nBODY-ONLY-ON-DEMAND\n";

/// The user's `deploy` skill and a `hidden` one the model may not invoke;
/// returns the deploy skill's folder.
fn user_skills(env: &Env) -> std::path::PathBuf {
    let skills = env.home.path().join(".claude/skills");
    write(
        skills.join("deploy/SKILL.md"),
        &format!(
            "---\nname: deploy\ndescription: Deploys the app\nargument-hint: <stage>\n---\n{BODY}"
        ),
    );
    write(
        skills.join("hidden/SKILL.md"),
        "---\ndescription: Only for people\ndisable-model-invocation: true\n---\nHIDDEN-BODY\n",
    );
    skills.join("deploy")
}

/// The text blocks of the first request's last message.
fn first_prompt(env: &Env) -> Vec<String> {
    common::last_texts(&env.request_bodies()[0])
}

/// A stream-json session that initializes and says "hi": its records.
fn initialize_and_say_hi(env: &Env) -> Vec<Value> {
    let out = env
        .tack()
        .args(STREAM_JSON)
        .write_stdin(common::initialize_then(&["hi"]))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    lines(&out.stdout)
}

/// The commands of the `initialize` answer among stream-json `records`.
fn initialize_commands(records: &[Value]) -> Value {
    let answer = records
        .iter()
        .find(|r| r["type"] == "control_response")
        .unwrap();
    answer["response"]["response"]["commands"].clone()
}

/// The tool_result block of the second request.
fn tool_result(env: &Env) -> Value {
    let body = &env.request_bodies()[1];
    let last = body["messages"].as_array().unwrap().last().unwrap();
    last["content"][0].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_model_sees_the_listing_and_a_skill_call_loads_the_body() {
    let env = Env::new(Script::new([
        Reply::tool_use("t1", "Skill", json!({"skill": "deploy", "args": "prod"})),
        Reply::text("deployed"),
    ]))
    .await;
    let dir = user_skills(&env);
    let out = env.tack().args(["-p", "ship it"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "deployed\n");

    let first = &env.request_bodies()[0];
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(tools.contains(&"Skill"), "{tools:?}");
    let prompt = first_prompt(&env);
    assert_eq!(
        prompt[1..],
        [
            "ship it".to_owned(),
            "<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n- deploy: Deploys the app\n</system-reminder>".to_owned(),
        ]
    );
    let sent = first.to_string();
    assert!(
        !sent.contains("BODY-ONLY-ON-DEMAND") && !sent.contains("HIDDEN"),
        "{sent}"
    );

    let dir = dir.display();
    assert_eq!(
        tool_result(&env),
        json!({"type": "tool_result", "tool_use_id": "t1",
            "cache_control": {"type": "ephemeral"},
            "content": format!("Base directory for this skill: {dir}\n\nRun {dir}/deploy.sh for prod.\nBODY-ONLY-ON-DEMAND\n")})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deny_rule_stops_a_skill_call() {
    let env = Env::new(Script::new([
        Reply::tool_use("t1", "Skill", json!({"skill": "deploy"})),
        Reply::text("ok"),
    ]))
    .await;
    user_skills(&env);
    let out = env
        .tack()
        .args(["-p", "ship it", "--disallowedTools", "Skill(deploy)"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let result = tool_result(&env);
    assert_eq!(result["is_error"], json!(true), "{result}");
    let text = result["content"].to_string();
    assert!(
        text.contains("Skill(deploy)") && !text.contains("BODY-ONLY"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn print_mode_invokes_and_lists_skills_by_slash_name() {
    let env = Env::new(Script::new([Reply::text("on it")])).await;
    let dir = user_skills(&env);
    let out = env.tack().args(["-p", "/deploy prod"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "on it\n");
    let dir = dir.display();
    assert_eq!(
        first_prompt(&env)[1..3],
        [
            "<command-message>deploy</command-message>\n<command-name>/deploy</command-name>\n<command-args>prod</command-args>".to_owned(),
            format!("Run {dir}/deploy.sh for prod.\nBODY-ONLY-ON-DEMAND\n"),
        ]
    );

    let out = env.tack().args(["-p", "/skills"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "Skills:\n/deploy (user): Deploys the app\n/hidden (user): Only for people\n"
    );
    assert_eq!(env.request_bodies().len(), 1, "/skills makes no request");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_broken_skill_is_a_warning_and_the_session_goes_on() {
    let env = Env::new(Script::new([Reply::text("fine")])).await;
    user_skills(&env);
    let broken = write(
        env.home.path().join(".claude/skills/broken/SKILL.md"),
        "---\ndescription: [never closed\n---\nx\n",
    );
    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "fine\n");
    let warning = format!("warning: {}: bad frontmatter: ", broken.display());
    assert!(stderr(&out).contains(&warning), "{}", stderr(&out));
    assert!(stderr(&out).contains("; skill skipped"), "{}", stderr(&out));
}

/// A repository's skill description cannot drive the terminal: `/skills` and
/// the list a front end shows make its escape sequences visible; the model's
/// listing has it as written.
#[tokio::test(flavor = "multi_thread")]
async fn a_skill_description_with_escape_sequences_is_shown_not_sent() {
    let env = Env::new(Script::new([Reply::text("fine")])).await;
    write(
        env.home.path().join(".claude/skills/evil/SKILL.md"),
        "---\ndescription: \"Deploys\\e]0;pwned\\a \\x9b2J\"\n---\nEvil.\n",
    );
    let out = env.tack().args(["-p", "/skills"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "Skills:\n/evil (user): Deploys\u{241b}]0;pwned\u{2407} <U+009B>2J\n"
    );

    assert_eq!(
        initialize_commands(&initialize_and_say_hi(&env))[3],
        json!({"name": "evil", "argumentHint": "",
            "description": "Deploys\u{241b}]0;pwned\u{2407} <U+009B>2J"})
    );
    assert_eq!(
        first_prompt(&env)[1..],
        [
            "hi".to_owned(),
            "<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n\
             - evil: Deploys\u{1b}]0;pwned\u{7} \u{9b}2J\n</system-reminder>"
                .to_owned(),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn init_and_initialize_list_the_skills_and_project_skills_need_trust() {
    let env = Env::new(Script::new([Reply::text("a"), Reply::text("b")])).await;
    user_skills(&env);
    write(
        env.cwd().join(".claude/skills/lint/SKILL.md"),
        "---\ndescription: Lints the code\n---\nLint.\n",
    );
    let run = || initialize_and_say_hi(&env);
    let init = |records: &[Value]| {
        let init = records.iter().find(|r| r["subtype"] == "init").unwrap();
        (init["skills"].clone(), init["slash_commands"].clone())
    };

    // Untrusted: the project's skill is not loaded.
    assert_eq!(
        init(&run()),
        (
            json!(["deploy", "hidden"]),
            json!(["clear", "compact", "init", "deploy", "hidden"])
        )
    );

    env.trust();
    let records = run();
    assert_eq!(
        init(&records),
        (
            json!(["deploy", "hidden", "lint"]),
            json!(["clear", "compact", "init", "deploy", "hidden", "lint"])
        )
    );
    let commands = initialize_commands(&records);
    assert_eq!(
        commands.as_array().unwrap()[3..],
        [
            json!({"name": "deploy", "argumentHint": "<stage>", "description": "Deploys the app"}),
            json!({"name": "hidden", "argumentHint": "", "description": "Only for people"}),
            json!({"name": "lint", "argumentHint": "", "description": "Lints the code"}),
        ]
    );
}

/// The `--agents` value with the `reviewer` agent the `review` skill forks to.
const REVIEWER: &str = r#"{"reviewer": {"description": "Reviews", "prompt": "You are the REVIEWER.", "tools": ["Read"]}}"#;

/// The user's `review` skill (`context: fork`, agent `reviewer`); returns
/// the skills folder.
fn review_skill(env: &Env) -> std::path::PathBuf {
    let skills = env.home.path().join(".claude/skills");
    write(
        skills.join("review/SKILL.md"),
        "---\ndescription: Reviews code\ncontext: fork\nagent: reviewer\n---\nReview $ARGUMENTS carefully.\n",
    );
    skills
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fork_skill_runs_in_its_agent_and_returns_the_agents_answer() {
    let env = Env::new(Script::new([
        Reply::tool_use("t1", "Skill", json!({"skill": "review", "args": "src"})),
        Reply::text("LGTM from the fork"),
        Reply::text("the review says LGTM"),
    ]))
    .await;
    let skills = review_skill(&env);
    let out = env
        .tack()
        .args(["-p", "review it", "--agents", REVIEWER])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "the review says LGTM\n");

    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 3);
    // The sub-agent: the reviewer's system prompt, the skill's body as its prompt.
    assert!(
        bodies[1]["system"]
            .to_string()
            .contains("You are the REVIEWER."),
        "{}",
        bodies[1]["system"]
    );
    let dir = skills.join("review");
    let dir = dir.display();
    assert_eq!(
        common::last_texts(&bodies[1]).last().unwrap(),
        &format!("Base directory for this skill: {dir}\n\nReview src carefully.\n")
    );
    let result = &bodies[2]["messages"].as_array().unwrap().last().unwrap()["content"][0];
    assert_eq!(
        result,
        &json!({"type": "tool_result", "tool_use_id": "t1",
            "cache_control": {"type": "ephemeral"},
            "content": "Skill \"review\" completed (forked execution).\n\nResult:\nLGTM from the fork"})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn typing_a_fork_skills_name_runs_it_in_its_agent_too() {
    let env = Env::new(Script::new([Reply::text("LGTM from the fork")])).await;
    let skills = review_skill(&env);
    let out = env
        .tack()
        .args(["-p", "/review src", "--agents", REVIEWER])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let said = "Skill \"review\" completed (forked execution).\n\nResult:\nLGTM from the fork";
    assert_eq!(stdout(&out), format!("{said}\n"));
    // One request: the sub-agent's, with the skill's body as its prompt; no
    // model call in the main conversation.
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 1);
    let system = bodies[0]["system"].to_string();
    assert!(system.contains("You are the REVIEWER."), "{system}");
    let dir = skills.join("review");
    assert_eq!(
        common::last_texts(&bodies[0]).last().unwrap(),
        &format!(
            "Base directory for this skill: {}\n\nReview src carefully.\n",
            dir.display()
        )
    );
    // The conversation keeps the user's line and the agent's answer.
    let transcript = std::fs::read_to_string(&env.transcripts()[0]).unwrap();
    let user: Vec<Value> = transcript
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "user" && r["isSidechain"] == false)
        .map(|r| r["message"]["content"].clone())
        .collect();
    assert_eq!(
        user,
        vec![json!([{"type": "text", "text": "/review src"},
                    {"type": "text", "text": format!("<local-command-stdout>{said}</local-command-stdout>")}])]
    );
}
