//! How a print-mode run ends when not everything went to plan: calls refused
//! for want of someone to ask (said on stderr, with the flags that allow them;
//! text mode exits 1), and a reader that closes stdout early (`| head -1`:
//! quiet, 141).

use crate::common;

use std::time::Duration;

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_testkit::{Reply, Script};

fn refused_script() -> Script {
    Script::new([
        Reply::message()
            .tool_use("t1", "Bash", json!({"command": "touch x"}))
            .tool_use(
                "t2",
                "Write",
                json!({"file_path": "/tack-test-nowhere/a.txt", "content": "a"}),
            )
            .into(),
        Reply::text("Finished."),
    ])
}

const REFUSED: &str = "tack: 2 tool calls were refused:
  Bash(touch x)
  Write(/tack-test-nowhere/a.txt)
Print mode cannot ask for permission. To allow them, run again with --allowedTools 'Bash(touch x)', \
or --permission-mode acceptEdits (file edits in the project), \
or --permission-mode auto (a classifier decides each call).
";

#[tokio::test(flavor = "multi_thread")]
async fn refused_calls_are_listed_with_how_to_allow_them_and_text_mode_exits_1() {
    let env = Env::new(refused_script()).await;
    let out = env.tack().args(["-p", "go"]).output().unwrap();
    assert_eq!(
        (
            out.status.code(),
            common::stdout(&out),
            common::stderr(&out)
        ),
        (Some(1), "Finished.\n".to_owned(), REFUSED.to_owned())
    );
    assert!(!env.cwd().join("x").exists());
}

/// json keeps Claude Code's silence and exit 0: the result record has the calls.
#[tokio::test(flavor = "multi_thread")]
async fn json_output_keeps_claude_codes_exit_0_and_lists_them_in_the_record() {
    let env = Env::new(refused_script()).await;
    let out = env
        .tack()
        .args(["-p", "go", "--output-format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        (out.status.code(), common::stderr(&out)),
        (Some(0), String::new())
    );
    let result = &common::lines(&out.stdout)[0];
    assert_eq!(
        result["permission_denials"].as_array().map(Vec::len),
        Some(2)
    );
}

/// `tack -p … | head -1` under bash: tack's own exit status and stderr.
fn through_head(env: &Env, args: &[&str]) -> (String, String) {
    let script = r#""$0" "$@" | head -1; echo "tack exited ${PIPESTATUS[0]}" >&2"#;
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg(assert_cmd::cargo::cargo_bin("tack"))
        .args(args)
        .env_clear()
        .envs(env.vars())
        .current_dir(env.cwd())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (common::stdout(&out), common::stderr(&out))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_closed_stdout_ends_the_run_quietly() {
    // More than a pipe holds: the write is still going when head leaves.
    let answer = "line\n".repeat(50_000);
    let env = Env::new(Script::new([Reply::text(&answer)])).await;
    assert_eq!(
        through_head(&env, &["-p", "hi"]),
        ("line\n".to_owned(), "tack exited 141\n".to_owned())
    );

    // stream-json: the init line goes to head, which leaves while the model
    // is still answering; the next record finds the pipe closed.
    let slow = Reply::message()
        .text("Hello.")
        .stall_after(1, Duration::from_millis(500))
        .into();
    let env = Env::new(Script::new([slow])).await;
    let (stdout, stderr) = through_head(
        &env,
        &["-p", "hi", "--output-format", "stream-json", "--verbose"],
    );
    assert_eq!(
        (
            &common::lines(stdout.as_bytes())[0]["subtype"],
            stderr.as_str()
        ),
        (&json!("init"), "tack exited 141\n")
    );
}
