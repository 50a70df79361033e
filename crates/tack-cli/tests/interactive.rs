//! End to end: the real `tack` binary in interactive mode, in a pseudo-terminal
//! read back through a terminal emulator (screen and scrollback), against the
//! scripted model server.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};
use tack_tui::testing::{
    CommandBuilder, PtySession, keys, lines_on_own_row_once, single_newline_answer,
};

pub(crate) const WAIT: Duration = Duration::from_secs(30);

/// `tack` (no arguments) in a `cols` x `rows` terminal in the project.
pub(crate) fn tack(env: &Env, cols: u16, rows: u16) -> PtySession {
    PtySession::spawn(tack_command(env), cols, rows).unwrap()
}

/// `tack` in the project with the test environment, for a terminal.
pub(crate) fn tack_command(env: &Env) -> CommandBuilder {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tack"));
    cmd.env_clear();
    for (key, value) in env.vars() {
        cmd.env(key, value);
    }
    cmd.env("TERM", "xterm-256color");
    cmd.cwd(env.cwd());
    cmd
}

/// `/exit`, confirmed; the process ends with success.
pub(crate) fn exit(pty: &mut PtySession) {
    pty.send(b"/exit").unwrap();
    pty.wait_for_text("Exit tack", WAIT).unwrap();
    pty.send(keys::ENTER).unwrap();
    let status = pty.wait_exit(WAIT).unwrap();
    assert!(status.success());
}

fn count(rows: &[String], needle: &str) -> usize {
    rows.iter().filter(|r| r.contains(needle)).count()
}

/// Waits until the running turn is over (no spinner) and `text` is shown.
pub(crate) fn turn_over(pty: &mut PtySession, text: &str) {
    let text = text.to_owned();
    pty.wait_until(&format!("`{text}` and the turn over"), WAIT, move |s| {
        let c = s.contents();
        c.contains(&text) && !c.contains("esc to interrupt")
    })
    .unwrap();
}

pub(crate) fn write_reply(id: &str, file: &str) -> Reply {
    Reply::message()
        .text(&format!("I will write {file}."))
        .tool_use(
            id,
            "Write",
            json!({"file_path": file, "content": "hello\n"}),
        )
        .into()
}

/// The text of each message of a request body, in order.
fn message_texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_session_lands_in_the_scrollback_exactly_once() {
    let answer = "Here is the **plan**:\n\n- read the code\n- fix the bug\n\n```rust\nfn main() {}\n```\n\nDone with hello.";
    let slow = "Thinking about it slowly. ".repeat(200);
    let env = Env::new(Script::new([
        // A session from before, to resume.
        Reply::text("An old answer."),
        // 1. A streamed answer.
        Reply::message()
            .text(answer)
            .pacing(Duration::from_millis(2))
            .into(),
        // 2. A Write, allowed.
        write_reply("toolu_1", "a.txt"),
        Reply::text("Written a.txt."),
        // 3. A Write, denied with feedback: the model carries on.
        write_reply("toolu_2", "b.txt"),
        Reply::text("Understood: not writing b.txt."),
        // 4. A slow answer that stalls: interrupted with Esc.
        Reply::message()
            .text(&slow)
            .stall_after(4, Duration::from_secs(60))
            .into(),
        // 5. After /resume, in the old session.
        Reply::text("Back in the old session."),
    ]))
    .await;
    env.trust();
    let old = env.tack().args(["-p", "an old question"]).output().unwrap();
    assert!(
        old.status.success(),
        "{}",
        String::from_utf8_lossy(&old.stderr)
    );

    let mut pty = tack(&env, 100, 30);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();

    // 1. A prompt and its streamed answer.
    pty.send(b"hello\r").unwrap();
    turn_over(&mut pty, "Done with hello.");

    // 2. A permission dialog answered yes.
    pty.send(b"please write a.txt\r").unwrap();
    pty.wait_for_text("Do you want to proceed?", WAIT).unwrap();
    // What README.md shows.
    println!(
        "--- screen at the permission dialog ---\n{}\n---",
        pty.screen_text()
    );
    pty.send(b"1").unwrap();
    turn_over(&mut pty, "Written a.txt.");

    // 3. ... and no, with what to do instead.
    pty.send(b"now write b.txt\r").unwrap();
    pty.wait_for_text("Do you want to proceed?", WAIT).unwrap();
    pty.send(b"3").unwrap();
    pty.send(b"use c.txt instead\r").unwrap();
    turn_over(&mut pty, "Understood: not writing b.txt.");

    // 4. A slow turn interrupted with Esc.
    pty.send(b"be slow\r").unwrap();
    pty.wait_for_text("Thinking", WAIT).unwrap();
    let esc = Instant::now();
    pty.send(keys::ESC).unwrap();
    turn_over(&mut pty, "Interrupted");
    let interrupted_after = esc.elapsed();

    // 5. /resume the session from before; the conversation goes on there.
    pty.send(b"/resume").unwrap();
    pty.wait_for_text("Resume a past session", WAIT).unwrap();
    pty.send(keys::ENTER).unwrap();
    pty.wait_for_text("Resume a session", WAIT).unwrap();
    pty.wait_for_text("an old question", WAIT).unwrap();
    pty.send(keys::ENTER).unwrap();
    pty.wait_for_text("Resumed session", WAIT).unwrap();
    pty.send(b"and now?\r").unwrap();
    turn_over(&mut pty, "Back in the old session.");

    exit(&mut pty);

    let rows = pty.all_rows();
    let shown = rows.join("\n");
    println!("{shown}");
    println!("Esc to the turn shown interrupted: {interrupted_after:?}");
    for line in [
        "> hello",
        "Here is the plan:",
        "read the code",
        "fn main() {}",
        "Done with hello.",
        "> please write a.txt",
        "I will write a.txt.",
        "Write(a.txt)",
        "Written a.txt.",
        "> now write b.txt",
        "I will write b.txt.",
        "Write(b.txt)",
        "Rejected by the user: use c.txt instead",
        "Understood: not writing b.txt.",
        "> be slow",
        "Interrupted",
        "> /resume",
        "> an old question",
        "An old answer.",
        "Resumed session",
        "> and now?",
        "Back in the old session.",
        "> /exit",
    ] {
        assert_eq!(count(&rows, line), 1, "`{line}` in\n{shown}");
    }
    // The live area (dialogs, input box, status) is never in the history.
    for live in [
        "Do you want to proceed?",
        "? for shortcuts",
        "╭",
        "esc to interrupt",
    ] {
        assert_eq!(count(&rows, live), 0, "`{live}` in\n{shown}");
    }
    // What streamed before the interrupt is shown once too.
    assert_eq!(count(&rows, "Thinking"), 1, "{shown}");
    assert!(
        interrupted_after < Duration::from_secs(5),
        "{interrupted_after:?}"
    );

    // What the model was told and what happened on disk.
    let cwd = env.cwd();
    assert_eq!(
        std::fs::read_to_string(cwd.join("a.txt")).unwrap(),
        "hello\n"
    );
    assert!(!cwd.join("b.txt").exists());
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 8);
    let denied = bodies[5].to_string();
    assert!(
        denied.contains("To tell you how to proceed, the user said:\\nuse c.txt instead"),
        "{denied}"
    );
    // The resumed session's request carries the old conversation and the new prompt.
    let last = message_texts(&bodies[7]);
    assert_eq!(last.len(), 3, "{last:?}");
    assert!(last[0].contains("an old question"), "{last:?}");
    assert!(last[1].contains("An old answer."), "{last:?}");
    assert!(last[2].contains("and now?"), "{last:?}");
    // The interrupted turn left a valid transcript: its session resumes.
    assert_eq!(env.transcripts().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_input_reaches_the_runtime() {
    let env = Env::new(Script::new([
        Reply::text("It said shell-output."),
        write_reply("toolu_1", "c.txt"),
        Reply::text("Wrote c.txt."),
        Reply::text("I am haiku."),
        Reply::text("Hi Bob!"),
        Reply::text("Edited prompt received."),
        Reply::text("The user greeted Bob."),
    ]))
    .await;
    env.trust();
    let cwd = env.cwd();
    std::fs::create_dir_all(cwd.join(".claude/commands")).unwrap();
    // The status line shows the model the statusLine command was told. Runs
    // told "sonnet" are slow, so one still running when `/model` changes the
    // model finishes after the newer run (and must not overwrite its line).
    std::fs::write(
        cwd.join(".claude/settings.json"),
        json!({"statusLine": {"type": "command",
            "command": "j=$(cat); case \"$j\" in *sonnet*) sleep 0.3;; esac; \
                printf '%s' \"$j\" | grep -o '\"display_name\":\"[^\"]*\"' | tr -d '\"'"}})
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        cwd.join(".claude/commands/greet.md"),
        "---\ndescription: Greet someone\n---\nSay hi to $ARGUMENTS.\n",
    )
    .unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tack"));
    cmd.env_clear();
    for (key, value) in env.vars() {
        cmd.env(key, value);
    }
    cmd.env("TERM", "xterm-256color");
    cmd.env("EDITOR", "f() { printf 'from the editor' > \"$1\"; }; f");
    cmd.cwd(&cwd);
    let mut pty = PtySession::spawn(cmd, 100, 30).unwrap();
    pty.wait_for_text("display_name:claude-opus-5-5", WAIT)
        .unwrap();
    // The command's line replaces the `? for shortcuts` hint.
    assert!(!pty.screen_text().contains("? for shortcuts"));

    // `!`: shown now, and in the next prompt's context.
    pty.send(b"!echo shell-output\r").unwrap();
    pty.wait_for_text("  ⎿  shell-output", WAIT).unwrap();
    pty.send(b"what did the shell say\r").unwrap();
    turn_over(&mut pty, "It said shell-output.");

    // `#`: a line in CLAUDE.md.
    pty.send(b"#use tabs\r").unwrap();
    pty.wait_for_text("Added to", WAIT).unwrap();
    assert_eq!(
        std::fs::read_to_string(cwd.join("CLAUDE.md")).unwrap(),
        "- use tabs\n"
    );

    // Shift+Tab: accept edits, so the Write runs without a dialog.
    pty.send(keys::SHIFT_TAB).unwrap();
    pty.wait_for_text("accept edits on", WAIT).unwrap();
    pty.send(b"write c.txt\r").unwrap();
    turn_over(&mut pty, "Wrote c.txt.");
    assert_eq!(
        std::fs::read_to_string(cwd.join("c.txt")).unwrap(),
        "hello\n"
    );

    // /model, then a custom command with $ARGUMENTS.
    pty.send(b"/model haiku\r").unwrap();
    pty.wait_for_text("Model set to claude-haiku-5-5", WAIT)
        .unwrap();
    pty.wait_for_text("display_name:claude-haiku-5-5", WAIT)
        .unwrap();
    let stale = pty.wait_for_text("display_name:claude-opus-5-5", Duration::from_millis(800));
    assert!(
        stale.is_err(),
        "an older status-line run overwrote the newer line"
    );
    std::fs::write(cwd.join("notes.txt"), "the notes say 42\n").unwrap();
    pty.send(b"which model, see @notes.txt please\r").unwrap();
    turn_over(&mut pty, "I am haiku.");
    pty.send(b"/greet Bob\r").unwrap();
    turn_over(&mut pty, "Hi Bob!");

    // Ctrl+G: the prompt written in $EDITOR.
    pty.send(b"\x07").unwrap();
    pty.wait_for_text("> from the editor", WAIT).unwrap();
    pty.send(keys::ENTER).unwrap();
    turn_over(&mut pty, "Edited prompt received.");

    // /compact with instructions, /cost, /mcp, /agents, /sandbox.
    pty.send(b"/compact keep the greeting\r").unwrap();
    turn_over(&mut pty, "Conversation compacted");
    pty.send(b"/cost\r").unwrap();
    pty.wait_for_text("Total cost:", WAIT).unwrap();
    pty.send(b"/mcp\r").unwrap();
    pty.wait_for_text("No MCP servers.", WAIT).unwrap();
    pty.send(b"/agents\r").unwrap();
    pty.wait_for_text("general-purpose (session model)", WAIT)
        .unwrap();
    pty.send(b"/sandbox\r").unwrap();
    pty.wait_for_text("sandbox: off (Bash commands run unconfined)", WAIT)
        .unwrap();
    pty.send(keys::CTRL_D).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());

    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 7);
    let first = message_texts(&bodies[0]);
    assert!(
        first[0].contains("<bash-input>echo shell-output</bash-input>")
            && first[0].contains("<bash-stdout>shell-output\\n</bash-stdout>")
            && first[0].contains("what did the shell say"),
        "{first:?}"
    );
    let models: Vec<&str> = bodies
        .iter()
        .map(|b| b["model"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        models[..4],
        [
            "claude-opus-5-5",
            "claude-opus-5-5",
            "claude-opus-5-5",
            "claude-haiku-5-5"
        ]
    );
    // `@notes.txt` went with the prompt.
    assert!(bodies[3].to_string().contains("the notes say 42"));
    assert!(bodies[4].to_string().contains("Say hi to Bob."));
    assert!(bodies[5].to_string().contains("from the editor"));
    assert!(bodies[6].to_string().contains("keep the greeting"));
}

fn statusline_settings(project: &Path) {
    let dir = project.join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("settings.json"),
        json!({"statusLine": {"type": "command", "command": "echo PROJECT-STATUS-LINE"}})
            .to_string(),
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_start_in_a_folder_asks_for_trust_then_its_settings_apply() {
    let env = Env::new(Script::new(Vec::<Reply>::new())).await;
    statusline_settings(&env.cwd());
    let mut pty = tack(&env, 80, 24);
    pty.wait_for_text("Do you trust the files in this folder?", WAIT)
        .unwrap();
    let screen = pty.screen_text();
    assert!(
        screen.contains(&env.cwd().display().to_string()),
        "{screen}"
    );
    pty.send(b"1").unwrap();
    // The project's statusLine (ignored while untrusted) now runs.
    pty.wait_for_text("PROJECT-STATUS-LINE", WAIT).unwrap();
    pty.send(keys::CTRL_D).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());
    let config: Value = serde_json::from_str(
        &std::fs::read_to_string(env.config_dir().join("config.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        config["projects"][env.cwd().to_string_lossy().as_ref()],
        json!({"hasTrustDialogAccepted": true})
    );

    // Next time: straight to the prompt.
    let mut again = tack(&env, 80, 24);
    again.wait_for_text("PROJECT-STATUS-LINE", WAIT).unwrap();
    assert!(
        !again.screen_text().contains("Do you trust"),
        "{}",
        again.screen_text()
    );
    again.send(keys::CTRL_D).unwrap();
    assert!(again.wait_exit(WAIT).unwrap().success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declining_trust_exits_and_trusts_nothing() {
    let env = Env::new(Script::new(Vec::<Reply>::new())).await;
    let mut pty = tack(&env, 80, 24);
    pty.wait_for_text("Do you trust the files in this folder?", WAIT)
        .unwrap();
    pty.send(b"2").unwrap();
    let status = pty.wait_exit(WAIT).unwrap();
    assert_eq!(status.exit_code(), 1);
    assert!(!env.config_dir().join("config.json").exists());
    let rows = pty.all_rows();
    assert_eq!(count(&rows, "Do you trust"), 0, "{}", rows.join("\n"));
}

#[test]
fn without_a_terminal_it_says_to_use_print_mode() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tack"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Error: interactive mode needs a terminal: use -p/--print to run a prompt from a script or a pipe\n"
    );
}

/// The capture in README.md's "Interactive mode" is this session's scrollback and
/// screen: a prompt, a Read and an Edit (its permission dialog answered yes), the
/// streamed answer. Run with `TACK_README_CAPTURE=print` to print a new capture.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_shows_a_real_session() {
    let env = Env::new(Script::new([
        Reply::message()
            .text("Let me look at the parser.")
            .tool_use("toolu_1", "Read", json!({"file_path": "src/parse.rs"}))
            .into(),
        Reply::message()
            .text("The error case returns `0`; I will make it an error.")
            .tool_use(
                "toolu_2",
                "Edit",
                json!({
                    "file_path": "src/parse.rs",
                    "old_string": "    s.parse().unwrap_or(0)",
                    "new_string": "    s.trim().parse()"
                }),
            )
            .into(),
        Reply::message()
            .text(
                "Fixed. `parse_port` now:\n\n- trims the input\n- returns the parse \
                 error instead of `0`\n\nRun `cargo test` to check.",
            )
            .into(),
    ]))
    .await;
    let src = env.cwd().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("parse.rs"),
        "pub fn parse_port(s: &str) -> Result<u16, std::num::ParseIntError> {\n    s.parse().unwrap_or(0)\n}\n",
    )
    .unwrap();
    env.trust();

    let mut pty = tack(&env, 80, 24);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    pty.send(b"parse_port accepts garbage; fix it\r").unwrap();
    pty.wait_for_text("Do you want to", WAIT).unwrap();
    pty.send(b"1").unwrap();
    turn_over(&mut pty, "Run cargo test to check.");
    let mut rows = pty.all_rows();
    while rows.last().is_some_and(|r| r.trim().is_empty()) {
        rows.pop();
    }
    let cwd = env.cwd().display().to_string();
    let capture: Vec<String> = rows
        .iter()
        .map(|r| r.replace(&cwd, "~/shop").trim_end().to_owned())
        .collect();
    let capture = capture.join("\n");
    pty.send(keys::CTRL_D).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());

    if std::env::var_os("TACK_README_CAPTURE").is_some() {
        println!("{capture}");
        return;
    }
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let shown = readme
        .split_once("<!-- capture: tack-cli/tests/interactive.rs the_readme_shows_a_real_session -->\n```text\n")
        .and_then(|(_, rest)| rest.split_once("\n```"))
        .map(|(block, _)| block)
        .expect("README.md has the capture block");
    assert_eq!(shown, capture);
}

/// A whole short session as a user sees it: the welcome lines (version,
/// model, directory), a Bash dialog whose "don't ask again" names the
/// command's prefix in the project and saves it in the current rule form
/// (`Bash(touch *)`) to `.claude/settings.local.json`, the next command it
/// covers run without a dialog, and on Ctrl+D the line saying how to resume.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dont_ask_again_writes_the_rule_and_the_next_call_runs_without_asking() {
    let bash = |id: &str, command: &str| -> Reply {
        Reply::message()
            .tool_use(id, "Bash", json!({"command": command}))
            .into()
    };
    let env = Env::new(Script::new([
        bash("toolu_1", "touch first.txt"),
        Reply::text("Made the first."),
        bash("toolu_2", "touch second.txt"),
        Reply::text("Made the second."),
    ]))
    .await;
    env.trust();
    // With this binary on PATH, the exit line names it `tack` (otherwise by
    // its path, as the demo's hint does).
    let mut cmd = tack_command(&env);
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_tack")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_owned()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    cmd.env("PATH", path);
    let mut pty = PtySession::spawn(cmd, 100, 30).unwrap();
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    let home = env
        .vars()
        .into_iter()
        .find(|(k, _)| *k == "HOME")
        .map(|(_, v)| v);
    let cwd = env.cwd().display().to_string();
    let shown_cwd = match home
        .as_ref()
        .and_then(|h| env.cwd().strip_prefix(h).ok().map(Path::to_owned))
    {
        Some(rest) => format!("~/{}", rest.display()),
        None => cwd.clone(),
    };
    let welcome: Vec<String> = pty
        .screen_text()
        .lines()
        .take(3)
        .map(str::to_owned)
        .collect();

    pty.send(b"make the first file\r").unwrap();
    pty.wait_for_text("don't ask again", WAIT).unwrap();
    let offer = format!("2. Yes, and don't ask again for `touch` commands in {shown_cwd}");
    assert!(pty.screen_text().contains(&offer), "{}", pty.screen_text());
    // While the dialog waits nothing is drawn (the spinner stands still)
    // and nothing wakes up (no timer): after a moment to settle, a second
    // with no byte written and (nearly) no thread scheduled.
    let quiet = |pty: &mut PtySession, how_long: Duration| {
        let _ = pty.wait_until("a quiet moment", how_long, |_| false);
    };
    quiet(&mut pty, Duration::from_millis(300));
    let pid = pty.pid().unwrap();
    let (bytes, woke) = (pty.bytes_received(), wakeups(pid));
    quiet(&mut pty, Duration::from_secs(1));
    let (drawn, woke) = (pty.bytes_received() - bytes, wakeups(pid) - woke);
    println!("a second of a waiting dialog: {drawn} bytes drawn, {woke} wake-ups");
    // A 200 ms spinner timer alone would be 5 a second.
    assert_eq!((drawn, woke <= 2), (0, true), "{woke} wake-ups");
    pty.send(b"2").unwrap();
    turn_over(&mut pty, "Made the first.");
    let local = std::fs::read_to_string(env.cwd().join(".claude/settings.local.json")).unwrap();
    let local: Value = serde_json::from_str(&local).unwrap();
    let allow = local["permissions"]["allow"].as_array().unwrap();
    assert_eq!(allow, &[json!("Bash(touch *)")], "{local}");
    // The welcome named the model the session asks for.
    let model = env.request_bodies()[0]["model"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        welcome,
        [
            format!("✻ tack v{}", env!("CARGO_PKG_VERSION")),
            format!("  {model} · /help for commands"),
            format!("  {shown_cwd}"),
        ]
    );

    // A dialog would hold the turn (nothing answers it), so the turn ending
    // is the proof that none was shown.
    pty.send(b"and the second\r").unwrap();
    turn_over(&mut pty, "Made the second.");
    pty.send(keys::CTRL_D).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());
    assert!(env.cwd().join("first.txt").is_file() && env.cwd().join("second.txt").is_file());
    let transcripts = env.transcripts();
    let [transcript] = transcripts.as_slice() else {
        panic!("one session: {transcripts:?}");
    };
    let id = transcript.file_stem().unwrap().to_string_lossy();
    let said: Vec<String> = pty
        .all_rows()
        .into_iter()
        .skip_while(|r| !r.contains("tack --resume"))
        .filter(|r| !r.trim().is_empty())
        .collect();
    assert_eq!(
        said,
        [
            format!("Resume this session with: tack --resume {id}"),
            "or, in this directory: tack -c".to_owned(),
        ]
    );
}

/// How often the threads of `pid` have been scheduled off the CPU so far
/// (voluntary and not): each wake-up ends in one.
fn wakeups(pid: u32) -> u64 {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).unwrap();
    let mut total = 0;
    for task in tasks.flatten() {
        let Ok(status) = std::fs::read_to_string(task.path().join("status")) else {
            continue;
        };
        for line in status.lines() {
            if let Some((key, n)) = line.split_once(':')
                && key.ends_with("ctxt_switches")
            {
                total += n.trim().parse::<u64>().unwrap_or(0);
            }
        }
    }
    total
}

/// A session in which nothing was said leaves no resume line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_an_empty_session_says_nothing_of_resuming() {
    let env = Env::new(Script::new([])).await;
    env.trust();
    let mut pty = tack(&env, 80, 24);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    pty.send(b"/exit\r").unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());
    let rows = pty.all_rows();
    assert!(rows.iter().any(|r| r.starts_with("✻ tack v")), "{rows:#?}");
    assert!(!rows.iter().any(|r| r.contains("--resume")), "{rows:#?}");
}

/// A 60-line answer of single newlines, streamed in 5 ms chunks: each line on
/// its own row exactly once (committed as it completes, never redrawn), for
/// at most 1.5 bytes written per byte of the answer (`benches/scrollback.rs`
/// prints the figure).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_answer_keeps_its_lines_and_is_written_once() {
    let answer = single_newline_answer(60);
    let env = Env::new(Script::new([Reply::message()
        .text(&answer)
        .pacing(Duration::from_millis(5))
        .into()]))
    .await;
    env.trust();
    let mut pty = tack(&env, 100, 30);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    pty.send(b"write sixty lines").unwrap();
    pty.wait_for_text("> write sixty lines", WAIT).unwrap();
    let before = pty.bytes_received();
    pty.send(keys::ENTER).unwrap();
    let lines: Vec<&str> = answer.lines().collect();
    turn_over(&mut pty, lines[59]);
    let written = pty.bytes_received() - before;
    assert_eq!(lines_on_own_row_once(&pty.all_rows(), &lines), 60);
    let per_byte = written as f64 / answer.len() as f64;
    assert!(
        per_byte <= 1.5,
        "{written} bytes for {} ({per_byte:.2} per byte)",
        answer.len()
    );
}

/// `/clear`, `/reset` and `/new` are the runtime's in the terminal too: the
/// same SessionEnd / SessionStart reasons as in `-p` and the SDKs
/// (`events.rs`), and no new runtime.
#[tokio::test]
async fn every_alias_of_clear_fires_the_runtimes_hooks_in_the_terminal() {
    let env = Env::new(Script::new(Vec::<Reply>::new())).await;
    env.trust();
    let cwd = env.cwd();
    std::fs::create_dir_all(cwd.join(".claude")).unwrap();
    let log = json!([{"hooks": [{"type": "command", "command": "cat >> hooks.jsonl; echo >> hooks.jsonl"}]}]);
    std::fs::write(
        cwd.join(".claude/settings.json"),
        json!({"hooks": {"SessionStart": log, "SessionEnd": log}}).to_string(),
    )
    .unwrap();
    let mut pty = tack(&env, 100, 30);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    for (n, alias) in ["/clear", "/reset", "/new"].into_iter().enumerate() {
        pty.send(format!("{alias}\r").as_bytes()).unwrap();
        // The n-th notice (the screen keeps the earlier ones).
        pty.wait_until(&format!("{alias} done"), WAIT, move |s| {
            s.contents().matches("Started a new conversation.").count() > n
        })
        .unwrap();
    }
    pty.send(keys::CTRL_D).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());
    let seen = common::session_hooks(&cwd);
    let mut want = vec![("SessionStart", "startup")];
    for _ in 0..3 {
        want.extend([("SessionEnd", "clear"), ("SessionStart", "clear")]);
    }
    want.push(("SessionEnd", "other"));
    let want: Vec<(String, String)> = want
        .into_iter()
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .collect();
    assert_eq!(seen, want);
    assert_eq!(env.server.requests().len(), 0, "no model call");
}

/// The statusLine command is told the terminal's size in COLUMNS and LINES,
/// the context window as Claude Code documents it (null before the first
/// response, a number after), and `refreshInterval` re-runs it with no
/// event at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_line_is_told_the_size_and_context_and_refreshes_on_its_timer() {
    let env = Env::new(Script::new([Reply::text("Done.")])).await;
    env.trust();
    let dir = env.cwd().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    let runs = env.cwd().join("runs");
    let command = format!(
        "j=$(cat); n=$(cat {r} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {r}; \
         printf 'run%s %sx%s %s\\nsecond-row' \"$n\" \"$COLUMNS\" \"$LINES\" \
         \"$(printf '%s' \"$j\" | grep -o '\"used_percentage\":[a-z0-9]*' | tr -d '\"')\"",
        r = runs.display()
    );
    std::fs::write(
        dir.join("settings.json"),
        json!({"statusLine": {"type": "command", "command": command, "refreshInterval": 1}})
            .to_string(),
    )
    .unwrap();
    let mut pty = tack(&env, 100, 30);
    pty.wait_for_text("100x30 used_percentage:null", WAIT)
        .unwrap();
    // Each line the command prints is a row of its own.
    pty.wait_for_text("second-row", WAIT).unwrap();
    // Nothing happens in the session: only the timer runs it again.
    let first: u32 = std::fs::read_to_string(&runs)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    pty.wait_for_text(&format!("run{} 100x30", first + 2), WAIT)
        .unwrap();
    pty.send(b"hello\r").unwrap();
    pty.wait_for_text("Done.", WAIT).unwrap();
    pty.wait_until("a number for used_percentage", WAIT, |screen| {
        let text = screen.contents();
        text.split("100x30 used_percentage:")
            .skip(1)
            .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
    })
    .unwrap();
    exit(&mut pty);
}

/// `~/.claude/keybindings.json` as Claude Code reads it: a chord takes an
/// action, `null` unbinds a default, a mistake is a warning that leaves the
/// rest in force, and a change to the file applies without a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keybindings_json_rebinds_and_reloads_without_a_restart() {
    let env = Env::new(Script::new(Vec::<Reply>::new())).await;
    env.trust();
    let dir = env.claude_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("keybindings.json");
    let write = |bindings: Value| {
        // Replaced atomically, as editors save.
        let tmp = dir.join(".kb.tmp");
        std::fs::write(&tmp, json!({"bindings": [bindings]}).to_string()).unwrap();
        std::fs::rename(&tmp, &file).unwrap();
    };
    write(json!({"context": "Chat", "bindings": {
        "ctrl+l": null,
        "ctrl+k ctrl+l": "chat:clearInput",
        "ctrl+y": "chat:frobnicate"
    }}));
    let mut pty = tack(&env, 100, 30);
    pty.wait_for_text("unknown action `chat:frobnicate`", WAIT)
        .unwrap();
    pty.send(b"first draft").unwrap();
    pty.wait_for_text("> first draft", WAIT).unwrap();
    pty.send(b"\x0c").unwrap(); // ctrl+l: unbound
    pty.send(b"!").unwrap();
    pty.wait_for_text("> first draft!", WAIT).unwrap();
    pty.send(b"\x0b\x0c").unwrap(); // ctrl+k ctrl+l: cleared
    pty.wait_until("the prompt cleared", WAIT, |s| {
        !s.contents().contains("first draft")
    })
    .unwrap();
    // The file changes while tack runs: ctrl+l is the default again.
    write(json!({"context": "Chat", "bindings": {"ctrl+k ctrl+l": "chat:clearInput"}}));
    pty.send(b"second").unwrap();
    pty.wait_for_text("> second", WAIT).unwrap();
    // The reload races the key: press until it lands (a press before it
    // does nothing, as ctrl+l is still unbound then).
    let cleared = (0..100).any(|_| {
        pty.send(b"\x0c").unwrap();
        pty.wait_until(
            "ctrl+l cleared the prompt",
            Duration::from_millis(200),
            |s| !s.contents().contains("> second"),
        )
        .is_ok()
    });
    assert!(cleared, "{}", pty.screen_text());
    exit(&mut pty);
}

/// A Confirmation rebind in keybindings.json answers a permission dialog:
/// Enter, rebound to `confirm:next`, moves to "don't ask again" instead of
/// allowing, and `ctrl+y`, bound to `confirm:yes`, chooses it (the rule
/// saved is the proof that both keys did what the file says).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebound_confirmation_key_answers_the_permission_dialog() {
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use("toolu_1", "Bash", json!({"command": "touch made.txt"}))
            .into(),
        Reply::text("Made it."),
    ]))
    .await;
    env.trust();
    let dir = env.claude_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let bindings = json!({"bindings": [{"context": "Confirmation", "bindings": {
        "enter": "confirm:next",
        "ctrl+y": "confirm:yes"
    }}]});
    std::fs::write(dir.join("keybindings.json"), bindings.to_string()).unwrap();
    let mut pty = tack(&env, 100, 30);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    pty.send(b"make the file\r").unwrap();
    pty.wait_for_text("Do you want to proceed?", WAIT).unwrap();
    pty.send(keys::ENTER).unwrap();
    pty.wait_for_text("❯ 2. Yes, and don't ask again", WAIT)
        .unwrap();
    pty.send(b"\x19").unwrap(); // ctrl+y
    turn_over(&mut pty, "Made it.");
    assert!(env.cwd().join("made.txt").is_file());
    let local = std::fs::read_to_string(env.cwd().join(".claude/settings.local.json")).unwrap();
    let local: Value = serde_json::from_str(&local).unwrap();
    assert_eq!(local["permissions"]["allow"], json!(["Bash(touch *)"]));
    exit(&mut pty);
}

/// Claude Code's `/vim`: saved as `editorMode` in `~/.claude.json` (and
/// read from it at the next start), INSERT and NORMAL with `-- INSERT --`
/// under the prompt, NORMAL's editing keys, Enter sending from NORMAL, and
/// the status line told `vim.mode` each time it changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_vim_edits_in_normal_mode_is_saved_and_tells_the_status_line() {
    let env = Env::new(Script::new([Reply::text("Done.")])).await;
    env.trust();
    std::fs::create_dir_all(env.claude_dir()).unwrap();
    std::fs::write(
        env.claude_dir().join("settings.json"),
        json!({"statusLine": {"type": "command", "command":
            "printf 'vim:%s' \"$(jq -r '.vim.mode // \"off\"')\""}})
        .to_string(),
    )
    .unwrap();
    let claude_json = env.home.path().join(".claude.json");
    let editor_mode = || -> Value {
        let text = std::fs::read_to_string(&claude_json).unwrap();
        serde_json::from_str::<Value>(&text).unwrap()["editorMode"].clone()
    };
    let mut pty = tack(&env, 100, 30);
    pty.wait_for_text("vim:off", WAIT).unwrap();
    pty.send(b"/vim").unwrap();
    pty.wait_for_text("Toggle between Vim", WAIT).unwrap();
    pty.send(keys::ENTER).unwrap();
    pty.wait_for_text("Editor mode set to vim.", WAIT).unwrap();
    pty.wait_for_text("-- INSERT --", WAIT).unwrap();
    pty.wait_for_text("vim:INSERT", WAIT).unwrap();
    pty.send(b"hello wrold").unwrap();
    pty.wait_for_text("> hello wrold", WAIT).unwrap();
    // Esc alone (a key right after it would read as Alt+key): NORMAL shows
    // no indicator.
    let normal = |pty: &mut PtySession| {
        pty.send(keys::ESC).unwrap();
        pty.wait_until("NORMAL mode", WAIT, |s| {
            !s.contents().contains("-- INSERT --")
        })
        .unwrap();
    };
    normal(&mut pty);
    pty.wait_for_text("vim:NORMAL", WAIT).unwrap();
    pty.send(b"bcwworld").unwrap();
    pty.wait_for_text("> hello world", WAIT).unwrap();
    pty.wait_for_text("-- INSERT --", WAIT).unwrap();
    normal(&mut pty);
    pty.send(keys::ENTER).unwrap();
    turn_over(&mut pty, "Done.");
    let bodies = env.request_bodies();
    // The prompt as typed, after the context reminder.
    assert_eq!(
        common::last_texts(bodies.last().unwrap()).last(),
        Some(&"hello world".to_owned())
    );
    assert_eq!(editor_mode(), json!("vim"));
    pty.send(b"i").unwrap();
    pty.wait_for_text("vim:INSERT", WAIT).unwrap();
    exit(&mut pty);

    // The next start is in vim mode; `/vim` again turns it off.
    let mut pty = tack(&env, 100, 30);
    pty.wait_for_text("vim:INSERT", WAIT).unwrap();
    pty.wait_for_text("-- INSERT --", WAIT).unwrap();
    pty.send(b"/vim").unwrap();
    pty.wait_for_text("Toggle between Vim", WAIT).unwrap();
    pty.send(keys::ENTER).unwrap();
    pty.wait_for_text("Editor mode set to normal.", WAIT)
        .unwrap();
    pty.wait_for_text("vim:off", WAIT).unwrap();
    assert_eq!(editor_mode(), json!("normal"));
    exit(&mut pty);
}
