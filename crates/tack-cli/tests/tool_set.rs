//! Claude Code 2.1.328's tool set with the real binary against the scripted
//! server: the tools a request carries (whole, or named behind ToolSearch),
//! the built-in agent types, NotebookEdit, EnterWorktree and ExitWorktree.

use crate::common;

use common::{Env, last_tool_results};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

fn names(body: &Value) -> Vec<String> {
    (body["tools"].as_array().unwrap().iter())
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Every built-in, in the session's order, as sent when nothing is deferred.
const ALL: [&str; 22] = [
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "Bash",
    "TaskOutput",
    "TaskStop",
    "Glob",
    "Grep",
    "LS",
    "TodoWrite",
    "Monitor",
    "WebFetch",
    "WebSearch",
    "EnterWorktree",
    "ExitWorktree",
    "CronCreate",
    "CronList",
    "CronDelete",
    "ScheduleWakeup",
    "Agent",
];

/// The tools sent whole with tool search on, the main loop's.
const WHOLE: [&str; 7] = [
    "Read",
    "Write",
    "Edit",
    "Bash",
    "ScheduleWakeup",
    "Agent",
    "ToolSearch",
];

#[tokio::test(flavor = "multi_thread")]
async fn off_anthropics_api_every_tool_is_sent_whole_and_init_lists_the_agents() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let out = env
        .tack()
        .args(["-p", "hi", "--output-format", "stream-json", "--verbose"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let init = &common::lines(&out.stdout)[0];
    assert_eq!(init["tools"], json!(ALL));
    assert_eq!(
        init["agents"],
        json!(["Explore", "Plan", "general-purpose"])
    );
    let body = &env.request_bodies()[0];
    assert_eq!(names(body), ALL);
    let agent = common::request_tool(body, "Agent")["description"].to_string();
    assert!(
        agent.contains("- Plan: Software architect agent"),
        "{agent}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn with_tool_search_the_deferred_built_ins_load_after_the_ones_sent() {
    let env = Env::new(Script::new([
        Reply::tool_use(
            "s1",
            "ToolSearch",
            json!({"query": "select:NotebookEdit,Glob"}),
        ),
        Reply::tool_use("s2", "ToolSearch", json!({"query": "select:WebFetch,Glob"})),
        // A deferred tool runs when called by name, loaded or not.
        Reply::tool_use("l1", "LS", json!({"path": "."})),
        Reply::text("done"),
    ]))
    .await;
    common::write(env.cwd().join("a.txt"), "a\n");
    let out = env
        .tack()
        .env("ENABLE_TOOL_SEARCH", "true")
        .args(["-p", "go", "--output-format", "stream-json", "--verbose"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let bodies = env.request_bodies();
    let sent: Vec<Vec<String>> = bodies.iter().map(names).collect();
    let whole = WHOLE;
    // system/init names every tool: those sent whole, then the deferred ones
    // in the session's order.
    let deferred: Vec<&str> = ALL.into_iter().filter(|n| !whole.contains(n)).collect();
    let init = &common::lines(&out.stdout)[0];
    assert_eq!(init["tools"], json!([&whole[..], &deferred[..]].concat()));
    let with = |more: &[&str]| -> Vec<String> {
        whole.iter().chain(more).map(|s| s.to_string()).collect()
    };
    assert_eq!(
        sent,
        [
            with(&[]),
            with(&["NotebookEdit", "Glob"]),
            // WebFetch after the two loaded before, though it comes before
            // Glob in the catalog: what the cache holds is never reordered.
            with(&["NotebookEdit", "Glob", "WebFetch"]),
            with(&["NotebookEdit", "Glob", "WebFetch"]),
        ]
    );
    // ToolSearch's definition is the same in every request.
    let search: Vec<Value> = (bodies.iter())
        .map(|b| common::request_tool(b, "ToolSearch"))
        .collect();
    assert!(search.iter().all(|s| *s == search[0]));
    assert!(
        search[0]["description"]
            .as_str()
            .unwrap()
            .ends_with(&format!("Deferred tools:\n{}", deferred.join("\n"))),
        "{}",
        search[0]["description"]
    );
    let results: Vec<(String, String)> = bodies[1..].iter().flat_map(last_tool_results).collect();
    let first_line = |t: &str| t.lines().next().unwrap_or_default().to_owned();
    assert_eq!(
        results
            .iter()
            .map(|(id, t)| (id.as_str(), first_line(t)))
            .collect::<Vec<_>>(),
        [
            (
                "s1",
                "Loaded 2 tools; call them directly from your next response:".to_owned()
            ),
            (
                "s2",
                "Loaded 2 tools; call them directly from your next response:".to_owned()
            ),
            ("l1", format!("- {}/", env.cwd().display())),
        ]
    );
}

/// A notebook as Jupyter writes it.
fn notebook_text(cells: Value) -> String {
    let nb = json!({"cells": cells, "metadata": {"language_info": {"name": "python"}},
                    "nbformat": 4, "nbformat_minor": 5});
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&nb, &mut ser).unwrap();
    String::from_utf8(out).unwrap() + "\n"
}

#[tokio::test(flavor = "multi_thread")]
async fn notebook_edit_changes_a_cell_the_model_read() {
    let env = Env::new(Script::new([
        Reply::tool_use("r1", "Read", json!({"file_path": "n.ipynb"})),
        Reply::tool_use(
            "e1",
            "NotebookEdit",
            json!({"notebook_path": "n.ipynb", "cell_id": "c1", "new_source": "2 + 2"}),
        ),
        Reply::text("edited"),
    ]))
    .await;
    let path = env.cwd().join("n.ipynb");
    let cell = |source: &str, outputs: Value, count: Value| {
        json!({"cell_type": "code", "execution_count": count, "id": "c1", "metadata": {},
               "outputs": outputs, "source": source})
    };
    let stream = json!([{"name": "stdout", "output_type": "stream", "text": ["2\n"]}]);
    common::write(
        &path,
        &notebook_text(json!([cell("1 + 1", stream, json!(1))])),
    );
    let out = env
        .tack()
        .args(["-p", "edit it", "--permission-mode", "acceptEdits"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert_eq!(
        last_tool_results(env.request_bodies().last().unwrap()),
        [("e1".to_owned(), "Updated cell c1 with 2 + 2".to_owned())]
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        notebook_text(json!([cell("2 + 2", json!([]), Value::Null)]))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn enter_worktree_moves_the_session_and_exit_worktree_brings_it_back() {
    let env = Env::new(Script::new([
        Reply::tool_use("w1", "EnterWorktree", json!({"name": "feat"})),
        Reply::tool_use("b1", "Bash", json!({"command": "pwd; echo new > new.txt"})),
        Reply::tool_use("x1", "ExitWorktree", json!({"action": "remove"})),
        Reply::tool_use("x2", "ExitWorktree", json!({"action": "keep"})),
        Reply::tool_use("b2", "Bash", json!({"command": "pwd; ls"})),
        Reply::tool_use("x3", "ExitWorktree", json!({"action": "keep"})),
        Reply::text("done"),
    ]))
    .await;
    crate::worktree_place::worktree_session(&env, "bypassPermissions", &[]);
    let cwd = env.cwd();
    let wt = cwd.join(".claude/worktrees/feat");
    let results: Vec<(String, String)> = (env.request_bodies()[1..].iter())
        .flat_map(last_tool_results)
        .collect();
    let (w, c) = (wt.display(), cwd.display());
    assert_eq!(
        results,
        [
            ("w1", format!("Created worktree at {w} on branch worktree-feat. The session now works in {w}. Call ExitWorktree to leave it.")),
            ("b1", format!("{w}")),
            ("x1", format!("<tool_use_error>Not removed: it has uncommitted files or commits of its own, which removing would discard. Ask the user, then call ExitWorktree again with discard_changes: true, or use action \"keep\". The session is still in the worktree {w}.</tool_use_error>")),
            ("x2", format!("Left the worktree; it is kept at {w} on branch worktree-feat. The session is back in {c}.")),
            ("b2", format!("{c}\na.txt")),
            ("x3", "<tool_use_error>No-op: there is no worktree entered with EnterWorktree in this session to exit. Nothing was changed.</tool_use_error>".to_owned()),
        ]
        .map(|(id, t)| (id.to_owned(), t))
    );
    // The file Bash wrote is in the kept worktree, on its branch.
    assert_eq!(
        std::fs::read_to_string(wt.join("new.txt")).unwrap(),
        "new\n"
    );
    assert!(!cwd.join("new.txt").exists());
    assert_eq!(
        common::git(&cwd, &["branch", "--list", "worktree-feat"]).trim(),
        "+ worktree-feat"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn exit_worktree_removes_an_unchanged_worktree_and_its_branch() {
    let env = Env::new(Script::new([
        Reply::tool_use("w1", "EnterWorktree", json!({})),
        Reply::tool_use("x1", "ExitWorktree", json!({"action": "remove"})),
        Reply::text("done"),
    ]))
    .await;
    common::git_repo_with(&env.cwd(), "a.txt", "a\n");
    let out = env.tack().args(["-p", "try a worktree"]).output().unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let results = last_tool_results(env.request_bodies().last().unwrap());
    let removed = &results[0].1;
    assert!(
        removed.starts_with(&format!(
            "Left and removed the worktree at {}/.claude/worktrees/",
            env.cwd().display()
        )) && removed.ends_with(&format!("The session is back in {}.", env.cwd().display())),
        "{removed}"
    );
    let left: Vec<_> = std::fs::read_dir(env.cwd().join(".claude/worktrees"))
        .map(|d| d.collect())
        .unwrap_or_default();
    assert_eq!(left.len(), 0);
    assert_eq!(
        common::git(&env.cwd(), &["branch", "--list", "worktree-*"]),
        ""
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sub_agent_gets_the_same_deferred_built_ins_behind_its_tool_search() {
    let env = Env::new(Script::routed([
        (
            "LEAD-MARK".to_string(),
            vec![
                Reply::tool_use(
                    "a1",
                    "Agent",
                    json!({"description": "look", "prompt": "SUB-MARK look around",
                           "subagent_type": "general-purpose"}),
                ),
                Reply::text("done"),
            ],
        ),
        ("SUB-MARK".to_string(), vec![Reply::text("looked")]),
    ]))
    .await;
    let out = env
        .tack()
        .env("ENABLE_TOOL_SEARCH", "true")
        .args(["-p", "LEAD-MARK go"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let sub = env
        .request_bodies()
        .into_iter()
        .find(|b| b["messages"][0].to_string().contains("SUB-MARK"))
        .unwrap();
    // The sub-agent has no Agent tool of its own; the rest is the main loop's.
    let whole: Vec<&str> = WHOLE.into_iter().filter(|n| *n != "Agent").collect();
    assert_eq!(names(&sub), whole);
    let description = common::request_tool(&sub, "ToolSearch")["description"].to_string();
    for deferred in [
        "Glob",
        "NotebookEdit",
        "WebFetch",
        "EnterWorktree",
        "Monitor",
    ] {
        assert!(description.contains(deferred), "{deferred}: {description}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn switching_to_a_model_without_tool_search_sends_every_tool_whole_and_back() {
    use crate::schedule::{session, start_time};
    use tack_runtime::schedule::ManualClock;
    use tack_runtime::{Op, SessionChoice, UserInput};
    let env = Env::new(Script::new([
        Reply::text("one"),
        Reply::text("two"),
        Reply::text("three"),
    ]))
    .await;
    let clock = ManualClock::new(start_time());
    let search = [("ENABLE_TOOL_SEARCH", "true")];
    let mut s = session(&env, &clock, SessionChoice::New { id: None }, &search).await;
    for (prompt, model) in [
        ("one", Some("claude-haiku-4-5")),
        ("two", Some("claude-opus-4-5")),
        ("three", None),
    ] {
        s.handle.submit(UserInput::text(prompt)).unwrap();
        assert_eq!(s.turn().await, prompt);
        if let Some(model) = model {
            s.handle.send(Op::SetModel(Some(model.into()))).unwrap();
        }
    }
    s.end().await;
    let sent: Vec<(String, Vec<String>)> = (env.request_bodies().iter())
        .map(|b| (b["model"].as_str().unwrap().to_owned(), names(b)))
        .collect();
    let whole: Vec<String> = WHOLE.iter().map(|s| s.to_string()).collect();
    // Haiku takes no tool_reference blocks: every tool whole, as Claude
    // Code disables tool search for it.
    let mut all: Vec<String> = ALL.iter().map(|s| s.to_string()).collect();
    all.retain(|n| n != "Agent");
    all.push("Agent".into());
    assert_eq!(sent[1].1, all);
    assert_eq!(sent[0].1, whole);
    assert_eq!(sent[2].1, whole);
    assert_eq!(sent[1].0, "claude-haiku-4-5");
}

#[tokio::test(flavor = "multi_thread")]
async fn enter_worktree_switches_into_an_existing_worktree_and_never_removes_it() {
    let env = Env::new(Script::new([
        Reply::tool_use(
            "n1",
            "EnterWorktree",
            json!({"path": "/nowhere", "name": "x"}),
        ),
        Reply::tool_use("n2", "EnterWorktree", json!({"path": "/tmp"})),
        Reply::tool_use("w1", "EnterWorktree", json!({"path": "../other"})),
        Reply::tool_use(
            "b1",
            "Bash",
            json!({"command": "pwd; git branch --show-current"}),
        ),
        Reply::tool_use(
            "x1",
            "ExitWorktree",
            json!({"action": "remove", "discard_changes": true}),
        ),
        Reply::tool_use("x2", "ExitWorktree", json!({"action": "keep"})),
        Reply::tool_use("b2", "Bash", json!({"command": "pwd"})),
        Reply::text("done"),
    ]))
    .await;
    let repo = env.cwd().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    common::git_repo_with(&repo, "a.txt", "a\n");
    common::git(&repo, &["worktree", "add", "-q", "-b", "other", "../other"]);
    let other = std::fs::canonicalize(env.cwd().join("other")).unwrap();
    let out = env
        .tack()
        .current_dir(&repo)
        .args(["-p", "switch", "--permission-mode", "bypassPermissions"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let results: Vec<(String, String)> = (env.request_bodies()[1..].iter())
        .flat_map(last_tool_results)
        .collect();
    let (o, r) = (other.display(), repo.display());
    assert_eq!(
        results,
        [
            ("n1", "<tool_use_error>InputValidationError: give `name` (a new worktree) or `path` (an existing one), not both.</tool_use_error>".to_owned()),
            ("n2", "<tool_use_error>Cannot switch to /tmp: it is not a worktree of this repository (see `git worktree list`)</tool_use_error>".to_owned()),
            ("w1", format!("Switched to the worktree at {o} on branch other. The session now works in {o}. Call ExitWorktree to leave it (it is never removed: it was not made here).")),
            ("b1", format!("{o}\nother")),
            ("x1", format!("<tool_use_error>Not removed: the worktree at {o} was there before EnterWorktree switched into it; only worktrees made in this session are removed. Use action \"keep\" to leave it.</tool_use_error>")),
            ("x2", format!("Left the worktree; it is kept at {o} on branch other. The session is back in {r}.")),
            ("b2", format!("{r}")),
        ]
        .map(|(id, t)| (id.to_owned(), t))
    );
    assert!(other.join("a.txt").exists());
}
