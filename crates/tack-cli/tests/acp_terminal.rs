//! Bash in the editor's terminal: `tack acp` driven by a client that offers
//! `terminal` (its terminals are real processes, run as an editor runs
//! them: the command line in a shell, stdout and stderr as one stream, the
//! start dropped past `outputByteLimit`). A foreground command runs there and
//! the call shows it at once; its timeout and the user's cancel kill it
//! (kill, then release); a client that errors or never answers is the
//! tool's error; a command the sandbox confines, and a background one, stay
//! in tack.

use std::collections::HashMap;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

use crate::acp::tack_acp;
use crate::acp_client::{AcpClient, Answer, Heard, allow, calls};
use crate::common::{Env, last_tool_results};

/// An editor's terminals: each a shell running the command line.
#[derive(Default)]
struct Terminals {
    made: u32,
    running: HashMap<String, Terminal>,
}

struct Terminal {
    child: Child,
    output: Arc<Mutex<Vec<u8>>>,
    reader: Option<std::thread::JoinHandle<()>>,
    limit: usize,
    truncated: bool,
}

impl Terminal {
    /// Kills the shell and what it started (its process group).
    fn kill(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.wait();
    }
}

impl Terminals {
    /// The answer to a `terminal/*` request; `None` for any other method.
    fn answer(&mut self, method: &str, params: &Value) -> Option<Value> {
        let id = params["terminalId"].as_str().unwrap_or_default().to_owned();
        Some(match method {
            "terminal/create" => json!({"terminalId": self.create(params)}),
            "terminal/wait_for_exit" => {
                let terminal = self.running.get_mut(&id)?;
                let status = terminal.child.wait().unwrap();
                if let Some(reader) = terminal.reader.take() {
                    reader.join().unwrap();
                }
                exit_status(status)
            }
            "terminal/output" => {
                let terminal = self.running.get_mut(&id)?;
                let exited = terminal.child.try_wait().unwrap();
                if let (Some(_), Some(reader)) = (exited, terminal.reader.take()) {
                    reader.join().unwrap();
                }
                let mut output = terminal.output.lock().unwrap().clone();
                if output.len() > terminal.limit {
                    output.drain(..output.len() - terminal.limit);
                    terminal.truncated = true;
                }
                let mut answer = json!({
                    "output": String::from_utf8_lossy(&output),
                    "truncated": terminal.truncated,
                });
                if let Some(status) = exited {
                    answer["exitStatus"] = exit_status(status);
                }
                answer
            }
            "terminal/kill" => {
                self.running.get_mut(&id)?.kill();
                json!({})
            }
            "terminal/release" => {
                self.running.remove(&id)?.kill();
                json!({})
            }
            _ => return None,
        })
    }

    fn create(&mut self, params: &Value) -> String {
        let mut command = Command::new("sh");
        let line = params["command"].as_str().unwrap();
        command
            .arg("-c")
            .arg(format!("exec 2>&1\n{line}"))
            .current_dir(params["cwd"].as_str().unwrap())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .process_group(0);
        for var in params["env"].as_array().into_iter().flatten() {
            command.env(
                var["name"].as_str().unwrap(),
                var["value"].as_str().unwrap(),
            );
        }
        let mut child = command.spawn().unwrap();
        let output = Arc::new(Mutex::new(Vec::new()));
        let (mut pipe, into) = (child.stdout.take().unwrap(), output.clone());
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = pipe.read(&mut buf) {
                into.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        self.made += 1;
        let id = format!("term-{}", self.made);
        let limit = params["outputByteLimit"].as_u64().unwrap_or(u64::MAX) as usize;
        self.running.insert(
            id.clone(),
            Terminal {
                child,
                output,
                reader: Some(reader),
                limit,
                truncated: false,
            },
        );
        id
    }
}

fn exit_status(status: std::process::ExitStatus) -> Value {
    let signal = status.signal().map(|s| match s {
        9 => "SIGKILL".to_owned(),
        15 => "SIGTERM".to_owned(),
        n => format!("signal {n}"),
    });
    json!({"exitCode": status.code(), "signal": signal})
}

/// `tack acp` initialized by a client that offers terminals (no file system).
fn with_terminals(env: &Env) -> AcpClient {
    let mut client = tack_acp(env);
    let params = json!({
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": true},
    });
    client.call("initialize", params);
    client
}

fn new_session(client: &mut AcpClient, env: &Env) -> String {
    let (opened, _) = client.call("session/new", json!({"cwd": env.cwd(), "mcpServers": []}));
    opened["sessionId"].as_str().unwrap().to_owned()
}

/// A new session of `tack acp` in `env`, prompted: the client, the
/// session's id and the prompt's.
fn prompted(env: &Env) -> (AcpClient, String, u64) {
    let mut client = with_terminals(env);
    let session = new_session(&mut client, env);
    let params = json!({"sessionId": session, "prompt": [{"type": "text", "text": "run it"}]});
    let id = client.request("session/prompt", params);
    (client, session, id)
}

/// A new session of `tack acp` in `env` prompted, the editor answering
/// (`editor`) until the turn ends: what it heard.
fn ran_to_its_end(env: &Env) -> Heard {
    let (mut client, _, id) = prompted(env);
    let (mut terminals, mut heard) = (Terminals::default(), Heard::default());
    let answer =
        client.read_answering(&mut heard, |m, p| editor(&mut terminals, m, p), answers(id));
    assert_eq!(answer["result"], json!({"stopReason": "end_turn"}));
    heard
}

/// The editor's answer: from its terminals, and "Allow" to a permission.
fn editor(terminals: &mut Terminals, method: &str, params: &Value) -> Answer {
    Answer::Result(
        terminals
            .answer(method, params)
            .unwrap_or_else(|| allow(method, params)),
    )
}

/// Whether a message is the answer to request `id`.
fn answers(id: u64) -> impl Fn(&Value) -> bool {
    move |m| m["id"] == json!(id) && m.get("method").is_none()
}

/// The agent's requests, each as `[method, params]` without the session's id.
fn asked(heard: &Heard) -> Vec<Value> {
    heard
        .requests
        .iter()
        .map(|r| {
            let mut params = r["params"].clone();
            params.as_object_mut().unwrap().remove("sessionId");
            match r["method"].as_str() {
                // The tool call it asks about is checked with the updates.
                Some("session/request_permission") => {
                    json!([r["method"], params["toolCall"]["toolCallId"]])
                }
                _ => json!([r["method"], params]),
            }
        })
        .collect()
}

/// The tool results the model read last.
fn results(env: &Env) -> Vec<(String, String)> {
    last_tool_results(env.request_bodies().last().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bash_runs_in_the_editors_terminal_and_the_call_shows_it() {
    let env = Env::new(Script::new([
        Reply::tool_use(
            "toolu_bash",
            "Bash",
            json!({"command": "touch made.txt; echo out; echo err >&2; exit 3", "description": "Make a file"}),
        ),
        Reply::text("Done."),
    ]))
    .await;
    let heard = ran_to_its_end(&env);
    assert!(env.cwd().join("made.txt").exists());
    let terminal = json!({"terminalId": "term-1"});
    assert_eq!(
        asked(&heard),
        vec![
            json!(["session/request_permission", "toolu_bash"]),
            json!(["terminal/create", {
                "command": "touch made.txt; echo out; echo err >&2; exit 3",
                "env": [{"name": "CLAUDECODE", "value": "1"}],
                "cwd": env.cwd(), "outputByteLimit": 1_048_576,
            }]),
            json!(["terminal/wait_for_exit", terminal]),
            json!(["terminal/output", terminal]),
            json!(["terminal/release", terminal]),
        ]
    );
    let said = "Exit code 3\nout\nerr";
    assert_eq!(
        calls(&heard.updates, &[])
            .into_iter()
            .filter(|u| !matches!(
                u["sessionUpdate"].as_str(),
                Some("usage_update" | "available_commands_update")
            ))
            .collect::<Vec<_>>(),
        vec![
            json!({"sessionUpdate": "tool_call", "toolCallId": "toolu_bash",
                   "title": "touch made.txt; echo out; echo err >&2; exit 3", "kind": "execute",
                   "content": [{"type": "content", "content": {"type": "text", "text": "Make a file"}}],
                   "rawInput": {"command": "touch made.txt; echo out; echo err >&2; exit 3",
                                "description": "Make a file"},
                   "_meta": {"claudeCode": {"toolName": "Bash"}}}),
            // Shown at once, and kept at the end: the output is in it.
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "toolu_bash",
                   "status": "in_progress", "content": [{"type": "terminal", "terminalId": "term-1"}]}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "toolu_bash",
                   "status": "failed", "rawOutput": said,
                   "_meta": {"claudeCode": {"toolName": "Bash"}}}),
        ]
    );
    assert_eq!(results(&env), [("toolu_bash".to_owned(), said.to_owned())]);
}

/// Output over Bash's cap is saved to a file and shown as its head and
/// tail, as a local command's; output the terminal cut (over the 1 MiB it
/// was asked to keep) says so, and the file holds what it kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_output_is_saved_as_a_local_commands_and_a_cut_one_says_so() {
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use("toolu_long", "Bash", json!({"command": "seq 1 8000"}))
            .tool_use("toolu_cut", "Bash", json!({"command": "seq 1 200000"}))
            .into(),
        Reply::text("Done."),
    ]))
    .await;
    ran_to_its_end(&env);
    let seq = |n: u32| (1..=n).map(|i| format!("{i}\n")).collect::<String>();
    let (long, all) = (seq(8000), seq(200_000));
    let kept = &all[all.len() - 1_048_576..];
    let results = results(&env);
    let saved = |text: &str, head: &str| {
        let (first, shown) = text.split_once("\n\n").unwrap();
        let path = first
            .strip_prefix(head)
            .unwrap_or_else(|| panic!("{first}"));
        (std::fs::read_to_string(path).unwrap(), shown.to_owned())
    };
    let (file, shown) = saved(
        &results[0].1,
        "Output too large (38.0KB). Full output saved to: ",
    );
    assert_eq!(file, long);
    assert!(shown.starts_with("1\n2\n3\n") && shown.ends_with("7999\n8000"));
    assert!(
        shown.contains("\n\n... [8893 bytes truncated] ...\n\n"),
        "{shown}"
    );
    let (file, _) = saved(
        &results[1].1,
        "Output too large (over 1.0MB: the editor's terminal kept only its last 1.0MB). What it kept is saved to: ",
    );
    assert_eq!(file, kept);
}

/// A command that is still running when the user cancels: kill, then
/// release, within 100 ms; the prompt ends `cancelled`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_kills_and_releases_the_terminal_within_100_ms() {
    let env = Env::new(Script::new([Reply::tool_use(
        "toolu_sleep",
        "Bash",
        json!({"command": "sleep 30"}),
    )]))
    .await;
    let (mut client, session, id) = prompted(&env);
    let (mut terminals, mut heard) = (Terminals::default(), Heard::default());
    let waiting = |m: &Value| m["method"] == "terminal/wait_for_exit";
    client.read_answering(&mut heard, |m, p| editor(&mut terminals, m, p), waiting);
    let sent = Instant::now();
    client.notify("session/cancel", json!({"sessionId": session}));
    // The prompt's answer, the kill and the release, in whatever order.
    let (mut took, mut answer) = (Vec::new(), None);
    while answer.is_none() || took.len() < 2 {
        let wanted = |m: &Value| {
            m["method"] == "terminal/kill" || m["method"] == "terminal/release" || answers(id)(m)
        };
        let message = client.read_until(&mut heard, |_, _| Value::Null, wanted);
        match message["method"].as_str() {
            Some(method) => {
                took.push((method.to_owned(), sent.elapsed()));
                let answered = terminals.answer(method, &message["params"]).unwrap();
                client.respond(&message["id"], answered);
            }
            None => answer = Some(message),
        }
    }
    assert_eq!(
        answer.unwrap()["result"],
        json!({"stopReason": "cancelled"})
    );
    let order: Vec<&str> = took.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(order, ["terminal/kill", "terminal/release"]);
    println!("session/cancel -> terminal/kill, terminal/release: {took:?}");
    assert!(took[1].1 < Duration::from_millis(100), "{took:?}");
    assert!(terminals.running.is_empty(), "released");
}

/// Bash's timeout kills the command; the result is what it printed so far,
/// as a local command's timeout says it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_kills_the_terminal_and_keeps_its_output() {
    let env = Env::new(Script::new([
        Reply::tool_use(
            "toolu_slow",
            "Bash",
            json!({"command": "echo started; sleep 30", "timeout": 300}),
        ),
        Reply::text("It was slow."),
    ]))
    .await;
    let (mut client, _, id) = prompted(&env);
    let (mut terminals, mut heard) = (Terminals::default(), Heard::default());
    let answer = client.read_answering(
        &mut heard,
        |method, params| match method {
            // An editor answers when the command exits: after the kill.
            "terminal/wait_for_exit" => Answer::Never,
            _ => editor(&mut terminals, method, params),
        },
        answers(id),
    );
    assert_eq!(answer["result"], json!({"stopReason": "end_turn"}));
    let methods: Vec<&str> = heard
        .requests
        .iter()
        .filter_map(|r| r["method"].as_str())
        .collect();
    assert_eq!(
        methods,
        [
            "session/request_permission",
            "terminal/create",
            "terminal/wait_for_exit",
            "terminal/kill",
            "terminal/output",
            "terminal/release"
        ]
    );
    assert_eq!(
        results(&env),
        [(
            "toolu_slow".to_owned(),
            "Command timed out after 300ms and was killed\nstarted".to_owned()
        )]
    );
}

/// An editor that fails `terminal/create`, or never answers it: the tool's
/// error says so (within the command's timeout), and the turn goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_fails_or_never_answers_is_the_tools_error() {
    let env = Env::new(Script::new([
        Reply::tool_use("toolu_fails", "Bash", json!({"command": "true"})),
        Reply::tool_use(
            "toolu_hangs",
            "Bash",
            json!({"command": "true", "timeout": 300}),
        ),
        Reply::text("No terminal today."),
    ]))
    .await;
    let (mut client, _, id) = prompted(&env);
    let mut heard = Heard::default();
    let mut creates = 0;
    let started = Instant::now();
    let answer = client.read_answering(
        &mut heard,
        |method, params| match method {
            "terminal/create" => {
                creates += 1;
                match creates {
                    1 => Answer::Error(json!({"code": -32603, "message": "no shell here"})),
                    _ => Answer::Never,
                }
            }
            _ => Answer::Result(allow(method, params)),
        },
        answers(id),
    );
    assert_eq!(answer["result"], json!({"stopReason": "end_turn"}));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let bodies = env.request_bodies();
    let read: Vec<(String, String)> = bodies[1..].iter().flat_map(last_tool_results).collect();
    assert_eq!(
        read,
        [
            (
                "toolu_fails".to_owned(),
                "<tool_use_error>Could not run the command in the editor's terminal: terminal/create failed: no shell here</tool_use_error>".to_owned()
            ),
            (
                "toolu_hangs".to_owned(),
                "<tool_use_error>Could not run the command in the editor's terminal: the editor did not answer terminal/create within 300ms</tool_use_error>".to_owned()
            ),
        ]
    );
}

/// A command the sandbox confines runs in tack's sandbox, not in the
/// editor (it would escape it there); a background one stays in tack too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandboxed_and_background_commands_stay_in_tack() {
    let settings = json!({
        "permissions": {"allow": ["Bash(*)"]},
        "sandbox": {"enabled": true},
    });
    let script = Script::new([
        Reply::tool_use(
            "toolu_confined",
            "Bash",
            json!({"command": "echo confined"}),
        ),
        Reply::tool_use(
            "toolu_background",
            "Bash",
            json!({"command": "echo later", "run_in_background": true}),
        ),
        Reply::text("Done."),
    ]);
    let env = crate::sandbox::project(script, settings).await;
    let heard = ran_to_its_end(&env);
    assert_eq!(heard.requests, Vec::<Value>::new());
    let bodies = env.request_bodies();
    let confined = last_tool_results(&bodies[1]);
    assert_eq!(
        confined,
        [("toolu_confined".to_owned(), "confined".to_owned())]
    );
    let background = last_tool_results(&bodies[2]);
    assert!(
        background[0]
            .1
            .starts_with("Command running in background with ID: "),
        "{background:?}"
    );
}
