//! End-to-end: Monitor's `ws` turns a WebSocket's frames into events the
//! model answers (a WebSocket server in the test, over 127.0.0.1), a close
//! frame ends it, a refused connection is a clear error, its host meets the
//! WebFetch domain rules, and it connects as the session's connections do:
//! through the proxy `HTTP_PROXY` names (an HTTP CONNECT proxy in the test)
//! unless `NO_PROXY` names the host, and with the sandbox on through the
//! sandbox's proxy, whose `allowedDomains` / `deniedDomains` decide it, or
//! through the user's SOCKS5 proxy when `socksProxyPort` is its only way out
//! (the other proxy kinds: `tack-tools` `tunnel_proxy_tests`).

use futures::{SinkExt, StreamExt};

use pretty_assertions::assert_eq;
use serde_json::json;
use tack_testkit::{Reply, Script};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use crate::common::{Env, last_texts, last_tool_results, write};
use crate::monitor::{event, monitor_id, prompted, started, user_rules};

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
    let mut s = prompted(&env, &[], "watch the feed", "Watching the feed.").await;
    let results = last_tool_results(&env.request_bodies()[1]);
    let id = monitor_id(&results[0].1);
    assert_eq!(
        results,
        [(
            "t1".to_owned(),
            started(&id, "feed", "line of a frame", 300, "the socket closes")
        )]
    );
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
        [event(&id, "feed", "first\nsecond\n<binary frame, 3 bytes>")]
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
            &id,
            "feed",
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
    let s = prompted(&env, &[], "watch", "Neither started.").await;
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

#[tokio::test(flavor = "multi_thread")]
async fn a_websocket_goes_through_the_proxy_http_proxy_names_unless_no_proxy_names_its_host() {
    let (proxied, frames) = server().await;
    let (direct, _direct_frames) = server().await;
    let direct = direct.replace("127.0.0.1", "localhost");
    let (proxy, asked) = tack_testkit::proxies::connect_proxy().await;
    let proxy = format!("http://127.0.0.1:{proxy}");
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use("t1", "Monitor", json!({"description": "a", "ws": proxied}))
            .tool_use("t2", "Monitor", json!({"description": "b", "ws": direct}))
            .into(),
        Reply::text("Watching both."),
        Reply::text("A line through the proxy."),
    ]))
    .await;
    user_rules(&env, json!({"allow": ["Monitor"]}));
    let vars = [("HTTP_PROXY", proxy.as_str()), ("NO_PROXY", "localhost")];
    let mut s = prompted(&env, &vars, "watch", "Watching both.").await;
    let results = last_tool_results(&env.request_bodies()[1]);
    let ids: Vec<String> = results.iter().map(|(_, r)| monitor_id(r)).collect();
    let each = "line of a frame";
    assert_eq!(
        results,
        [
            (
                "t1".to_owned(),
                started(&ids[0], "a", each, 300, "the socket closes")
            ),
            (
                "t2".to_owned(),
                started(&ids[1], "b", each, 300, "the socket closes")
            ),
        ]
    );
    // Only the first went through the proxy: NO_PROXY names the second's host.
    let authority = proxied
        .trim_start_matches("ws://")
        .trim_end_matches("/feed");
    assert_eq!(*asked.lock().unwrap(), [format!("{authority} -")]);
    // Its frames come through the tunnel.
    frames.send(vec![Message::text("via the proxy")]).unwrap();
    assert_eq!(s.turn().await, "A line through the proxy.");
    assert_eq!(
        last_texts(&env.request_bodies()[2]),
        [event(&ids[0], "a", "via the proxy")]
    );
    s.end().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn with_the_sandbox_on_a_websocket_meets_its_allowed_and_denied_domains() {
    let (allowed, frames) = server().await;
    let denied = allowed.replace("127.0.0.1", "localhost");
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use("t1", "Monitor", json!({"description": "a", "ws": allowed}))
            .tool_use("t2", "Monitor", json!({"description": "b", "ws": denied}))
            .into(),
        Reply::text("One started."),
        Reply::text("A line through the sandbox's proxy."),
    ]))
    .await;
    write(
        env.claude_dir().join("settings.json"),
        &json!({
            "permissions": {"allow": ["Monitor"]},
            "sandbox": {"enabled": true, "network": {
                "allowedDomains": ["127.0.0.1"], "deniedDomains": ["localhost"]}},
        })
        .to_string(),
    );
    // The sandbox's way out, not the environment's proxy (nobody listens).
    let vars = [("HTTP_PROXY", "http://127.0.0.1:1")];
    let mut s = prompted(&env, &vars, "watch", "One started.").await;
    let results = last_tool_results(&env.request_bodies()[1]);
    let id = monitor_id(&results[0].1);
    let port = denied
        .trim_start_matches("ws://localhost:")
        .trim_end_matches("/feed");
    assert_eq!(
        results,
        [
            (
                "t1".to_owned(),
                started(&id, "a", "line of a frame", 300, "the socket closes")
            ),
            (
                "t2".to_owned(),
                format!(
                    "<tool_use_error>Could not connect to {denied}: sandbox: network access to localhost:{port} denied (denied by sandbox.network.deniedDomains)</tool_use_error>"
                )
            ),
        ]
    );
    frames.send(vec![Message::text("inside")]).unwrap();
    assert_eq!(s.turn().await, "A line through the sandbox's proxy.");
    assert_eq!(
        last_texts(&env.request_bodies()[2]),
        [event(&id, "a", "inside")]
    );
    s.end().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn with_only_a_socks_proxy_port_a_websocket_goes_through_the_users_socks_proxy() {
    let (url, frames) = server().await;
    let url = url.replace("127.0.0.1", "localhost");
    let (socks, asked) = tack_testkit::proxies::socks5_proxy(false).await;
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use("t1", "Monitor", json!({"description": "a", "ws": url}))
            .into(),
        Reply::text("Started."),
        Reply::text("A line through SOCKS."),
    ]))
    .await;
    write(
        env.claude_dir().join("settings.json"),
        &json!({
            "permissions": {"allow": ["Monitor"]},
            "sandbox": {"enabled": true, "network": {"socksProxyPort": socks}},
        })
        .to_string(),
    );
    let mut s = prompted(&env, &[], "watch", "Started.").await;
    let results = last_tool_results(&env.request_bodies()[1]);
    let id = monitor_id(&results[0].1);
    assert_eq!(
        results,
        [(
            "t1".to_owned(),
            started(&id, "a", "line of a frame", 300, "the socket closes")
        )]
    );
    // The relay named the host: the user's proxy resolves it.
    let authority = url.trim_start_matches("ws://").trim_end_matches("/feed");
    assert_eq!(*asked.lock().unwrap(), [format!("- {authority}")]);
    frames.send(vec![Message::text("via socks")]).unwrap();
    assert_eq!(s.turn().await, "A line through SOCKS.");
    assert_eq!(
        last_texts(&env.request_bodies()[2]),
        [event(&id, "a", "via socks")]
    );
    s.end().await;
}
