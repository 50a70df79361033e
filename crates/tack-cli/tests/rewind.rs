//! End to end: `/rewind`'s Esc Esc in the real `tack` binary in a pty: the
//! picker, a code and conversation restore, and a resume afterwards that
//! continues the rewound conversation.

use crate::common;
use crate::interactive::{WAIT, tack, turn_over};

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_testkit::{Reply, Script};
use tack_tui::testing::keys;

/// Two presses of Esc, apart enough (from each other and from what comes
/// next) not to read as Alt+Esc or Alt+key.
fn esc_esc(pty: &mut tack_tui::testing::PtySession) {
    for _ in 0..2 {
        pty.send(keys::ESC).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(150));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_esc_restores_code_and_conversation_and_a_resume_goes_on_from_there() {
    let env = Env::new(Script::new([
        Reply::text("Hello there."),
        Reply::message()
            .text("I will write a.txt.")
            .tool_use(
                "toolu_1",
                "Write",
                json!({"file_path": "a.txt", "content": "hello\n"}),
            )
            .into(),
        Reply::text("Written a.txt."),
        Reply::text("After the rewind."),
        Reply::text("Resumed after the rewind."),
    ]))
    .await;
    env.trust();
    let mut pty = tack(&env, 100, 30);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    pty.send(b"say hello\r").unwrap();
    turn_over(&mut pty, "Hello there.");
    pty.send(b"please write a.txt\r").unwrap();
    pty.wait_for_text("Do you want to proceed?", WAIT).unwrap();
    pty.send(b"1").unwrap();
    turn_over(&mut pty, "Written a.txt.");
    assert!(env.cwd().join("a.txt").exists());

    // Esc Esc on the empty prompt: the prompts, newest selected.
    esc_esc(&mut pty);
    pty.wait_for_text("Restore the code and/or conversation", WAIT)
        .unwrap();
    // Each row says what its prompt's turn changed.
    let screen = pty.screen_text();
    assert!(
        screen.contains("│   say hello  · no code changes")
            && screen.contains("│ ❯ please write a.txt  · a.txt"),
        "{screen}"
    );
    pty.send(keys::ENTER).unwrap();
    pty.wait_for_text("Restore code and conversation", WAIT)
        .unwrap();
    let screen = pty.screen_text();
    assert!(
        screen.contains("The code will be restored: 1 file changed (+0 -1)")
            && screen.contains("  a.txt"),
        "{screen}"
    );
    pty.send(keys::ENTER).unwrap();
    // The code notice comes last; the prompt is back in the input.
    pty.wait_until("the rewind shown", WAIT, |s| {
        let c = s.contents();
        c.contains("Restored the code: 1 file (+0 -1).") && c.contains("> please write a.txt")
    })
    .unwrap();
    // The file is gone, the later messages are off the screen.
    assert!(!env.cwd().join("a.txt").exists());
    let screen = pty.screen_text();
    assert!(!screen.contains("Written a.txt."), "{screen}");
    assert!(screen.contains("Hello there."), "{screen}");
    assert!(screen.contains("Rewound the conversation."), "{screen}");

    // The prompt edited and sent again.
    esc_esc(&mut pty);
    pty.send(b"do something else\r").unwrap();
    turn_over(&mut pty, "After the rewind.");
    pty.send(b"/exit\r").unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());

    let requests = env.server.requests();
    assert_eq!(
        requests[3].message_texts(),
        ["say hello", "Hello there.", "do something else"]
    );
    // A resume shows the rewound conversation.
    env.tack()
        .args(["-p", "--continue", "and now?"])
        .assert()
        .success();
    let requests = env.server.requests();
    assert_eq!(
        requests[4].message_texts(),
        [
            "say hello",
            "Hello there.",
            "do something else",
            "After the rewind.",
            "and now?"
        ]
    );
}
