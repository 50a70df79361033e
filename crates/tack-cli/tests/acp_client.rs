//! An ACP client as an editor is one: JSON-RPC lines to an agent process's
//! stdin, its answers, notifications and requests read from its stdout. The
//! tests of `tack acp` and of Zed's adapters pointed at tack drive their
//! agents with it through the same script ([`edit_then_bash`]).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_testkit::Reply;

/// What the client heard while waiting for one answer.
#[derive(Debug, Default)]
pub struct Heard {
    /// Every `session/update`'s `update`, in order.
    pub updates: Vec<Value>,
    /// Every request the agent made (method and params), in order.
    pub requests: Vec<Value>,
}

/// How the client answers one of the agent's requests.
#[derive(Debug)]
pub enum Answer {
    Result(Value),
    /// A JSON-RPC error object.
    Error(Value),
    /// Not at all (an editor that hangs).
    Never,
}

pub struct AcpClient {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
    next_id: u64,
    /// What the agent wrote on stderr, for failure messages.
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl AcpClient {
    /// Starts `command` with piped stdio.
    pub fn spawn(mut command: Command) -> AcpClient {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                // Adapters may log on stdout; only JSON-RPC lines count.
                if let Ok(value) = serde_json::from_str::<Value>(&line)
                    && tx.send(value).is_err()
                {
                    break;
                }
            }
        });
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let mut err = child.stderr.take().unwrap();
        let keep = stderr.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut err, &mut text);
            keep.lock().unwrap().push_str(&text);
        });
        AcpClient {
            child,
            stdin,
            lines,
            next_id: 0,
            stderr,
        }
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request; its id.
    pub fn request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Reads until `done` says a message is the last wanted (returned);
    /// the agent's requests are answered by `answer` on the way.
    pub fn read_until(
        &mut self,
        heard: &mut Heard,
        mut answer: impl FnMut(&str, &Value) -> Value,
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        self.read_answering(heard, |m, p| Answer::Result(answer(m, p)), done)
    }

    /// [`AcpClient::read_until`], with requests answered with an error or
    /// not at all as `answer` says.
    pub fn read_answering(
        &mut self,
        heard: &mut Heard,
        mut answer: impl FnMut(&str, &Value) -> Answer,
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = match self.lines.recv_timeout(left) {
                Ok(message) => message,
                Err(RecvTimeoutError::Timeout) => panic!(
                    "nothing wanted within 60 s; heard {heard:#?}\nstderr: {}",
                    self.stderr.lock().unwrap()
                ),
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "the agent closed stdout; heard {heard:#?}\nstderr: {}",
                    self.stderr.lock().unwrap()
                ),
            };
            if done(&message) {
                return message;
            }
            match (
                message.get("method").and_then(Value::as_str),
                message.get("id"),
            ) {
                (Some("session/update"), None) => {
                    heard.updates.push(message["params"]["update"].clone());
                }
                (Some(method), Some(id)) => {
                    heard
                        .requests
                        .push(json!({"method": method, "params": message["params"]}));
                    match answer(method, &message["params"]) {
                        Answer::Result(result) => self.respond(id, result),
                        Answer::Error(error) => {
                            self.send(json!({"jsonrpc": "2.0", "id": id, "error": error}));
                        }
                        Answer::Never => {}
                    }
                }
                _ => {}
            }
        }
    }

    /// Answers the agent's request `id`.
    pub fn respond(&mut self, id: &Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    /// Reads until the answer to request `id`, returned whole.
    pub fn answer_to(
        &mut self,
        id: u64,
        heard: &mut Heard,
        answer: impl FnMut(&str, &Value) -> Value,
    ) -> Value {
        self.read_until(heard, answer, |m| {
            m.get("id") == Some(&json!(id)) && m.get("method").is_none()
        })
    }

    /// The answer's `result`, failing on an error answer.
    pub fn call(&mut self, method: &str, params: Value) -> (Value, Heard) {
        let id = self.request(method, params);
        let mut heard = Heard::default();
        let answer = self.answer_to(id, &mut heard, allow);
        assert!(
            answer.get("error").is_none(),
            "{method} failed: {answer}\nstderr: {}",
            self.stderr.lock().unwrap()
        );
        (answer["result"].clone(), heard)
    }
}

impl Drop for AcpClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `initialize`'s params for a client whose file system offers reads
/// and / or writes (no terminal).
pub fn init_params(read: bool, write: bool) -> Value {
    json!({
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": read, "writeTextFile": write}, "terminal": false},
    })
}

/// Prompts `session` for the slow answer ([`slow_answer`]), cancels once
/// its first chunk is here, and returns the prompt's answer and how long
/// it took after the cancel.
pub fn cancel_slow_prompt(client: &mut AcpClient, session: &str) -> (Value, Duration) {
    let params =
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "take your time"}]});
    let id = client.request("session/prompt", params);
    let mut heard = Heard::default();
    client.read_until(&mut heard, allow, |m| {
        m["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    });
    let sent = Instant::now();
    client.notify("session/cancel", json!({"sessionId": session}));
    let answer = client.answer_to(id, &mut heard, allow);
    (answer, sent.elapsed())
}

/// Answers every permission request "Allow" (once).
pub fn allow(method: &str, _params: &Value) -> Value {
    match method {
        "session/request_permission" => {
            json!({"outcome": {"outcome": "selected", "optionId": "allow"}})
        }
        _ => Value::Null,
    }
}

/// The model's side of the editor's script in `dir`: edit `a.txt` (not
/// read in the session: Claude Code 2.1.328 takes that edit, and the issue's
/// current adapter failed on it), run `touch made.txt` in Bash, say done.
pub fn edit_then_bash(dir: &Path) -> Vec<Reply> {
    let file = dir.join("a.txt").display().to_string();
    vec![
        Reply::message()
            .text("Editing it.")
            .tool_use(
                "toolu_edit",
                "Edit",
                json!({"file_path": file, "old_string": "hello", "new_string": "bye"}),
            )
            .into(),
        Reply::tool_use(
            "toolu_bash",
            "Bash",
            json!({"command": "touch made.txt", "description": "Make a file"}),
        ),
        Reply::text("Done."),
    ]
}

/// A slow answer: a few chunks, then nothing for a minute.
pub fn slow_answer() -> Reply {
    Reply::message()
        .text("a long answer that takes its time")
        .stall_after(4, Duration::from_secs(60))
        .into()
}

/// Text of the message chunks among `updates`, joined.
pub fn said(updates: &[Value], kind: &str) -> String {
    updates
        .iter()
        .filter(|u| u["sessionUpdate"] == kind)
        .filter_map(|u| u["content"]["text"].as_str())
        .collect()
}

/// The updates that are not message chunks (tool calls, plans, modes),
/// with the keys named dropped (what differs between runs).
pub fn calls(updates: &[Value], drop_keys: &[&str]) -> Vec<Value> {
    updates
        .iter()
        .filter(|u| {
            !matches!(
                u["sessionUpdate"].as_str(),
                Some("agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk")
            )
        })
        .cloned()
        .map(|mut u| {
            if let Some(object) = u.as_object_mut() {
                for key in drop_keys {
                    object.remove(*key);
                }
            }
            u
        })
        .collect()
}
