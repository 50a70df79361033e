//! End to end: permission modes in the terminal UI (a real `tack` in a
//! pseudo-terminal): Shift+Tab's cycle through auto mode, the notice of the
//! first switch to it, a session where auto mode is off, the modes' names in
//! `/status` and `/permissions`, and `/permissions`' decisions view turning a
//! block of the (scripted) classifier into an allow rule.

use crate::common;
use crate::interactive::{WAIT, tack, tack_command, turn_over, write_reply};

use common::Env;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};
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

/// `tack --permission-mode auto` in a `cols` x `rows` terminal, in a trusted
/// git project, the classifier on `classifier`; started when its footer
/// shows auto mode.
pub(crate) fn tack_in_auto(env: &Env, classifier: &str, cols: u16, rows: u16) -> PtySession {
    std::fs::create_dir_all(env.cwd().join(".git")).unwrap();
    env.trust();
    let mut cmd = tack_command(env);
    cmd.env("CLAUDE_CODE_AUTO_MODE_MODEL", classifier);
    cmd.args(["--permission-mode", "auto"]);
    let mut pty = PtySession::spawn(cmd, cols, rows).unwrap();
    pty.wait_for_text("auto mode on (shift+tab to cycle)", WAIT)
        .unwrap();
    pty
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_auto_mode_off_shift_tab_skips_it_and_says_why_once() {
    let env = Env::new(Script::new([])).await;
    common::write(
        env.claude_dir().join("settings.json"),
        r#"{"permissions": {"disableAutoMode": "disable"}}"#,
    );
    env.trust();
    let mut pty = tack(&env, 100, 30);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    shift_tabs(&mut pty, &["accept edits on", "plan mode on"]);
    // Auto is asked for, refused, and the cycle moves on to Manual.
    pty.send(keys::SHIFT_TAB).unwrap();
    pty.wait_for_text("Shift+Tab skips Auto mode.", WAIT)
        .unwrap();
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    shift_tabs(&mut pty, &["accept edits on", "plan mode on"]);
    pty.send(keys::SHIFT_TAB).unwrap();
    pty.send(b"/status\r").unwrap();
    pty.wait_for_text("Permission mode:  Manual", WAIT).unwrap();
    let said = times(&mut pty, "Auto mode is not available in this session");
    assert_eq!(said, 1, "{:#?}", pty.all_rows());
    pty.send(keys::CTRL_D).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_becomes_an_allow_rule_in_the_decisions_view() {
    let classifier = "claude-haiku-4-5";
    let env = Env::new(Script::new([
        Reply::tool_use(
            "toolu_1",
            "Bash",
            json!({"command": "npm install left-pad"}),
        ),
        Reply::message()
            .text("<block>yes")
            .stop_reason("stop_sequence")
            .into(),
        Reply::text(
            "<block>yes</block><category>network</category>\
             <reason>it installs a package from the network</reason>",
        ),
        Reply::text("It was blocked."),
    ]))
    .await;
    let mut pty = tack_in_auto(&env, classifier, 100, 40);
    pty.send(b"add left-pad\r").unwrap();
    turn_over(&mut pty, "It was blocked.");

    pty.send(b"/permissions\r").unwrap();
    pty.wait_for_text("Auto mode decisions", WAIT).unwrap();
    pty.wait_for_text("✗ blocked Bash npm install left-pad", WAIT)
        .unwrap();
    pty.wait_for_text(
        "classifier, stage 2 · it installs a package from the network",
        WAIT,
    )
    .unwrap();
    pty.send(b"a").unwrap();
    pty.wait_for_text("Added Bash(npm install", WAIT).unwrap();
    let local = env.cwd().join(".claude/settings.local.json");
    let local: Value = serde_json::from_str(&std::fs::read_to_string(local).unwrap()).unwrap();
    let allow = local["permissions"]["allow"].as_array().unwrap();
    assert!(
        allow.iter().any(|r| r
            .as_str()
            .is_some_and(|r| r.starts_with("Bash(npm install"))),
        "{local}"
    );
    pty.send(b"q").unwrap();
    pty.wait_until("the view closed", WAIT, |s| {
        !s.contents().contains("Auto mode decisions")
    })
    .unwrap();
    pty.send(keys::CTRL_D).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());
    let classified = env
        .request_bodies()
        .into_iter()
        .filter(|b| b["model"] == classifier)
        .count();
    assert_eq!(classified, 2);
}

/// An edit's dialog: "Yes, and switch to accept edits" allows it and puts the
/// session in accept-edits mode (the runtime's), so the next edit is not asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_dialog_switches_the_session_to_accept_edits() {
    let env = Env::new(Script::new([
        write_reply("toolu_1", "one.txt"),
        write_reply("toolu_2", "two.txt"),
        Reply::text("Both written."),
    ]))
    .await;
    env.trust();
    let mut pty = tack(&env, 100, 30);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    pty.send(b"write both\r").unwrap();
    pty.wait_for_text("2. Yes, and switch to accept edits (shift+tab)", WAIT)
        .unwrap();
    pty.send(b"2").unwrap();
    // The second Write needs no dialog: the turn ends on its own.
    turn_over(&mut pty, "Both written.");
    assert!(pty.screen_text().contains("accept edits on"));
    assert!(env.cwd().join("one.txt").is_file() && env.cwd().join("two.txt").is_file());
    pty.send(keys::CTRL_D).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());
}
