//! End-to-end: Monitor's `ws` turns a WebSocket's frames into events the
//! model answers (a WebSocket server in the test, over 127.0.0.1), a close
//! frame ends it, a refused connection is a clear error, and its host meets
//! the WebFetch domain rules.

use futures::{SinkExt, StreamExt};
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_runtime::schedule::ManualClock;
use tack_runtime::{SessionChoice, UserInput};
use tack_testkit::{Reply, Script};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use crate::common::{Env, last_texts, last_tool_results};
use crate::monitor::user_rules;
use crate::schedule::{session, start_time};

/// A WebSocket server for one client: it sends each batch of frames the
/// test hands it, then closes when the channel does.
async fn server() -> (String, mpsc::UnboundedSender<Vec<Message>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/feed", listener.local_addr().unwrap());
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<Message>>();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        tcp.set_nodelay(true).unwrap();
        let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        while let Some(frames) = rx.recv().await {
            for frame in frames {
                ws.send(frame).await.unwrap();
            }
        }
        // Read until the client's reply to the close.
        while let Some(Ok(_)) = ws.next().await {}
    });
    (url, tx)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_websockets_frames_become_events_and_its_close_ends_the_monitor() {
    let (url, frames) = server().await;
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use("t1", "Monitor", json!({"description": "feed", "ws": url}))
            .into(),
        Reply::text("Watching the feed."),
        Reply::text("Two lines and 3 bytes."),
        Reply::text("The feed closed."),
    ]))
    .await;
    user_rules(&env, json!({"allow": ["WebFetch(domain:127.0.0.1)"]}));
    let clock = ManualClock::new(start_time());
    let mut s = session(&env, &clock, SessionChoice::New { id: None }, &[]).await;
    s.handle.submit(UserInput::text("watch the feed")).unwrap();
    assert_eq!(s.turn().await, "Watching the feed.");
    let started = last_tool_results(&env.request_bodies()[1]);
    let id = started[0].1["Monitor ".len().."Monitor ".len() + 9].to_owned();
    assert_eq!(
        started,
        [(
            "t1".to_owned(),
            format!(
                "Monitor {id} started: feed. Each line of a frame arrives as a <monitor-event> message; it stops after 300s, when the socket closes, or with TaskStop {id}."
            )
        )]
    );
    let event = |body: &str| {
        format!("<monitor-event task_id=\"{id}\" description=\"feed\">\n{body}\n</monitor-event>")
    };
    // A text frame's lines, and a binary frame by its size, in one batch.
    frames
        .send(vec![
            Message::text("first\nsecond"),
            Message::binary(vec![1u8, 2, 3]),
        ])
        .unwrap();
    assert_eq!(s.turn().await, "Two lines and 3 bytes.");
    assert_eq!(
        last_texts(&env.request_bodies()[2]),
        [event("first\nsecond\n<binary frame, 3 bytes>")]
    );
    // A close frame ends it with its code and reason.
    frames
        .send(vec![Message::Close(Some(CloseFrame {
            code: CloseCode::Library(4000),
            reason: "done".into(),
        }))])
        .unwrap();
    assert_eq!(s.turn().await, "The feed closed.");
    assert_eq!(
        last_texts(&env.request_bodies()[3]),
        [event(
            "[The WebSocket was closed (code 4000: done); the monitor has ended.]"
        )]
    );
    s.end().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_connection_is_an_error_and_a_webfetch_deny_rule_refuses_the_host() {
    // A port nobody listens on (bound, then let go).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let closed = format!("ws://127.0.0.1:{port}/");
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use(
                "t1",
                "Monitor",
                json!({"description": "feed", "ws": closed}),
            )
            .tool_use(
                "t2",
                "Monitor",
                json!({"description": "other", "ws": "ws://blocked.example/feed"}),
            )
            .into(),
        Reply::text("Neither started."),
    ]))
    .await;
    user_rules(
        &env,
        json!({"allow": ["Monitor"], "deny": ["WebFetch(domain:blocked.example)"]}),
    );
    let clock = ManualClock::new(start_time());
    let mut s = session(&env, &clock, SessionChoice::New { id: None }, &[]).await;
    s.handle.submit(UserInput::text("watch")).unwrap();
    assert_eq!(s.turn().await, "Neither started.");
    let denied = format!(
        "Permission to use WebFetch has been denied by rule `WebFetch(domain:blocked.example)` (userSettings) in {}",
        env.claude_dir().join("settings.json").display()
    );
    assert_eq!(
        last_tool_results(&env.request_bodies()[1]),
        [
            (
                "t1".to_owned(),
                format!(
                    "<tool_use_error>Could not connect to {closed}: Connection refused (os error 111)</tool_use_error>"
                )
            ),
            ("t2".to_owned(), denied),
        ]
    );
    s.end().await;
}
