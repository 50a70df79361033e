//! `tack acp`'s sessions as the current adapter serves them: `session/fork`
//! (a new session going on from a copy of another's conversation),
//! `session/list` of every folder when the client names none, and the
//! config options (mode and model) with `session/set_config_option`.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

use crate::acp::{
    initialize, made_by_tack_p, made_by_tack_p_in, open, pairs, prompt, tack_acp, texts,
};
use crate::acp_client::{Heard, allow, said};
use crate::common::Env;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_goes_on_from_a_copy_and_leaves_the_original_as_it_was() {
    let env = Env::new(Script::new([
        Reply::text("first answer"),
        Reply::text("forked answer"),
    ]))
    .await;
    let id = made_by_tack_p(&env, "first question");
    let mut client = tack_acp(&env);
    initialize(&mut client);
    let params = json!({"sessionId": id, "cwd": env.cwd(), "mcpServers": []});
    let (forked, replayed, commands) = open(&mut client, "session/fork", params);
    let fork = forked["sessionId"].as_str().unwrap().to_owned();
    assert_ne!(fork, id);
    assert_eq!(forked["modes"]["currentModeId"], "default");
    assert_eq!(replayed, Vec::<Value>::new(), "a fork sends nothing back");
    assert!(commands.as_array().is_some_and(|c| !c.is_empty()));

    let (answer, heard) = client.call("session/prompt", prompt("and then?", &fork));
    assert_eq!(answer, json!({"stopReason": "end_turn"}));
    assert_eq!(said(&heard.updates, "agent_message_chunk"), "forked answer");
    assert_eq!(
        texts(env.request_bodies().last().unwrap()),
        pairs(&[
            ("user", "first question"),
            ("assistant", "first answer"),
            ("user", "and then?")
        ])
    );
    let (listed, _) = client.call("session/list", json!({"cwd": env.cwd()}));
    let mut ids: Vec<&str> = (listed["sessions"].as_array().unwrap().iter())
        .map(|s| s["sessionId"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    let mut want = [id.as_str(), fork.as_str()];
    want.sort_unstable();
    assert_eq!(ids, want);
    drop(client);

    // Read back by another editor: the original as it was, the fork whole.
    let mut client = tack_acp(&env);
    initialize(&mut client);
    let mut replay = |session: &str| -> Vec<String> {
        let params = json!({"sessionId": session, "cwd": env.cwd(), "mcpServers": []});
        let (_, updates, _) = open(&mut client, "session/load", params);
        updates
            .iter()
            .map(|u| format!("{}: {}", u["sessionUpdate"], u["content"]["text"]))
            .collect()
    };
    let first = [
        r#""user_message_chunk": "first question""#,
        r#""agent_message_chunk": "first answer""#,
    ];
    assert_eq!(replay(&id), first);
    let then = [
        r#""user_message_chunk": "and then?""#,
        r#""agent_message_chunk": "forked answer""#,
    ];
    assert_eq!(replay(&fork), [first, then].concat());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_of_no_session_is_a_clear_error() {
    let env = Env::new(Script::new([])).await;
    let mut client = tack_acp(&env);
    initialize(&mut client);
    let missing = "00000000-0000-4000-8000-000000000000";
    let params = json!({"sessionId": missing, "cwd": env.cwd(), "mcpServers": []});
    let id = client.request("session/fork", params);
    let answer = client.answer_to(id, &mut Default::default(), crate::acp_client::allow);
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(missing), "{answer}");
}

/// With no `cwd`, as the adapter lists them: every folder's sessions, each
/// with its own folder, titled by its first prompt on one line of at most
/// 256 characters.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_of_every_folder_are_listed_when_no_folder_is_named() {
    let env = Env::new(Script::new([Reply::text("one"), Reply::text("two")])).await;
    let here = made_by_tack_p(&env, "here");
    let other = env.cwd().join("other");
    std::fs::create_dir(&other).unwrap();
    let long = format!("there\n\n{}", "word ".repeat(100));
    let there = made_by_tack_p_in(&env, &other, &long);
    let mut client = tack_acp(&env);
    initialize(&mut client);
    let (listed, _) = client.call("session/list", json!({}));
    let mut sessions: Vec<Value> = listed["sessions"].as_array().unwrap().clone();
    for s in &mut sessions {
        let updated = s.as_object_mut().unwrap().remove("updatedAt");
        assert!(updated.is_some_and(|t| t.as_str().is_some_and(|t| t.ends_with('Z'))));
    }
    let title: String = format!("there {}", "word ".repeat(100))
        .chars()
        .take(255)
        .chain(['…'])
        .collect();
    // Newest first.
    assert_eq!(
        sessions,
        [
            json!({"sessionId": there, "cwd": other, "title": title}),
            json!({"sessionId": here, "cwd": env.cwd(), "title": "here"}),
        ]
    );
}

/// The mode and the model as the adapter offers them, two selects; a model
/// chosen applies from the next turn, a mode is heard as `session/set_mode`'s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mode_and_the_model_are_config_options() {
    let env = Env::new(Script::new([Reply::text("quick")])).await;
    let mut client = tack_acp(&env);
    initialize(&mut client);
    let params = json!({"cwd": env.cwd(), "mcpServers": []});
    let (opened, _, _) = open(&mut client, "session/new", params);
    let session = opened["sessionId"].as_str().unwrap().to_owned();
    let values = |option: &Value| -> Vec<String> {
        (option["options"].as_array().unwrap().iter())
            .map(|o| o["value"].as_str().unwrap().to_owned())
            .take(5)
            .collect()
    };
    let options = opened["configOptions"].as_array().unwrap();
    let shown: Vec<(&Value, &Value, &Value, &Value)> = (options.iter())
        .map(|o| (&o["id"], &o["type"], &o["category"], &o["currentValue"]))
        .collect();
    assert_eq!(
        shown,
        [
            (
                &json!("mode"),
                &json!("select"),
                &json!("mode"),
                &json!("default")
            ),
            (
                &json!("model"),
                &json!("select"),
                &json!("model"),
                &json!("default")
            ),
        ]
    );
    assert_eq!(
        values(&options[0]),
        ["default", "acceptEdits", "plan", "auto", "dontAsk"]
    );
    assert_eq!(
        values(&options[1])[..4],
        ["default", "sonnet", "opus", "haiku"]
    );

    let set = |config: &str, value: &str| json!({"sessionId": session, "configId": config, "value": value});
    let (answer, _) = client.call("session/set_config_option", set("model", "haiku"));
    assert_eq!(answer["configOptions"][1]["currentValue"], "haiku");
    let (answer, heard) = client.call("session/set_config_option", set("mode", "plan"));
    assert_eq!(answer["configOptions"][0]["currentValue"], "plan");
    assert_eq!(
        heard.updates,
        [json!({"sessionUpdate": "current_mode_update", "currentModeId": "plan"})]
    );
    for (config, value, why) in [
        ("model", "gpt", "Invalid value for config option model: gpt"),
        ("colour", "red", "Unknown config option: colour"),
    ] {
        let id = client.request("session/set_config_option", set(config, value));
        let answer = client.answer_to(id, &mut Heard::default(), allow);
        assert_eq!(answer["error"]["message"], why, "{answer}");
    }
    let (answer, _) = client.call("session/prompt", prompt("hi", &session));
    assert_eq!(answer, json!({"stopReason": "end_turn"}));
    let model = env.request_bodies().last().unwrap()["model"].clone();
    assert!(
        model.as_str().is_some_and(|m| m.contains("haiku")),
        "{model}"
    );
}
