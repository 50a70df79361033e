//! A session's messaging socket and registry entry: a peer with the token
//! is heard, one without it is not, and a registry lists entries in Claude
//! Code's shape (another tool's unreadable file is skipped, not fatal).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::json;
use tack_runtime::teams::files::sessions::{self, SessionEntry};
use tack_runtime::teams::peer::{self, Incoming, Outgoing};
use tokio::io::AsyncWriteExt;

fn entry(pid: u32, socket: &std::path::Path) -> SessionEntry {
    serde_json::from_value(json!({
        "pid": pid, "sessionId": format!("s-{pid}"), "cwd": "/p", "startedAt": pid,
        "procStart": "Thu Jun 11 21:53:36 2026", "peerProtocol": 1, "kind": "interactive",
        "entrypoint": "cli", "messagingSocketPath": socket, "status": "idle"
    }))
    .unwrap()
}

#[tokio::test]
async fn a_peer_with_the_token_is_heard_and_one_without_it_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("sessions/1.sock");
    let heard = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&heard);
    let task = peer::listen(
        &socket,
        "secret".into(),
        Arc::new(move |m: Incoming| sink.lock().unwrap().push(m)),
    )
    .unwrap();

    let says = |from, text, notify_when_idle| Outgoing {
        from,
        text,
        notify_when_idle,
    };
    peer::send(&socket, "wrong", says("uds:/x.sock", "let me in", false))
        .await
        .unwrap();
    // Claude Code's own line: no `from`, content as blocks.
    let mut raw = tokio::net::UnixStream::connect(&socket).await.unwrap();
    let lines = "{\"type\":\"auth\",\"token\":\"secret\"}\n{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"from claude\"}]}}\n";
    raw.write_all(lines.as_bytes()).await.unwrap();
    raw.shutdown().await.unwrap();
    peer::send(&socket, "secret", says("uds:/a.sock", "hello", false))
        .await
        .unwrap();
    peer::send(&socket, "secret", says("uds:/b.sock", "tell me", true))
        .await
        .unwrap();
    for _ in 0..400 {
        if heard.lock().unwrap().len() == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut got = heard.lock().unwrap().clone();
    got.sort_by(|a, b| a.text.cmp(&b.text));
    assert_eq!(
        got,
        [
            Incoming {
                from: "unknown".into(),
                text: "from claude".into(),
                notify_when_idle: false,
            },
            Incoming {
                from: "uds:/a.sock".into(),
                text: "hello".into(),
                notify_when_idle: false,
            },
            Incoming {
                from: "uds:/b.sock".into(),
                text: "tell me".into(),
                notify_when_idle: true,
            },
        ]
    );
    task.abort();
}

#[test]
fn the_registry_is_claude_codes_and_tolerates_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let claude = dir.path();
    let mine = entry(42, &claude.join("sessions/42.sock"));
    let (entry_path, key_path) = sessions::register(claude, &mine, "ab12", "tok").unwrap();
    assert_eq!(
        (
            entry_path.file_name().unwrap(),
            key_path.file_name().unwrap()
        ),
        (
            std::ffi::OsStr::new("42.json"),
            std::ffi::OsStr::new("42.ab12.key")
        )
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&key_path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let on_disk: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&entry_path).unwrap()).unwrap();
    assert_eq!(on_disk["procStart"], json!("Thu Jun 11 21:53:36 2026"));
    std::fs::write(claude.join("sessions/7.json"), "{torn").unwrap();
    std::fs::write(claude.join("sessions/notes.json"), "{}").unwrap();
    let (entries, bad) = sessions::list(claude);
    assert_eq!(entries, [mine]);
    assert_eq!(bad.len(), 1);
    assert!(bad[0].to_string().contains("7.json"), "{}", bad[0]);
    assert_eq!(sessions::token(claude, 42).unwrap(), "tok");
}

#[tokio::test]
async fn a_watched_inbox_hands_on_what_was_waiting_and_what_arrives() {
    use tack_runtime::teams::files::inbox::{self, InboxMessage};
    use tack_runtime::teams::watch::watch_inbox;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("teams/t/inboxes/lead.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    inbox::append(&path, InboxMessage::new("a", "waiting".into(), None)).unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let task = watch_inbox(
        path.clone(),
        Arc::new(move |taken| {
            for m in taken.unwrap() {
                tx.send(m.text).unwrap();
            }
        }),
    )
    .unwrap();
    let first = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .unwrap();
    inbox::append(&path, InboxMessage::new("b", "arrived".into(), None)).unwrap();
    let second = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .unwrap();
    assert_eq!(
        (first.unwrap(), second.unwrap()),
        ("waiting".into(), "arrived".into())
    );
    assert!(inbox::read_all(&path).unwrap().iter().all(|m| m.read));
    task.abort();
}

#[tokio::test]
async fn a_broadcast_reaches_every_other_member_and_an_unknown_name_says_who_is_reachable() {
    use tack_runtime::teams::files::config::{self, LeadFacts, TeamConfig};
    use tack_runtime::teams::files::place::TeamDir;
    use tack_runtime::teams::route::{self, Route};
    use tack_runtime::teams::session::{Member, Messaging};
    let dir = tempfile::tempdir().unwrap();
    let team = TeamDir::new(dir.path(), "crew").unwrap();
    let lead = LeadFacts {
        model: "m".into(),
        cwd: "/p".into(),
    };
    config::update(
        &team,
        || TeamConfig::new("crew", "", "s", lead),
        |c| {
            for name in ["ann", "ben"] {
                let mut m = c.members[0].clone();
                m.name = name.into();
                c.members.push(m);
            }
        },
    )
    .unwrap();
    let me = Member {
        team: team.clone(),
        agent: "ann".into(),
        color: None,
    };
    let ann = Messaging::teammate(dir.path().to_path_buf(), "s".into(), me);
    match route::resolve(&ann, "*").await.unwrap() {
        Route::Inboxes { agents, .. } => assert_eq!(agents, ["team-lead", "ben"]),
        other => panic!("{other:?}"),
    }
    let unknown = route::resolve(&ann, "zed").await.unwrap_err();
    assert_eq!(
        unknown,
        "No agent or session named \"zed\"; reachable: team-lead, ben"
    );
}
