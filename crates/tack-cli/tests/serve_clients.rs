//! Several clients on one served session (`tack --serve SOCKET`) at once:
//! each gets every event; a reply goes only to the client that asked, under
//! its own op id (every `SessionClient` counts from `c1`); an ask one client
//! answers is withdrawn at the others; a prompt one client submits reaches
//! the others; a client that attaches mid-turn gets the live turn; and
//! `serve::attach` drives the session as an in-process `RuntimeHandle` and
//! `RuntimeEvents` would, detaching by being dropped.

use std::time::Duration;

use tack_runtime::serve::{Frame, SessionClient, attach};
use tack_runtime::{
    AskAnswer, InterruptOutcome, LoopEvent, Op, PermissionAnswer, Reply as OpReply, RuntimeEvent,
    SessionState, UserInput,
};

use crate::common::Env;
use crate::serve::{is_event, script, serve, until};

/// Remote events until `last` says stop (that one included); fails after 30 s.
async fn events_until(
    events: &mut tack_runtime::RuntimeEvents,
    last: impl Fn(&RuntimeEvent) -> bool,
) -> Vec<RuntimeEvent> {
    let mut seen = Vec::new();
    let read = async {
        while let Some(event) = events.next().await {
            let done = last(&event);
            seen.push(event);
            if done {
                return true;
            }
        }
        false
    };
    match tokio::time::timeout(Duration::from_secs(30), read).await {
        Ok(true) => seen,
        Ok(false) => panic!("the connection closed: {seen:?}"),
        Err(_) => panic!("no such event within 30 s: {seen:?}"),
    }
}

fn prompt_of(event: &RuntimeEvent) -> Option<String> {
    match event {
        RuntimeEvent::Input(input) => Some(input.message.text()),
        _ => None,
    }
}

#[tokio::test]
async fn several_clients_drive_one_served_session_at_once() {
    let env = Env::new(script()).await;
    let (mut served, socket) = serve(&env).await;

    let attached = |f: &Frame| matches!(f, Frame::Attached(_));
    let mut a = SessionClient::connect(&socket).await.unwrap();
    until(&mut a, attached).await;
    let mut b = SessionClient::connect(&socket).await.unwrap();
    until(&mut b, attached).await;
    let mut remote = attach(&socket).await.unwrap();
    assert_eq!(remote.attached.asks, vec![]);

    // A's prompt reaches B and the remote pair; the ask goes to everyone.
    a.send(Op::Submit(UserInput::text("make a file")))
        .await
        .unwrap();
    let asked = |e: &RuntimeEvent| matches!(e, RuntimeEvent::PermissionRequest(_));
    let at_a = until(&mut a, |f| is_event(f, asked)).await;
    let at_b = until(&mut b, |f| is_event(f, asked)).await;
    let at_remote = events_until(&mut remote.events, asked).await;
    let inputs = |frames: &[Frame]| -> Vec<String> {
        frames
            .iter()
            .filter_map(|f| match f {
                Frame::Event(e) => prompt_of(e),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        inputs(&at_a),
        Vec::<String>::new(),
        "not echoed to its sender"
    );
    assert_eq!(inputs(&at_b), vec!["make a file".to_owned()]);
    assert_eq!(
        at_remote.iter().filter_map(prompt_of).collect::<Vec<_>>(),
        vec!["make a file".to_owned()]
    );
    let Some(RuntimeEvent::PermissionRequest(request)) = at_remote.last() else {
        unreachable!()
    };

    // The remote pair answers: the others see the ask withdrawn.
    let answer = AskAnswer::Permission(PermissionAnswer::allow());
    remote.events.answer(request.id, answer).unwrap();
    let ended = |e: &RuntimeEvent| matches!(e, RuntimeEvent::TurnEnded(_));
    for client in [&mut a, &mut b] {
        let seen = until(client, |f| is_event(f, ended)).await;
        let withdrawn = Frame::Event(RuntimeEvent::AskWithdrawn { id: request.id });
        assert!(seen.contains(&withdrawn), "{seen:?}");
    }
    let seen = events_until(&mut remote.events, ended).await;
    let Some(RuntimeEvent::TurnEnded(end)) = seen.last() else {
        unreachable!()
    };
    assert_eq!(end.record.result.as_deref(), Some("made it"));
    assert!(env.cwd().join("made.txt").exists());

    // B's first op is `c1`, as A's was: the reply goes to B alone.
    let asked_for = b.send(Op::Conversation).await.unwrap();
    assert_eq!(asked_for.0, "c1");
    let replied = |e: &RuntimeEvent| matches!(e, RuntimeEvent::Reply { .. });
    let seen = until(&mut b, |f| is_event(f, replied)).await;
    let Some(Frame::Event(RuntimeEvent::Reply { id, reply })) = seen.last() else {
        unreachable!()
    };
    assert_eq!(id, &asked_for);
    assert!(
        matches!(&**reply, OpReply::Conversation(m) if m.len() == 4),
        "{reply:?}"
    );
    // Through the remote handle, a reply is the call's result.
    let messages = remote.handle.conversation().await.unwrap();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[0].text(), "make a file");

    // A client that attaches mid-turn gets the live turn so far.
    remote
        .handle
        .submit(UserInput::text("take your time"))
        .unwrap();
    let streamed = |e: &RuntimeEvent| matches!(e, RuntimeEvent::Loop(LoopEvent::Stream(_)));
    events_until(&mut remote.events, streamed).await;
    let mut late = SessionClient::connect(&socket).await.unwrap();
    let seen = until(&mut late, attached).await;
    let Some(Frame::Attached(late_attached)) = seen.last() else {
        unreachable!()
    };
    assert_eq!(late_attached.state, Some(SessionState::Running));
    assert_eq!(late_attached.asks, vec![]);
    let kinds: Vec<&str> = late_attached
        .turn
        .iter()
        .map(|e| match e {
            RuntimeEvent::SessionState(_) => "state",
            RuntimeEvent::Loop(LoopEvent::RequestStart { .. }) => "request",
            RuntimeEvent::Loop(LoopEvent::Stream(_)) => "stream",
            RuntimeEvent::Input(_) => "input",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds.first(), Some(&"state"), "{kinds:?}");
    assert!(kinds.contains(&"stream"), "{kinds:?}");
    assert!(
        !kinds.contains(&"input"),
        "the prompt is on disk: {kinds:?}"
    );
    assert!(!kinds.contains(&"other"), "{kinds:?}");

    // Interrupted through the remote handle; its reply is the call's result.
    let outcome = remote.handle.interrupt().await.unwrap();
    assert_eq!(outcome, InterruptOutcome::Interrupted);
    let seen = until(&mut late, |f| is_event(f, ended)).await;
    assert!(
        !seen.iter().any(|f| is_event(f, replied)),
        "another client's reply: {seen:?}"
    );

    // Dropping the remote pair detaches; the session goes on.
    drop(remote);
    a.send(Op::EndInput { wait_ceiling: None }).await.unwrap();
    let gone = |e: &RuntimeEvent| matches!(e, RuntimeEvent::Ended);
    for client in [&mut a, &mut b, &mut late] {
        until(client, |f| is_event(f, gone)).await;
        assert_eq!(client.next().await.unwrap(), None);
    }
    let status = tokio::task::spawn_blocking(move || served.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success());
}
