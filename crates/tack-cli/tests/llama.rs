//! A real inference server no one here wrote: llama.cpp's OpenAI-compatible
//! server (PyPI `llama-cpp-python`) with a tiny model of random weights that
//! the test writes itself (`llama/tiny_gguf.py`; no weights can be
//! downloaded). tack talks to it as an `openai-chat` provider: a session of
//! two tool calls, each streamed by the real server (forced through its
//! grammar by `llama/serve.py`), run, and its result sent back as a `tool`
//! message, then the answer streamed.
//!
//! The server is an opt-in install (`.ci/install-llama.sh`, a compile of
//! minutes; `.ci/run-llama` installs and runs this). Without it the test
//! prints why and passes, unless `TACK_REQUIRE_LLAMA` is set.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Env, kinds, lines, stderr};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::Script;

/// The venv `.ci/install-llama.sh` made.
fn llama_python() -> Option<PathBuf> {
    let dir = std::env::var_os("TACK_LLAMA_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/llama"),
        PathBuf::from,
    );
    let python = dir.join("bin/python");
    let works = Command::new(&python)
        .args(["-c", "import llama_cpp.server, gguf"])
        .output()
        .is_ok_and(|o| o.status.success());
    works.then_some(python)
}

/// The server, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Starts `serve.py` on a free port and waits (at most a minute) until it
/// lists its model.
fn start_server(python: &Path, model: &Path, requests: &Path) -> (Server, u16) {
    let port = free_port();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/llama/serve.py");
    let child = Command::new(python)
        .arg(script)
        .arg(model)
        .arg(port.to_string())
        .env("TACK_LLAMA_REQUESTS", requests)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let server = Server(child);
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        if models_listed(port) {
            return (server, port);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("llama.cpp's server did not start on port {port} within a minute");
}

fn models_listed(port: u16) -> bool {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let request =
        format!("GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    let mut answer = String::new();
    stream.write_all(request.as_bytes()).is_ok()
        && stream.read_to_string(&mut answer).is_ok()
        && answer.starts_with("HTTP/1.1 200")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_two_tool_session_with_llama_cpps_server() {
    let Some(python) = llama_python() else {
        assert!(
            std::env::var_os("TACK_REQUIRE_LLAMA").is_none(),
            "TACK_REQUIRE_LLAMA is set but llama-cpp-python is not installed (.ci/install-llama.sh)"
        );
        println!("skipped: llama-cpp-python is not installed (run .ci/install-llama.sh)");
        return;
    };
    let env = Env::new(Script::new([])).await;
    let work = tempfile::tempdir().unwrap();
    let model = work.path().join("tiny.gguf");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/llama/tiny_gguf.py");
    let made = Command::new(&python)
        .arg(script)
        .arg(&model)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let requests = work.path().join("requests.jsonl");
    let (_server, port) = start_server(&python, &model, &requests);

    let settings = json!({"providers": {"local": {
        "api": "openai-chat", "baseUrl": format!("http://127.0.0.1:{port}/v1")}}});
    let out = env
        .tack()
        .env("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "24")
        .args([
            "-p",
            "Read notes.txt",
            "--model",
            "local/tiny",
            "--tools",
            "Read,Glob",
        ])
        .args(["--system-prompt", "You read files.", "--max-turns", "3"])
        .args(["--output-format", "stream-json", "--verbose"])
        .args(["--settings", &settings.to_string()])
        .output()
        .unwrap();
    let records = lines(&out.stdout);
    assert_eq!(
        kinds(&records)[..6],
        [
            "system/init",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant"
        ],
        "{}\n{records:#?}",
        stderr(&out)
    );
    let sent: Vec<Value> = std::fs::read_to_string(&requests)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(sent.len() >= 3, "{sent:#?}");
    // The real server's streamed calls, whole, of the tools in the order the
    // front forced them, each with a JSON object input; each ran (the random
    // model's strings are empty, so each tool said what was wrong).
    let offered: Vec<&Value> = sent[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["function"]["name"])
        .collect();
    for (n, at) in [1, 3].into_iter().enumerate() {
        let call = &records[at]["message"]["content"][0];
        assert_eq!(
            (&call["type"], &call["name"], call["input"].is_object()),
            (&json!("tool_use"), offered[n], true),
            "{call:#}"
        );
        let result = &records[at + 1]["message"]["content"][0];
        assert_eq!(
            (&result["type"], &result["tool_use_id"]),
            (&json!("tool_result"), &call["id"])
        );
    }
    // The user's cap holds on every request (a cut answer is resumed, not
    // retried at 64k).
    let caps: Vec<&Value> = sent.iter().map(|r| &r["max_tokens"]).collect();
    assert!(caps.iter().all(|c| **c == json!(24)), "{caps:?}");
    // What the server was sent: both calls and their results as OpenAI
    // messages, paired by id.
    let messages = sent[2]["messages"].as_array().unwrap();
    let ids = |role: &str, field: &str| -> Vec<Value> {
        messages
            .iter()
            .filter(|m| m["role"] == role)
            .map(|m| match field {
                "tool_call_id" => m["tool_call_id"].clone(),
                _ => m["tool_calls"][0]["id"].clone(),
            })
            .collect()
    };
    assert_eq!(ids("tool", "tool_call_id"), ids("assistant", "tool_calls"));
    assert_eq!(
        (ids("tool", "tool_call_id").len(), &sent[0]["model"]),
        (2, &json!("tiny"))
    );
    // The answer after the result was streamed: text, then a result record.
    let answer = &records[5]["message"]["content"];
    assert!(
        answer.as_array().is_some_and(|a| !a.is_empty()),
        "{answer:#}"
    );
    assert_eq!(records.last().unwrap()["type"], "result");
}
