//! End-to-end tests for issue 23 ("Hardening, round two"): hostile repositories
//! against the real `tack` binary and the scripted server. Each test is named
//! after the issue's item and failed before its fix.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::Env;
use common::{stderr, stdout, tack_with_memory_cap, write};
use pretty_assertions::assert_eq;
use tack_testkit::{Reply, Script};
use tack_tui::testing::{CommandBuilder, PtySession, keys};

/// How long one `tack` run may take before the test calls it hung.
const HANG: Duration = Duration::from_secs(30);

const GB: u64 = 1 << 30;

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

/// Puts something where a file goes.
type MakeFile = fn(&Path);

/// The stderr lines that start with "warning:".
fn warnings(out: &std::process::Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .map(str::to_owned)
        .collect()
}

// ---------------------------------------------------------------------------
// 3. A YAML "billion laughs" agent file.

/// 474 bytes that expand to 10^9 strings.
fn billion_laughs() -> String {
    let mut text = String::from(
        "---\nname: x\ndescription: d\nl0: &l0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for i in 1..9 {
        let refs = vec![format!("*l{}", i - 1); 9].join(",");
        text.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
    }
    text.push_str("---\nYou laugh.\n");
    text
}

#[tokio::test(flavor = "multi_thread")]
async fn item3_a_billion_laughs_agent_file_is_skipped_with_a_warning() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    write(env.cwd().join(".claude/agents/x.md"), &billion_laughs());
    write(
        env.cwd().join(".claude/agents/good.md"),
        "---\nname: good\ndescription: a fine agent\n---\nHi.\n",
    );
    let out = tack_with_memory_cap(&env, 2 * GB)
        .args(["-p", "hi"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stdout(&out), "ok\n");
    let path = env.cwd().join(".claude/agents/x.md");
    assert_eq!(
        warnings(&out),
        [format!(
            "warning: {}:8: invalid YAML frontmatter: the YAML expands to more than 10000 values (aliases copy what they name); agent skipped",
            path.display()
        )]
    );
    // The good agent is still offered to the model.
    let tools = env.request_bodies()[0]["tools"].to_string();
    assert!(tools.contains("- good: a fine agent"), "{tools}");
}

// ---------------------------------------------------------------------------
// 4. `.mcp.json` as /dev/zero or a FIFO.

#[tokio::test(flavor = "multi_thread")]
async fn item4_mcp_json_linked_to_dev_zero_or_a_fifo_is_refused_with_a_warning() {
    let env = Env::new(Script::new([Reply::text("ok"), Reply::text("ok")])).await;
    let file = env.cwd().join(".mcp.json");
    for (kind, make) in [
        (
            "a device",
            (|p: &Path| std::os::unix::fs::symlink("/dev/zero", p).unwrap()) as fn(&Path),
        ),
        ("a FIFO (named pipe)", mkfifo as fn(&Path)),
    ] {
        make(&file);
        let out = tack_with_memory_cap(&env, 2 * GB)
            .args(["-p", "hi"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{kind}: {out:?}");
        assert_eq!(
            warnings(&out),
            [format!(
                "warning: cannot read MCP config {}: it is {kind}, not a regular file; its MCP servers are skipped",
                file.display()
            )],
            "{kind}"
        );
        let list = tack_with_memory_cap(&env, 2 * GB)
            .args(["mcp", "list"])
            .output()
            .unwrap();
        assert!(list.status.success(), "{kind}: {list:?}");
        std::fs::remove_file(&file).unwrap();
    }
}

// ---------------------------------------------------------------------------
// 11. A repository's settings cannot stop tack from starting.

#[tokio::test(flavor = "multi_thread")]
async fn item11_a_broken_project_settings_file_is_skipped_with_a_warning() {
    let replies: Vec<Reply> = (0..5).map(|_| Reply::text("ok")).collect();
    let env = Env::new(Script::new(replies)).await;
    let file = env.cwd().join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let cases: [(&str, MakeFile); 4] = [
        ("it is a FIFO (named pipe), not a regular file", mkfifo),
        ("it is a directory, not a regular file", |p| {
            std::fs::create_dir(p).unwrap()
        }),
        ("it is a device, not a regular file", |p| {
            std::os::unix::fs::symlink("/dev/zero", p).unwrap()
        }),
        ("", |p| std::fs::write(p, "{\"model\": ").unwrap()),
    ];
    for (why, make) in cases {
        make(&file);
        let out = tack_with_memory_cap(&env, 2 * GB)
            .args(["-p", "hi"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{why}: {out:?}");
        assert_eq!(stdout(&out), "ok\n");
        let expected = if why.is_empty() {
            format!(
                "warning: invalid settings in {}:1:10: EOF while parsing a value; this settings file is skipped",
                file.display()
            )
        } else {
            format!(
                "warning: cannot read settings file {}: {why}; this settings file is skipped",
                file.display()
            )
        };
        assert_eq!(warnings(&out), [expected]);
        if file.is_dir() {
            std::fs::remove_dir(&file).unwrap();
        } else {
            std::fs::remove_file(&file).unwrap();
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn item11_a_malformed_deny_rule_of_an_untrusted_project_is_skipped_with_a_warning() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    write(
        env.cwd().join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Bash(:*", "Read(./secret)"]}}"#,
    );
    let out = tack_with_memory_cap(&env, 2 * GB)
        .args(["-p", "hi"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stdout(&out), "ok\n");
    let w = warnings(&out);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with(&format!(
            "warning: invalid permission rule `Bash(:*` in {} (deny): ",
            env.cwd().join(".claude/settings.json").display()
        )) && w[0].ends_with("; the rule is skipped"),
        "{w:?}"
    );
}

// ---------------------------------------------------------------------------
// 2. Trusting the home folder must not trust every repository under it.

/// `tack` (interactive) in a pseudo-terminal, with `HOME` set to `home`.
fn interactive_in(env: &Env, home: &Path) -> PtySession {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tack"));
    cmd.env_clear();
    for (key, value) in env.vars() {
        cmd.env(key, value);
    }
    cmd.env("HOME", home);
    cmd.env("TERM", "xterm-256color");
    cmd.cwd(home);
    PtySession::spawn(cmd, 80, 24).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item2_trusting_the_home_folder_in_the_dialog_lasts_for_the_session_only() {
    let env = Env::new(Script::new(Vec::<Reply>::new())).await;
    let home = env.cwd();
    for _ in 0..2 {
        let mut pty = interactive_in(&env, &home);
        pty.wait_for_text("Do you trust the files in this folder?", HANG)
            .unwrap();
        pty.send(b"1").unwrap();
        pty.wait_for_text("? for shortcuts", HANG).unwrap();
        pty.send(keys::CTRL_D).unwrap();
        assert!(pty.wait_exit(HANG).unwrap().success());
        // Nothing recorded: a repository cloned below is not trusted.
        assert!(!env.config_dir().join("config.json").exists());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn item2_tack_trust_refuses_broad_missing_and_non_folders_and_stores_the_resolved_path() {
    let env = Env::new(Script::new(Vec::<Reply>::new())).await;
    let home = env.home.path().canonicalize().unwrap();
    let cwd = env.cwd();
    std::fs::write(cwd.join("file.txt"), "x").unwrap();
    std::fs::create_dir(cwd.join("real")).unwrap();
    std::os::unix::fs::symlink(cwd.join("real"), cwd.join("link")).unwrap();
    let trust = |args: &[&str]| {
        let out = env.tack().arg("trust").args(args).output().unwrap();
        (out.status.code(), stdout(&out), stderr(&out))
    };
    let home_arg = home.to_string_lossy().into_owned();
    assert_eq!(
        [
            trust(&["/"]),
            trust(&[&home_arg]),
            trust(&["missing"]),
            trust(&["file.txt"]),
        ],
        [
            (
                Some(1),
                String::new(),
                "Error: refusing to trust /: it is the root folder: trusting it would trust every \
                 project on this machine. Trust the project folder instead, or pass --force\n"
                    .to_owned()
            ),
            (
                Some(1),
                String::new(),
                format!(
                    "Error: refusing to trust {home_arg}: it is your home folder: trusting it \
                     would trust every project under it. Trust the project folder instead, or pass --force\n"
                )
            ),
            (
                Some(1),
                String::new(),
                format!(
                    "Error: cannot trust {}: No such file or directory (os error 2)\n",
                    cwd.join("missing").display()
                )
            ),
            (
                Some(1),
                String::new(),
                format!(
                    "Error: cannot trust {}: it is not a folder\n",
                    cwd.join("file.txt").display()
                )
            ),
        ]
    );
    assert!(!env.config_dir().join("config.json").exists());
    assert_eq!(
        trust(&["link"]),
        (
            Some(0),
            format!("Trusted {}\n", cwd.join("real").display()),
            String::new()
        )
    );
    assert_eq!(
        trust(&[&home_arg, "--force"]),
        (Some(0), format!("Trusted {home_arg}\n"), String::new())
    );
    let config: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(env.config_dir().join("config.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        config,
        serde_json::json!({"projects": {
            (cwd.join("real").to_string_lossy()): {"hasTrustDialogAccepted": true},
            (home_arg): {"hasTrustDialogAccepted": true},
        }})
    );
}

// ---------------------------------------------------------------------------
// 1. A hidden command in the approval dialog.

/// `tack` (interactive) in a trusted project, in a pseudo-terminal.
fn interactive(env: &Env) -> PtySession {
    env.trust();
    interactive_in_cwd(env)
}

fn interactive_in_cwd(env: &Env) -> PtySession {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tack"));
    cmd.env_clear();
    for (key, value) in env.vars() {
        cmd.env(key, value);
    }
    cmd.env("TERM", "xterm-256color");
    cmd.cwd(env.cwd());
    PtySession::spawn(cmd, 120, 30).unwrap()
}

/// The dialog for `tool` with `input` shows `shown`; Esc refuses it.
async fn dialog_shows(tool: &str, input: serde_json::Value, shown: &str) -> Env {
    let env = Env::new(Script::new([
        Reply::message().tool_use("t1", tool, input).into(),
        Reply::text("Refused."),
    ]))
    .await;
    let mut pty = interactive(&env);
    pty.wait_for_text("? for shortcuts", HANG).unwrap();
    pty.send(b"go\r").unwrap();
    pty.wait_for_text("Do you want to proceed?", HANG).unwrap();
    let screen = pty.screen_text();
    assert!(screen.contains(shown), "{shown} not in\n{screen}");
    pty.send(keys::ESC).unwrap();
    pty.wait_until("the dialog closed and the turn over", HANG, |s| {
        let c = s.contents();
        !c.contains("Do you want to proceed?") && !c.contains("esc to interrupt")
    })
    .unwrap();
    pty.send(keys::CTRL_D).unwrap();
    assert!(pty.wait_exit(HANG).unwrap().success());
    // Item 6: the prompt history is the user's alone.
    let history = env.config_dir().join("prompt_history.jsonl");
    assert_eq!((mode(&history), mode(&env.config_dir())), (0o600, 0o700));
    env
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item1_a_bash_command_with_control_characters_is_shown_whole() {
    let env = dialog_shows(
        "Bash",
        serde_json::json!({"command": "echo hello\u{1b}]0; touch PWNED; true\u{7}"}),
        "echo hello␛]0; touch PWNED; true␇",
    )
    .await;
    assert!(!env.cwd().join("PWNED").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item1_a_write_path_with_control_characters_is_shown_whole() {
    let env = dialog_shows(
        "Write",
        serde_json::json!({"file_path": "notes\u{1b}[8m.txt\u{1b}[0m.sh", "content": "x"}),
        "notes␛[8m.txt␛[0m.sh",
    )
    .await;
    let written: Vec<String> = std::fs::read_dir(env.cwd())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".claude")
        .collect();
    assert_eq!(written, Vec::<String>::new());
}

// ---------------------------------------------------------------------------
// 7. Terminal injection from untrusted text.

#[tokio::test(flavor = "multi_thread")]
async fn item7_an_mcp_server_name_with_osc52_is_shown_not_run() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    write(
        env.cwd().join(".mcp.json"),
        r#"{"mcpServers": {"evil\u001b]52;c;SGVsbG8=\u0007": {"command": "true"}}}"#,
    );
    let out = env
        .tack()
        .timeout(HANG)
        .args(["-p", "hi"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = stderr(&out);
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
    assert!(
        stderr.contains("project MCP server \"evil␛]52;c;SGVsbG8=␇\""),
        "{stderr:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item7_print_mode_progress_on_a_terminal_shows_the_models_escapes() {
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use(
                "t1",
                "Bash",
                serde_json::json!({"command": "echo \u{1b}]0;owned\u{7}\u{202e}txt.exe"}),
            )
            .into(),
        Reply::text("done"),
    ]))
    .await;
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tack"));
    cmd.env_clear();
    for (key, value) in env.vars() {
        cmd.env(key, value);
    }
    cmd.env("TERM", "xterm-256color");
    cmd.cwd(env.cwd());
    for arg in ["-p", "go", "--dangerously-skip-permissions"] {
        cmd.arg(arg);
    }
    let mut pty = PtySession::spawn(cmd, 120, 30).unwrap();
    assert!(pty.wait_exit(HANG).unwrap().success());
    let rows = pty.all_rows().join("\n");
    assert!(
        rows.contains("● Bash(echo ␛]0;owned␇<U+202E>txt.exe)"),
        "{rows}"
    );
}

// ---------------------------------------------------------------------------
// 10. stream-json input limits.

fn stream_json(env: &Env, stdin: Vec<u8>) -> std::process::Output {
    env.tack()
        .timeout(HANG)
        .args(common::STREAM_JSON)
        .write_stdin(stdin)
        .output()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn item10_and_7_a_bad_stdin_line_is_described_not_echoed() {
    let env = Env::new(Script::new(Vec::<Reply>::new())).await;
    let big = {
        let mut line = vec![b'x'; 50 << 20];
        line.push(b'\n');
        line
    };
    let controls = b"\x1b]52;c;SGVsbG8=\x07\n".to_vec();
    let mut got = Vec::new();
    for stdin in [big, controls] {
        let out = stream_json(&env, stdin);
        got.push((out.status.code(), stderr(&out)));
    }
    assert_eq!(
        got,
        [
            (
                Some(1),
                "Error: invalid stdin line (expected value at line 1 column 1): a line that is not JSON of 52428800 bytes\n"
                    .to_owned()
            ),
            (
                Some(1),
                "Error: invalid stdin line (expected value at line 1 column 1): a line that is not JSON of 16 bytes\n"
                    .to_owned()
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn item10_a_control_request_without_request_id_is_answered_and_the_session_goes_on() {
    let env = Env::new(Script::new([Reply::text("still here")])).await;
    let stdin = concat!(
        r#"{"type":"control_request","request":{"subtype":"interrupt"}}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":"hi"}}"#,
        "\n"
    );
    let out = stream_json(&env, stdin.as_bytes().to_vec());
    assert!(out.status.success(), "{out:?}");
    let records = common::lines(&out.stdout);
    let responses: Vec<&serde_json::Value> = records
        .iter()
        .filter(|r| r["type"] == "control_response")
        .collect();
    assert_eq!(responses.len(), 1, "{records:?}");
    let response = &responses[0]["response"];
    assert_eq!(
        (&response["subtype"], &response["request_id"]),
        (&serde_json::json!("error"), &serde_json::json!(""))
    );
    assert!(
        response["error"]
            .as_str()
            .unwrap()
            .starts_with("invalid control request: missing field `request_id`"),
        "{response}"
    );
    let result = records.iter().find(|r| r["type"] == "result").unwrap();
    assert_eq!(result["result"], "still here");
}

// ---------------------------------------------------------------------------
// 6. Files under the config dir are the user's alone.

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test(flavor = "multi_thread")]
async fn item6_transcripts_and_trust_are_0600_in_0700_folders_and_old_ones_are_fixed() {
    use std::os::unix::fs::PermissionsExt as _;
    let env = Env::new(Script::new([Reply::text("one"), Reply::text("two")])).await;
    env.trust();
    let out = env
        .tack()
        .timeout(HANG)
        .args(["-p", "hi"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let transcript = env.transcripts().remove(0);
    let dir = transcript.parent().unwrap().to_owned();
    let config = env.config_dir().join("config.json");
    assert_eq!(
        (mode(&transcript), mode(&dir), mode(&config)),
        (0o600, 0o700, 0o600)
    );
    // Made readable by others (as an older tack created them): fixed on open.
    std::fs::set_permissions(&transcript, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = env
        .tack()
        .timeout(HANG)
        .args(["-p", "again", "--continue"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!((mode(&transcript), mode(&dir)), (0o600, 0o700));
}

// ---------------------------------------------------------------------------
// 9. Sub-agents nest at most 4 deep.

#[tokio::test(flavor = "multi_thread")]
async fn item9_sub_agents_nest_at_most_four_deep_with_a_clear_error_past_it() {
    let call = |id: &str| -> Reply {
        Reply::message()
            .tool_use(
                id,
                "Agent",
                serde_json::json!({"description": "go deeper", "prompt": "nest", "subagent_type": "nest"}),
            )
            .into()
    };
    // The session and four levels each start one; the fifth call is refused;
    // then each level answers.
    let mut replies: Vec<Reply> = (0..5).map(|i| call(&format!("t{i}"))).collect();
    replies.extend((0..5).map(|i| Reply::text(&format!("level {} done", 4 - i))));
    let env = Env::new(Script::new(replies)).await;
    write(
        env.cwd().join(".claude/agents/nest.md"),
        "---\nname: nest\ndescription: starts another\ntools: Agent\n---\nNest.\n",
    );
    let out = tack_with_memory_cap(&env, 2 * GB)
        .args(["-p", "go"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 10);
    let refused = bodies[5]["messages"].as_array().unwrap().last().unwrap()["content"][0].clone();
    assert_eq!(
        (refused["tool_use_id"].clone(), refused["is_error"].clone()),
        (serde_json::json!("t4"), serde_json::json!(true))
    );
    assert_eq!(
        refused["content"].to_string(),
        serde_json::json!(
            "<tool_use_error>Sub-agents may nest at most 4 levels deep; this agent is at level 4. \
             Do the work here instead of starting another agent.</tool_use_error>"
        )
        .to_string()
    );
}
