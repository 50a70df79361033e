//! What `tack acp` shows of tools beyond the basics: a sub-agent's calls,
//! marked with the Agent call they belong to as the adapter marks them, and
//! NotebookEdit written through the editor with the change as its diff.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

use crate::acp::{initialize, new_session, prompt, tack_acp};
use crate::acp_client::{Heard, allow, calls, init_params, said};
use crate::common::{Env, git_repo_with};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subagents_calls_are_marked_with_its_agent_call() {
    let env = Env::new(Script::new([
        Reply::message()
            .text("Asking a helper.")
            .tool_use(
                "toolu_agent",
                "Agent",
                json!({"description": "Make a file", "prompt": "Make sub.txt",
                       "subagent_type": "general-purpose"}),
            )
            .into(),
        Reply::message()
            .text("Making it.")
            .tool_use("toolu_sub", "Bash", json!({"command": "touch sub.txt"}))
            .into(),
        Reply::text("Made it."),
        Reply::text("The helper made it."),
    ]))
    .await;
    let mut client = tack_acp(&env);
    initialize(&mut client);
    let session = new_session(&mut client, &env);
    let (answer, heard) = client.call("session/prompt", prompt("make sub.txt", &session));
    assert_eq!(answer, json!({"stopReason": "end_turn"}));
    assert!(env.cwd().join("sub.txt").exists());
    // The sub-agent's text is its own (as stream-json and the adapter).
    assert_eq!(
        said(&heard.updates, "agent_message_chunk"),
        "Asking a helper.The helper made it."
    );
    let marked = json!({"claudeCode": {"toolName": "Bash", "parentToolUseId": "toolu_agent"}});
    let agent = json!({"claudeCode": {"toolName": "Agent"}});
    let updates: Vec<Value> = calls(&heard.updates, &["rawOutput"])
        .into_iter()
        .filter(|u| u["sessionUpdate"] != "usage_update")
        .map(|mut u| {
            // The Agent call's result is the sub-agent's answer and its
            // usage: only its status is checked here.
            if u["toolCallId"] == "toolu_agent" && u["sessionUpdate"] == "tool_call_update" {
                u.as_object_mut().unwrap().remove("content");
            }
            u
        })
        .collect();
    assert_eq!(
        updates,
        vec![
            json!({"sessionUpdate": "tool_call", "toolCallId": "toolu_agent",
                   "title": "Make a file", "kind": "think",
                   "content": [{"type": "content", "content": {"type": "text", "text": "Make sub.txt"}}],
                   "rawInput": {"description": "Make a file", "prompt": "Make sub.txt",
                                "subagent_type": "general-purpose"}, "_meta": agent}),
            json!({"sessionUpdate": "tool_call", "toolCallId": "toolu_sub",
                   "title": "touch sub.txt", "kind": "execute",
                   "rawInput": {"command": "touch sub.txt"}, "_meta": marked}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "toolu_sub", "status": "completed",
                   "content": [{"type": "content", "content": {"type": "text", "text": "(no output)"}}],
                   "_meta": marked}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "toolu_agent", "status": "completed",
                   "_meta": agent}),
        ]
    );
    // The sub-agent's Bash was put to the editor like any other.
    let asked: Vec<&Value> = (heard.requests.iter())
        .map(|r| &r["params"]["toolCall"]["toolCallId"])
        .collect();
    assert_eq!(asked, [&json!("toolu_sub")]);
}

/// A notebook as Jupyter writes it (one space of indentation, keys sorted).
const NOTEBOOK: &str = r#"{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "calc",
   "metadata": {},
   "outputs": [],
   "source": "print(1)"
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notebook_edit_goes_through_the_editor_with_its_diff() {
    let env = Env::new(Script::new([])).await;
    git_repo_with(&env.cwd(), "n.ipynb", NOTEBOOK);
    let file = env.cwd().join("n.ipynb").display().to_string();
    env.server.push(Reply::tool_use(
        "toolu_read",
        "Read",
        json!({"file_path": file}),
    ));
    env.server.push(Reply::tool_use(
        "toolu_nb",
        "NotebookEdit",
        json!({"notebook_path": file, "cell_id": "calc", "new_source": "print(2)"}),
    ));
    env.server.push(Reply::text("Done."));
    let mut client = tack_acp(&env);
    client.call("initialize", init_params(false, true));
    let session = new_session(&mut client, &env);
    let id = client.request("session/prompt", prompt("print 2", &session));
    let mut heard = Heard::default();
    let answer = client.answer_to(id, &mut heard, |method, params| match method {
        "fs/write_text_file" => Value::Null,
        other => allow(other, params),
    });
    assert_eq!(answer["result"], json!({"stopReason": "end_turn"}));
    let written: Vec<&Value> = (heard.requests.iter())
        .filter(|r| r["method"] == "fs/write_text_file")
        .map(|r| &r["params"])
        .collect();
    assert_eq!(written.len(), 1, "{:?}", heard.requests);
    let new_text = written[0]["content"].as_str().unwrap();
    assert_eq!(
        (&written[0]["sessionId"], &written[0]["path"]),
        (&json!(session), &json!(file))
    );
    let edited: Value = serde_json::from_str(new_text).unwrap();
    assert_eq!(
        edited["cells"][0],
        json!({"cell_type": "code", "execution_count": null, "id": "calc",
               "metadata": {}, "outputs": [], "source": "print(2)"})
    );
    // Written by the editor, not by tack.
    assert_eq!(
        std::fs::read_to_string(env.cwd().join("n.ipynb")).unwrap(),
        NOTEBOOK
    );
    let ended: Vec<Value> = calls(&heard.updates, &["rawOutput"])
        .into_iter()
        .filter(|u| u["toolCallId"] == "toolu_nb")
        .collect();
    assert_eq!(
        ended,
        vec![
            json!({"sessionUpdate": "tool_call", "toolCallId": "toolu_nb",
                   "title": "NotebookEdit n.ipynb", "kind": "edit", "locations": [{"path": file}],
                   "rawInput": {"notebook_path": file, "cell_id": "calc", "new_source": "print(2)"},
                   "_meta": {"claudeCode": {"toolName": "NotebookEdit"}}}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "toolu_nb", "status": "completed",
                   "content": [{"type": "diff", "path": file, "oldText": NOTEBOOK, "newText": new_text}],
                   "_meta": {"claudeCode": {"toolName": "NotebookEdit"}}}),
        ]
    );
}
