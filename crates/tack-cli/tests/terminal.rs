//! Progress on a terminal: run the binary under a real pseudo-terminal (util-linux
//! `script`), so stdout and stderr are TTYs as in an interactive shell.

use crate::common;

use std::process::Command;
use std::time::Duration;

use common::Env;
use serde_json::json;
use tack_testkit::{Reply, Script};

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_terminal_shows_spinner_tool_lines_and_retries_and_a_pipe_does_not() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    }
    let script = || {
        Script::new([
            Reply::overloaded().retry_after_ms(50),
            Reply::message()
                .text("Checking.")
                .tool_use("toolu_1", "Bash", json!({"command": "echo from-bash"}))
                .pacing(Duration::from_millis(40))
                .into(),
            Reply::message()
                .text("All done.")
                .pacing(Duration::from_millis(60))
                .into(),
        ])
    };
    let env = Env::new(script()).await;
    let bin = assert_cmd::cargo::cargo_bin("tack");
    let command = format!(
        "{} -p 'run it' --dangerously-skip-permissions",
        shell_quote(&bin.to_string_lossy())
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env_clear()
        .envs(env.vars())
        .env("TERM", "xterm")
        .env("CLAUDE_CODE_MAX_RETRIES", "2")
        .current_dir(env.cwd())
        .output()
        .unwrap();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{screen}");
    assert!(
        screen.contains("API overloaded, retrying in 1 s, attempt"),
        "{screen}"
    );
    assert!(screen.contains("● Bash(echo from-bash)"), "{screen}");
    assert!(screen.contains("tokens"), "no spinner drawn: {screen}");
    assert!(screen.contains("All done."), "{screen}");

    // The same session on a pipe: only the answer, nothing on stderr.
    let env = Env::new(script()).await;
    let out = env
        .tack()
        .env("CLAUDE_CODE_MAX_RETRIES", "2")
        .args(["-p", "run it", "--dangerously-skip-permissions"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "All done.\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// Print mode's progress on a terminal, read back through a terminal
/// emulator: each call once with its result under it (two parallel Reads
/// each under its own), the text that introduced them, an Edit as a diff,
/// and the answer on a row of its own, the spinner erased.
#[tokio::test(flavor = "multi_thread")]
async fn terminal_progress_pairs_results_with_calls_and_leaves_the_answer_alone() {
    let env = Env::new(Script::new([])).await;
    let (a, b) = (env.cwd().join("a.txt"), env.cwd().join("b.txt"));
    std::fs::write(&a, "one\ntwo\nthree\n").unwrap();
    std::fs::write(&b, "bee\n").unwrap();
    let pace = Duration::from_millis(30);
    for reply in [
        Reply::message()
            .text("Reading both.")
            .tool_use("t1", "Read", json!({"file_path": a}))
            .tool_use("t2", "Read", json!({"file_path": b}))
            .pacing(pace)
            .into(),
        Reply::message()
            .text("Fixing.")
            .tool_use(
                "t3",
                "Edit",
                json!({"file_path": a, "old_string": "two", "new_string": "TWO"}),
            )
            .pacing(pace)
            .into(),
        Reply::message().text("All done.").pacing(pace).into(),
    ] {
        env.server.push(reply);
    }
    let mut cmd = crate::interactive::tack_command(&env);
    cmd.args(["-p", "go", "--permission-mode", "acceptEdits"]);
    let mut pty = tack_tui::testing::PtySession::spawn(cmd, 100, 40).unwrap();
    let status = pty.wait_exit(Duration::from_secs(60)).unwrap();
    let rows = pty.all_rows();
    let shown: Vec<&str> = rows.iter().map(|r| r.trim_end()).collect();
    let shown = shown.join("\n");
    assert!(status.success(), "{shown}");
    assert_eq!(
        shown.trim_end(),
        "Reading both.

● Read(a.txt)
  ⎿  Read 3 lines

● Read(b.txt)
  ⎿  Read 1 line

Fixing.

● Edit(a.txt)
  ⎿  Updated a.txt with 1 addition and 1 removal
     2 - two
     2 + TWO

All done."
    );
}
