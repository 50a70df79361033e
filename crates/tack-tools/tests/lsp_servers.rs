//! The session's language servers (`tack_tools::lsp::LspServers`) against real
//! processes: pylsp (`.ci/install-lsp.sh`) for the first and a warm answer,
//! and small Python servers written here that exit at once, never answer, or
//! crash on demand, for the errors and the restart.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::installed::pylsp;
use tack_tools::lsp::{LspError, LspServerSpec, LspServers, ServerConfig};

fn spec(name: &str, command: &str, args: &[&str], extra: Value) -> LspServerSpec {
    let mut raw = json!({
        "command": command,
        "args": args,
        "extensionToLanguage": {".py": "python"},
    });
    raw.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let config: ServerConfig = serde_json::from_value(raw).unwrap();
    LspServerSpec {
        name: name.into(),
        config,
    }
}

fn hover_params(file: &Path, line: u32, character: u32) -> Value {
    json!({
        "textDocument": {"uri": format!("file://{}", file.display())},
        "position": {"line": line, "character": character}
    })
}

/// A Python language server: answers `initialize`, then `hover` with how many
/// times it was started; exits with 3 on a hover while `crash` exists (and
/// removes it), never answers `initialize` with `hang`, exits at once with `die`.
const FAKE: &str = r#"
import json, os, sys
mode = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
starts = os.path.join(here, "starts")
with open(starts, "a") as f:
    f.write("x")
if mode == "die":
    sys.stderr.write("fake: cannot find the project\n")
    sys.exit(3)
def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        k, v = line.split(b":", 1)
        if k.lower() == b"content-length":
            length = int(v)
    return json.loads(sys.stdin.buffer.read(length))
def send(msg):
    body = json.dumps(msg).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()
while True:
    msg = read()
    method, id = msg.get("method"), msg.get("id")
    if method == "initialize":
        if mode == "hang":
            continue
        send({"jsonrpc": "2.0", "id": id, "result": {"capabilities": {"hoverProvider": True}}})
    elif method == "textDocument/hover":
        crash = os.path.join(here, "crash")
        if os.path.exists(crash):
            os.remove(crash)
            sys.exit(3)
        n = len(open(starts).read())
        send({"jsonrpc": "2.0", "id": id, "result": {"contents": "start %d" % n}})
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": id, "result": None})
    elif method == "exit":
        sys.exit(0)
"#;

/// A project with `a.py` and the fake server `name` run in `mode`: the
/// project (kept alive by the returned dir), the file, the servers.
fn fake(name: &str, mode: &str, extra: Value) -> (tempfile::TempDir, PathBuf, LspServers) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let file = root.join("a.py");
    std::fs::write(&file, "x = 1\n").unwrap();
    let script = root.join("fake_server.py");
    std::fs::write(&script, FAKE).unwrap();
    let script = script.display().to_string();
    let server = spec(name, "python3", &[&script, mode], extra);
    let servers = LspServers::new(vec![server], root).unwrap();
    (dir, file, servers)
}

#[tokio::test(flavor = "multi_thread")]
async fn pylsp_answers_hover_first_with_its_start_then_warm() {
    let Some(pylsp) = pylsp() else { return };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let file = root.join("lib.py");
    std::fs::write(&file, "def greet(name):\n    return name\n\ngreet('x')\n").unwrap();
    let server = spec("pylsp", pylsp.to_str().unwrap(), &[], json!({}));
    let servers = LspServers::new(vec![server], root.clone()).unwrap();
    let started = Instant::now();
    let first = servers
        .request(&file, "textDocument/hover", hover_params(&file, 3, 1))
        .await;
    let first_ms = started.elapsed().as_secs_f64() * 1000.0;
    let warm_started = Instant::now();
    let warm = servers
        .request(&file, "textDocument/hover", hover_params(&file, 3, 1))
        .await;
    let warm_ms = warm_started.elapsed().as_secs_f64() * 1000.0;
    println!("LSP first answer (pylsp started, initialized, file opened, hover): {first_ms:.1} ms");
    println!("LSP warm answer (hover): {warm_ms:.1} ms");
    let value =
        |r: Result<Option<Value>, LspError>| r.unwrap().unwrap()["contents"]["value"].clone();
    let (first, warm) = (value(first), value(warm));
    assert!(first.as_str().unwrap().contains("greet(name)"), "{first}");
    assert_eq!(first, warm);
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_exits_at_once_is_a_clear_error_with_its_status_and_stderr() {
    let (_dir, file, servers) = fake("plugin:p:dies", "die", json!({"maxRestarts": 1}));
    let started = Instant::now();
    let mut errors = Vec::new();
    for _ in 0..3 {
        let r = servers
            .request(&file, "textDocument/hover", hover_params(&file, 0, 0))
            .await;
        errors.push(r.unwrap_err().to_string());
    }
    let took = started.elapsed();
    let exited = "LSP server plugin:p:dies exited (exit status: 3); its stderr ends: fake: cannot find the project";
    assert_eq!(
        errors,
        [
            exited.to_owned(),
            exited.to_owned(),
            "LSP server plugin:p:dies crashed 2 times and is not restarted (maxRestarts 1)"
                .to_owned(),
        ]
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_never_answers_times_out_within_its_startup_timeout() {
    let (_dir, file, servers) = fake("plugin:p:mute", "hang", json!({"startupTimeout": 500}));
    let started = Instant::now();
    let r = servers
        .request(&file, "textDocument/hover", hover_params(&file, 0, 0))
        .await;
    let took = started.elapsed();
    assert_eq!(
        r.unwrap_err().to_string(),
        "LSP server plugin:p:mute did not answer initialize within 500 ms"
    );
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_secs(3),
        "{took:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_crashed_server_is_started_again_on_its_next_use() {
    let (dir, file, servers) = fake("plugin:p:flaky", "ok", json!({}));
    let root = dir.path().canonicalize().unwrap();
    let mut got = Vec::new();
    for crash in [false, true, false] {
        if crash {
            std::fs::write(root.join("crash"), "").unwrap();
        }
        let r = servers
            .request(&file, "textDocument/hover", hover_params(&file, 0, 0))
            .await;
        got.push(match r {
            Ok(v) => v.unwrap()["contents"].clone(),
            Err(e) => json!(e.to_string()),
        });
    }
    assert_eq!(
        got,
        [
            json!("start 1"),
            json!("LSP server plugin:p:flaky exited (exit status: 3)"),
            json!("start 2"),
        ]
    );
    servers.shutdown().await;
}
