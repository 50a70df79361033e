//! End to end: permission modes in the terminal UI (a real `tack` in a
//! pseudo-terminal): Shift+Tab's cycle through auto mode, the notice of the
//! first switch to it, and the modes' names in `/status` and `/permissions`.

use crate::common;
use crate::interactive::{WAIT, tack};

use common::Env;
use tack_testkit::Script;
use tack_tui::testing::{PtySession, keys};

const INTRO: &str = "Auto mode is on: a classifier model decides";

/// Shift+Tab once per footer, each waited for.
fn shift_tabs(pty: &mut PtySession, footers: &[&str]) {
    for footer in footers {
        pty.send(keys::SHIFT_TAB).unwrap();
        if pty.wait_for_text(footer, WAIT).is_err() {
            panic!("no {footer:?} in {:#?}", pty.all_rows());
        }
    }
}

fn times(pty: &mut PtySession, text: &str) -> usize {
    pty.all_rows().iter().filter(|r| r.contains(text)).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shift_tab_reaches_auto_mode_which_is_introduced_once() {
    let env = Env::new(Script::new([])).await;
    env.trust();
    let mut pty = tack(&env, 100, 40);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    shift_tabs(
        &mut pty,
        &[
            "accept edits on",
            "plan mode on",
            "auto mode on (shift+tab to cycle)",
        ],
    );
    if pty
        .wait_for_text(INTRO, std::time::Duration::from_secs(3))
        .is_err()
    {
        panic!("{:#?}", pty.all_rows());
    }
    // Back to Manual (bypass is not offered: the session does not allow it).
    shift_tabs(&mut pty, &["Manual mode: actions no rule allows ask first"]);
    pty.send(b"/status\r").unwrap();
    pty.wait_for_text("Permission mode:  Manual", WAIT).unwrap();
    // Auto again: no second notice.
    shift_tabs(
        &mut pty,
        &["accept edits on", "plan mode on", "auto mode on"],
    );
    pty.send(b"/permissions\r").unwrap();
    pty.wait_for_text("Permission mode: Auto (Shift+Tab changes it)", WAIT)
        .unwrap();
    pty.wait_for_text("Auto mode: no decisions yet.", WAIT)
        .unwrap();
    assert_eq!(times(&mut pty, INTRO), 1, "{:#?}", pty.all_rows());
    pty.send(keys::CTRL_D).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skip_auto_permission_prompt_keeps_the_switch_quiet() {
    let env = Env::new(Script::new([])).await;
    common::write(
        env.claude_dir().join("settings.json"),
        r#"{"skipAutoPermissionPrompt": true}"#,
    );
    env.trust();
    let mut pty = tack(&env, 100, 30);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    shift_tabs(
        &mut pty,
        &["accept edits on", "plan mode on", "auto mode on"],
    );
    // The runtime has answered the switch by the time it answers /status.
    pty.send(b"/status\r").unwrap();
    pty.wait_for_text("Permission mode:  Auto", WAIT).unwrap();
    // The switch's answer and /status' come back through separate tasks.
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(times(&mut pty, INTRO), 0, "{:#?}", pty.all_rows());
    pty.send(keys::CTRL_D).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());
}
