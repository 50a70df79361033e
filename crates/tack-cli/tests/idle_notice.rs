//! `SendMessage`'s `notify_when_idle` through the `tack` binary: session A
//! messages session B asking to be told; B reads the message, answers, goes
//! idle, and A is woken by one `idle_notification` from B; a later turn of B
//! sends no second notice.

use std::io::Write;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::common;
use crate::teams::{tack_on, wait_for};

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{MockServer, Reply, Script};

const SESSION_A: &str = "aaaaaaaa-0000-4000-8000-00000000000a";
const SESSION_B: &str = "bbbbbbbb-0000-4000-8000-00000000000b";

fn say(session: &mut Child, text: &str) {
    let stdin = session.stdin.as_mut().unwrap();
    writeln!(stdin, "{}", common::user_line(text)).unwrap();
}

fn stream_session(env: &Env, server: &MockServer, id: &str) -> Child {
    tack_on(env, server, &[])
        .args(common::STREAM_JSON)
        .args(["--session-id", id])
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_asking_to_be_told_gets_one_notice_when_the_other_next_goes_idle() {
    let env = Env::new(Script::new([
        Reply::text("B ready"),
        Reply::text("B read the note"),
        Reply::text("B again"),
    ]))
    .await;
    let a_server = MockServer::start(Script::new([
        Reply::tool_use(
            "toolu_send",
            "SendMessage",
            json!({"to": SESSION_B, "summary": "a note", "message": "please look", "notify_when_idle": true}),
        ),
        Reply::text("A sent it"),
        Reply::text("A heard B is idle"),
    ]))
    .await
    .unwrap();
    let mut b = stream_session(&env, &env.server, SESSION_B);
    say(&mut b, "start");
    wait_for("B's first turn", || env.server.requests().len() == 1).await;
    let mut a = stream_session(&env, &a_server, SESSION_A);
    say(&mut a, "send it");
    wait_for("A woken by B's notice", || a_server.requests().len() == 3).await;
    // One-shot: B's next turn tells A nothing more.
    say(&mut b, "again");
    wait_for("B's third turn", || env.server.requests().len() == 3).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(a_server.requests().len(), 3);
    drop(a.stdin.take());
    drop(b.stdin.take());
    assert!(a.wait().unwrap().success());
    assert!(b.wait().unwrap().success());

    let a_requests: Vec<Value> = a_server.requests().into_iter().map(|r| r.body).collect();
    let sent = common::last_tool_results(&a_requests[1]);
    assert!(
        sent[0]
            .1
            .ends_with("; you will be told once when it next goes idle (within 12 hours)"),
        "{sent:?}"
    );
    let heard = common::last_texts(&a_requests[2]);
    assert_eq!(heard.len(), 1, "{heard:?}");
    let (from, body) = heard[0]
        .strip_prefix("<cross-session-message from=\"")
        .and_then(|rest| rest.split_once("\">\n"))
        .unwrap();
    let b_socket = env.claude_dir().join("sessions");
    assert!(
        from.starts_with(&format!("uds:{}", b_socket.display())),
        "{from}"
    );
    let notice: Value =
        serde_json::from_str(body.strip_suffix("\n</cross-session-message>").unwrap()).unwrap();
    assert_eq!(
        notice,
        json!({"type": "idle_notification", "from": SESSION_B, "idleReason": "available",
               "timestamp": notice["timestamp"]})
    );
    let b_read = common::last_texts(&env.request_bodies()[1]);
    assert!(
        b_read[0].ends_with("\">\nplease look\n</cross-session-message>"),
        "{b_read:?}"
    );
}
