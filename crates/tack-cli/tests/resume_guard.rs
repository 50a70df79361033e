//! `--resume-drops-turn` (the SDKs' `resume_drops_turn`): a truncating resume
//! goes ahead only when everything it cuts is the one turn the caller named.

use crate::common;

use common::{Env, stderr, stdout};
use pretty_assertions::assert_eq;
use serde_json::Value;
use tack_testkit::{Reply, Script};

/// (uuid, type, text) of each record of the session's transcript.
fn records(env: &Env) -> Vec<(String, String, String)> {
    let path = &env.transcripts()[0];
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["uuid"].is_string())
        .map(|r| {
            let content = &r["message"]["content"];
            let text = content
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| content[0]["text"].as_str().unwrap_or_default().to_owned());
            (
                r["uuid"].as_str().unwrap().to_owned(),
                r["type"].as_str().unwrap().to_owned(),
                text,
            )
        })
        .collect()
}

fn uuid_of(records: &[(String, String, String)], kind: &str, text: &str) -> String {
    records
        .iter()
        .find(|(_, k, t)| k == kind && t == text)
        .unwrap_or_else(|| panic!("no {kind} `{text}` in {records:?}"))
        .0
        .clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_truncating_resume_drops_only_the_named_turn() {
    let env = Env::new(Script::new([
        Reply::text("answer one"),
        Reply::text("answer two"),
        Reply::text("answer three"),
        Reply::text("branched"),
    ]))
    .await;
    let out = env.tack().args(["-p", "one"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    for prompt in ["two", "three"] {
        let out = env
            .tack()
            .args(["-p", prompt, "--continue"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let recs = records(&env);
    let sid = env.transcripts()[0]
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let end_of_one = uuid_of(&recs, "assistant", "answer one");
    let end_of_two = uuid_of(&recs, "assistant", "answer two");
    let (two, three) = (
        uuid_of(&recs, "user", "two"),
        uuid_of(&recs, "user", "three"),
    );
    let resume = |at: &str, drops: &str| {
        env.tack()
            .args(["-p", "again", "--resume", &sid, "--fork-session"])
            .args(["--resume-session-at", at, "--resume-drops-turn", drops])
            .output()
            .unwrap()
    };

    // Cutting after turn one would drop turns two *and* three: refused,
    // nothing sent.
    let out = resume(&end_of_one, &two);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim_end(),
        format!(
            "Error: Resume rejected by --resume-drops-turn: the records cut off hold another \
             prompt (`{three}`) besides `{two}`'s turn"
        )
    );
    // Naming a prompt that is not the next one: refused too.
    let out = resume(&end_of_two, &two);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim_end(),
        format!(
            "Error: Resume rejected by --resume-drops-turn: the record after `{end_of_two}` is \
             `{three}`, not the prompt `{two}`"
        )
    );
    assert_eq!(env.request_bodies().len(), 3);

    // Exactly turn three cut: the resume goes ahead from turn two.
    let out = resume(&end_of_two, &three);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "branched\n");
    let sent = env.request_bodies().pop().unwrap()["messages"].to_string();
    assert!(
        sent.contains("answer two") && !sent.contains("answer three"),
        "{sent}"
    );
}
