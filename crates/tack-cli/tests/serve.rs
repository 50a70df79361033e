//! A session served by one process (`tack --serve SOCKET`) and driven from
//! another (this test) over a Unix socket with the session protocol: a
//! prompt, a permission asked while a client was attached and answered by
//! the next one, detach and re-attach with the conversation read back, an
//! interrupt, a refused line, and the end.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
use tack_protocol::{ContentBlock, Role};
use tack_runtime::serve::{Frame, SessionClient};
use tack_runtime::{
    AskAnswer, InterruptOutcome, Op, PermissionAnswer, Reply as OpReply, RuntimeEvent, UserInput,
};
use tack_testkit::{Reply, Script};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::common::Env;

/// Frames until `last` says stop (that frame included); fails after 30 s.
pub async fn until(client: &mut SessionClient, last: impl Fn(&Frame) -> bool) -> Vec<Frame> {
    let mut seen = Vec::new();
    let read = async {
        while let Some(frame) = client.next().await.unwrap() {
            let done = last(&frame);
            seen.push(frame);
            if done {
                return true;
            }
        }
        false
    };
    match tokio::time::timeout(Duration::from_secs(30), read).await {
        Ok(true) => seen,
        Ok(false) => panic!("the server closed the connection: {seen:?}"),
        Err(_) => panic!("no such frame within 30 s: {seen:?}"),
    }
}

pub fn is_event(frame: &Frame, want: fn(&RuntimeEvent) -> bool) -> bool {
    matches!(frame, Frame::Event(event) if want(event))
}

pub async fn wait_for(path: &Path) {
    for _ in 0..500 {
        if path.exists() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{} never appeared", path.display());
}

/// A Bash call that asks, its answer, then an answer that stalls.
pub fn script() -> Script {
    Script::new([
        Reply::tool_use("toolu_1", "Bash", json!({"command": "touch made.txt"})),
        Reply::text("made it"),
        Reply::message()
            .text("a long answer")
            .stall_after(4, Duration::from_secs(60))
            .into(),
    ])
}

/// `tack --serve` in `env`'s project, and its socket once it is there.
pub async fn serve(env: &Env) -> (std::process::Child, PathBuf) {
    serve_with(env, &[]).await
}

/// `tack --serve` with more flags.
pub async fn serve_with(env: &Env, args: &[&str]) -> (std::process::Child, PathBuf) {
    let socket = env.home.path().join("session.sock");
    let served = std::process::Command::new(assert_cmd::cargo::cargo_bin("tack"))
        .env_clear()
        .envs(env.vars())
        .current_dir(env.cwd())
        .arg("--serve")
        .arg(&socket)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&socket).await;
    (served, socket)
}

/// A client that attaches and asks for a file; the frames until `last`.
async fn make_a_file(
    socket: &Path,
    last: fn(&RuntimeEvent) -> bool,
) -> (SessionClient, Vec<Frame>) {
    let mut client = SessionClient::connect(socket).await.unwrap();
    until(&mut client, |f| matches!(f, Frame::Attached(_))).await;
    client
        .send(Op::Submit(UserInput::text("make a file")))
        .await
        .unwrap();
    let seen = until(&mut client, |f| is_event(f, last)).await;
    (client, seen)
}

#[tokio::test]
async fn a_served_session_is_driven_detached_and_reattached_from_another_process() {
    let env = Env::new(script()).await;
    let (mut served, socket) = serve(&env).await;
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&socket).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    // A line that is no submission is refused; the connection goes on.
    let raw = tokio::net::UnixStream::connect(&socket).await.unwrap();
    let (read, mut write) = raw.into_split();
    let mut lines = BufReader::new(read).lines();
    write
        .write_all(b"{\"id\":\"1\",\"op\":\"dance\"}\n")
        .await
        .unwrap();
    let attached: Frame = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert!(matches!(attached, Frame::Attached(a) if a.info.is_none() && a.asks.is_empty()));
    let refused: Frame = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert!(matches!(refused, Frame::Invalid { .. }), "{refused:?}");
    drop((lines, write));

    // A prompt; its tool call asks for permission; the client leaves without
    // answering.
    let (client, seen) =
        make_a_file(&socket, |e| matches!(e, RuntimeEvent::PermissionRequest(_))).await;
    let Some(Frame::Event(RuntimeEvent::PermissionRequest(asked))) = seen.last() else {
        unreachable!()
    };
    assert_eq!(
        (asked.tool_name.as_str(), &asked.input),
        ("Bash", &json!({"command": "touch made.txt"}))
    );
    drop(client);

    // The next client is asked again, answers, and sees the turn end.
    let mut client = SessionClient::connect(&socket).await.unwrap();
    let attached = until(&mut client, |f| matches!(f, Frame::Attached(_))).await;
    let Some(Frame::Attached(attached)) = attached.last() else {
        unreachable!()
    };
    let info = attached.info.as_ref().expect("the session has started");
    assert_eq!(
        attached.asks,
        vec![RuntimeEvent::PermissionRequest(asked.clone())]
    );
    let answer = AskAnswer::Permission(PermissionAnswer::allow());
    let answered = client
        .send(Op::Answer {
            ask: asked.id,
            answer,
        })
        .await
        .unwrap();
    let seen = until(&mut client, |f| {
        is_event(f, |e| matches!(e, RuntimeEvent::TurnEnded(_)))
    })
    .await;
    assert!(seen.contains(&Frame::Event(RuntimeEvent::Reply {
        id: answered,
        reply: Box::new(OpReply::Answered(Ok(()))),
    })));
    let Some(Frame::Event(RuntimeEvent::TurnEnded(end))) = seen.last() else {
        unreachable!()
    };
    assert!(end.ok, "{end:?}");
    assert_eq!(end.record.result.as_deref(), Some("made it"));
    assert!(env.cwd().join("made.txt").exists());
    drop(client);

    // Re-attached, the conversation is there.
    let mut client = SessionClient::connect(&socket).await.unwrap();
    let attached = until(&mut client, |f| matches!(f, Frame::Attached(_))).await;
    let Some(Frame::Attached(again)) = attached.last() else {
        unreachable!()
    };
    assert_eq!(again.info.as_ref(), Some(info));
    assert_eq!(again.asks, vec![]);
    let asked_for = client.send(Op::Conversation).await.unwrap();
    let seen = until(&mut client, |f| {
        is_event(f, |e| matches!(e, RuntimeEvent::Reply { .. }))
    })
    .await;
    let Some(Frame::Event(RuntimeEvent::Reply { id, reply })) = seen.last() else {
        unreachable!()
    };
    assert_eq!(id, &asked_for);
    let OpReply::Conversation(messages) = &**reply else {
        panic!("{reply:?}")
    };
    let shape: Vec<(Role, Vec<String>)> = messages
        .iter()
        .map(|m| {
            let blocks = m.content.iter().map(|b| match b {
                ContentBlock::Text { text, .. } => format!("text {text}"),
                ContentBlock::ToolUse { name, .. } => format!("tool_use {name}"),
                ContentBlock::ToolResult { tool_use_id, .. } => format!("result {tool_use_id}"),
                other => format!("{other:?}"),
            });
            (m.role, blocks.collect())
        })
        .collect();
    assert_eq!(
        shape,
        vec![
            (Role::User, vec!["text make a file".to_owned()]),
            (Role::Assistant, vec!["tool_use Bash".to_owned()]),
            (Role::User, vec!["result toolu_1".to_owned()]),
            (Role::Assistant, vec!["text made it".to_owned()]),
        ]
    );

    // A slow answer, interrupted.
    client
        .send(Op::Submit(UserInput::text("take your time")))
        .await
        .unwrap();
    until(&mut client, |f| {
        is_event(f, |e| {
            matches!(e, RuntimeEvent::Loop(tack_runtime::LoopEvent::Stream(_)))
        })
    })
    .await;
    let interrupt = client.send(Op::Interrupt { receipt: None }).await.unwrap();
    let seen = until(&mut client, |f| {
        is_event(f, |e| matches!(e, RuntimeEvent::TurnEnded(_)))
    })
    .await;
    // The reply, then the interrupted turn's result (Claude Code's order).
    let ends: Vec<String> = seen
        .iter()
        .filter_map(|f| match f {
            Frame::Event(RuntimeEvent::Reply { id, reply }) => Some(format!("{id:?} {reply:?}")),
            Frame::Event(RuntimeEvent::TurnEnded(end)) => Some(format!("ended ok={}", end.ok)),
            _ => None,
        })
        .collect();
    assert_eq!(
        ends,
        [
            format!(
                "{interrupt:?} {:?}",
                OpReply::Interrupted(InterruptOutcome::Interrupted)
            ),
            "ended ok=false".to_owned()
        ]
    );

    // The end: the session's last event, then the server closes.
    client
        .send(Op::EndInput { wait_ceiling: None })
        .await
        .unwrap();
    until(&mut client, |f| {
        is_event(f, |e| matches!(e, RuntimeEvent::Ended))
    })
    .await;
    assert_eq!(client.next().await.unwrap(), None);
    let status = tokio::task::spawn_blocking(move || served.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success());
    assert!(!socket.exists(), "the socket is removed");
}

#[tokio::test]
async fn a_served_session_with_permission_prompts_none_refuses_what_would_ask() {
    let env = Env::new(script()).await;
    let (mut served, socket) = serve_with(&env, &["--permission-prompts", "none"]).await;
    let (client, seen) = make_a_file(&socket, |e| matches!(e, RuntimeEvent::TurnEnded(_))).await;
    let asked = seen
        .iter()
        .any(|f| is_event(f, |e| matches!(e, RuntimeEvent::PermissionRequest(_))));
    let denied: Vec<&str> = seen
        .iter()
        .filter_map(|f| match f {
            Frame::Event(RuntimeEvent::PermissionDenied(d)) => Some(d.tool_name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        (asked, denied, env.cwd().join("made.txt").exists()),
        (false, vec!["Bash"], false)
    );
    drop(client);
    served.kill().unwrap();
    served.wait().unwrap();
}
