//! `tack demo` end to end, with no key and no network: on a terminal (a pty
//! read back through a terminal emulator) it is the terminal UI with a
//! permission dialog to answer; piped, a transcript on stdout. Its project
//! is removed when it ends (at its end, and on a signal), unless `--keep`.
//! Each test's TMPDIR is in its own temporary home, so nothing is left
//! behind even when a test fails.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pretty_assertions::assert_eq;
use tack_tui::testing::{CommandBuilder, PtySession};

const WAIT: Duration = Duration::from_secs(60);

/// A home of its own, with the TMPDIR the demo's project goes in.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join("tmp")).unwrap();
    home
}

/// PATH without tack on it.
fn vars(home: &Path) -> Vec<(&'static str, std::ffi::OsString)> {
    vec![
        ("PATH", "/usr/local/bin:/usr/bin:/bin".into()),
        ("HOME", home.into()),
        ("TMPDIR", home.join("tmp").into()),
        ("TACK_CONFIG_DIR", home.join(".tack").into()),
    ]
}

/// The demo projects in `home`'s TMPDIR.
fn projects(home: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(home.join("tmp"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("tack-demo-"))
        .map(|e| e.path().canonicalize().unwrap())
        .collect()
}

/// `tack demo` on a pty in `home`, waiting at its permission dialog; the
/// project it made.
fn at_the_dialog(home: &Path) -> (PtySession, PathBuf) {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tack"));
    cmd.env_clear();
    for (key, value) in vars(home) {
        cmd.env(key, value);
    }
    cmd.env("TERM", "xterm-256color");
    cmd.arg("demo");
    let mut pty = PtySession::spawn(cmd, 250, 40).unwrap();
    pty.wait_for_text("Do you want to proceed?", WAIT).unwrap();
    let made = projects(home);
    assert_eq!(made.len(), 1, "{made:?}");
    (pty, made[0].clone())
}

/// The demo project's path, from the line that names it.
fn project_in(text: &str) -> PathBuf {
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("verify yourself: cd "))
        .unwrap_or_else(|| panic!("no project named in\n{text}"));
    PathBuf::from(line.split(" && ").next().unwrap())
}

fn transcripts(home: &Path) -> usize {
    std::fs::read_dir(home.join(".claude/projects"))
        .unwrap()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
        .filter(|f| f.path().extension().is_some_and(|e| e == "jsonl"))
        .count()
}

#[test]
fn on_a_terminal_the_demo_is_the_terminal_ui_with_a_dialog_to_answer() {
    let home = home();
    // The prompt is typed for the user; the Edit asks.
    let (mut pty, project) = at_the_dialog(home.path());
    let dialog = pty.screen_text();
    assert!(dialog.contains("Edit file"), "{dialog}");
    assert!(dialog.contains("+   echo $(( $1 + $2 ))"), "{dialog}");
    pty.send(b"1").unwrap();
    pty.wait_until("the turn over", WAIT, |s| {
        let c = s.contents();
        c.contains("sh test.sh passes.") && !c.contains("esc to interrupt")
    })
    .unwrap();
    // The edit was made.
    let calc = std::fs::read_to_string(project.join("calc.sh")).unwrap();
    assert!(calc.contains("$(( $1 + $2 ))"), "{calc}");
    crate::interactive::exit(&mut pty);

    let rows = pty.all_rows();
    let shown = rows.join("\n");
    let exe = Path::new(env!("CARGO_BIN_EXE_tack"))
        .canonicalize()
        .unwrap();
    // Each line of the session once, on a row of its own.
    let once = [
        "> The test in this project fails. Find the bug, fix it and run the test.",
        "Let me look at the project first.",
        "Let me run the test to see the failure.",
        "     FAIL: add 2 3 = -1, expected 5",
        "  ⎿  PASS: add 2 3 = 5",
        // The answer on a row of its own: nothing glued to it.
        "Fixed: add in calc.sh computed $1 - $2; it now computes $1 + $2, and sh test.sh passes.",
        "> /exit",
    ];
    for line in once {
        let n = rows.iter().filter(|r| r.trim_end() == line).count();
        assert_eq!(n, 1, "`{line}` in\n{shown}");
    }
    // The dialog, the spinner and the input box are live, never history.
    for live in [
        "Do you want to proceed?",
        "esc to interrupt",
        "Working…",
        "Thinking…",
    ] {
        assert!(!shown.contains(live), "`{live}` in\n{shown}");
    }
    // The closing lines: the test's result, and how to keep the project
    // (it is removed), naming this binary (tack is not on PATH).
    let tail: Vec<String> = shown
        .replace(&exe.display().to_string(), "<tack>")
        .lines()
        .filter(|l| l.starts_with("the test now") || l.starts_with("the demo's project"))
        .map(str::to_owned)
        .collect();
    assert_eq!(
        tail,
        [
            "the test now: sh test.sh  →  PASS: add 2 3 = 5",
            "the demo's project is removed; `<tack> demo --keep` keeps it to try tack on it with your own API key",
        ],
        "{shown}"
    );
    assert_eq!(transcripts(home.path()), 1);
    assert_eq!(projects(home.path()), Vec::<PathBuf>::new());
}

#[test]
fn a_signal_ends_the_demo_and_removes_its_project() {
    let home = home();
    let (mut pty, project) = at_the_dialog(home.path());
    assert!(project.join("calc.sh").exists());
    let pid = pty.pid().unwrap() as i32;
    // SAFETY: a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let status = pty.wait_exit(WAIT).unwrap();
    assert!(!status.success());
    assert_eq!(projects(home.path()), Vec::<PathBuf>::new());
}

#[test]
fn piped_the_demo_prints_a_clean_transcript() {
    let home = home();
    let out = assert_cmd::Command::cargo_bin("tack")
        .unwrap()
        .env_clear()
        .envs(vars(home.path()))
        .args(["demo", "--keep"])
        .write_stdin("")
        .timeout(WAIT)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let project = project_in(&stdout);
    let exe = Path::new(env!("CARGO_BIN_EXE_tack"))
        .canonicalize()
        .unwrap();
    let session = stdout
        .lines()
        .find_map(|l| l.split("--resume ").nth(1))
        .unwrap()
        .to_owned();
    let text = stdout
        .replace(&project.display().to_string(), "<project>")
        .replace(&exe.display().to_string(), "<tack>")
        .replace(&home.path().display().to_string(), "<home>")
        .replace(&session, "<session>");
    let text = normalise_project_dir(&text);
    assert_eq!(
        text,
        r#"tack demo: a real session against a built-in scripted model (no API key, no network).
project: <project>

> The test in this project fails. Find the bug, fix it and run the test.

Let me look at the project first.

● Glob(*)
  ⎿  Found 3 files

● Read(test.sh)
  ⎿  Read 9 lines

● Read(calc.sh)
  ⎿  Read 5 lines

Let me run the test to see the failure.

● Bash(sh test.sh)
  ⎿  Exit code 1
     FAIL: add 2 3 = -1, expected 5

`add` subtracts its arguments instead of adding them. Fixing it.

● Edit(calc.sh)
  ⎿  Updated calc.sh with 1 addition and 1 removal
     4 - $(( $1 - $2 ))
     4 + $(( $1 + $2 ))

● Bash(sh test.sh)
  ⎿  PASS: add 2 3 = 5

Fixed: `add` in calc.sh computed `$1 - $2`; it now computes `$1 + $2`, and `sh test.sh` passes.

success · 6 model requests · $0.0509 as priced for claude-opus-5-5
transcript: <home>/.claude/projects/<project dir>/<session>.jsonl
go on with it (your own API key): cd <project> && <tack> --resume <session>

verify yourself: cd <project> && sh test.sh  →  PASS: add 2 3 = 5
try tack on it with your own API key: cd <project> && <tack> -p "What does calc.sh do?"
"#
    );
    assert_eq!(transcripts(home.path()), 1);
    // Kept: the project is still there.
    assert_eq!(projects(home.path()), [project]);
}

/// The transcript's folder is the project's path with `/` and `.` as `-`.
fn normalise_project_dir(text: &str) -> String {
    text.lines()
        .map(
            |line| match line.strip_prefix("transcript: <home>/.claude/projects/") {
                Some(rest) => {
                    let file = rest.rsplit('/').next().unwrap_or(rest);
                    format!("transcript: <home>/.claude/projects/<project dir>/{file}")
                }
                None => line.to_owned(),
            },
        )
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}
