//! One running language server: its process, the JSON-RPC requests in
//! flight, and the diagnostics it published. A reader task owns stdout and
//! routes each message as it comes (a response to its waiter, a server
//! request answered at once, `publishDiagnostics` into the store); nothing
//! polls. When stdout ends every waiter gets [`LspError::Exited`].

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{Notify, oneshot};

use super::config::LspServerSpec;
use super::framing::{encode, read_message};

/// What the end of a server's stderr is kept of, for the error when it dies.
const STDERR_TAIL: usize = 2048;
/// How many 10 ms waits the exit status (and the end of stderr) of a server
/// that closed stdout gets.
const EXIT_STATUS_TRIES: u32 = 20;

/// A request that did not get an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LspError {
    #[error("LSP server {server} could not start: {reason}")]
    Spawn { server: String, reason: String },
    #[error("LSP server {server} exited{detail}")]
    Exited { server: String, detail: String },
    #[error("LSP server {server} did not answer {method} within {ms} ms")]
    Timeout {
        server: String,
        method: String,
        ms: u128,
    },
    #[error("LSP server {server} answered {method} with error {code}: {message}")]
    Rpc {
        server: String,
        method: String,
        code: i64,
        message: String,
    },
    #[error("LSP server {server} crashed {crashes} times and is not restarted (maxRestarts {max})")]
    GaveUp {
        server: String,
        crashes: u32,
        max: u32,
    },
}

type Waiters = HashMap<u64, oneshot::Sender<Result<Value, (i64, String)>>>;

/// Diagnostics by document URI, each with how many times it was published.
#[derive(Debug, Default)]
pub(crate) struct Published {
    pub by_uri: Mutex<HashMap<String, (u64, Vec<Value>)>>,
    pub changed: Notify,
}

/// A started server. Dropping it kills the process.
pub(crate) struct Server {
    name: String,
    stdin: tokio::sync::Mutex<ChildStdin>,
    child: Mutex<Option<Child>>,
    waiters: Arc<Mutex<Waiters>>,
    next_id: AtomicU64,
    alive: Arc<AtomicBool>,
    exited: Arc<Notify>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Set when stderr has ended (all of it is in `stderr`).
    stderr_ended: Arc<AtomicBool>,
    pub(crate) published: Arc<Published>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Server {
    /// Starts `spec` in `root` and initializes it, all within its startup timeout.
    pub(crate) async fn start(spec: &LspServerSpec, root: &Path) -> Result<Arc<Server>, LspError> {
        let config = &spec.config;
        let mut child = Command::new(&config.command)
            .args(&config.args)
            .envs(&config.env)
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| LspError::Spawn {
                server: spec.name.clone(),
                reason: format!("{}: {e}", config.command),
            })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            unreachable!("all three streams are piped above");
        };
        let server = Arc::new(Server {
            name: spec.name.clone(),
            stdin: tokio::sync::Mutex::new(stdin),
            child: Mutex::new(Some(child)),
            waiters: Arc::default(),
            next_id: AtomicU64::new(1),
            alive: Arc::new(AtomicBool::new(true)),
            exited: Arc::default(),
            stderr: Arc::default(),
            stderr_ended: Arc::default(),
            published: Arc::default(),
        });
        let ended = Arc::clone(&server.stderr_ended);
        tokio::spawn(keep_tail(stderr, Arc::clone(&server.stderr), ended));
        tokio::spawn(read_loop(
            Arc::downgrade(&server),
            BufReader::new(stdout),
            Reader {
                waiters: Arc::clone(&server.waiters),
                alive: Arc::clone(&server.alive),
                exited: Arc::clone(&server.exited),
                published: Arc::clone(&server.published),
            },
        ));
        let init = initialize_params(root, config.initialization_options.clone());
        server
            .request("initialize", init, config.startup_timeout())
            .await?;
        server.notify("initialized", json!({})).await?;
        if let Some(settings) = &config.settings {
            let params = json!({ "settings": settings });
            server
                .notify("workspace/didChangeConfiguration", params)
                .await?;
        }
        Ok(server)
    }

    pub(crate) fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// Sends a request and waits at most `timeout` for its answer.
    pub(crate) async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, LspError> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        lock(&self.waiters).insert(id, tx);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if !self.is_alive() || self.write(&message).await.is_err() {
            lock(&self.waiters).remove(&id);
            return Err(self.exited_error().await);
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(Ok(value))) => Ok(value),
            Ok(Ok(Err((code, message)))) => Err(LspError::Rpc {
                server: self.name.clone(),
                method: method.to_owned(),
                code,
                message,
            }),
            Ok(Err(_)) => Err(self.exited_error().await),
            Err(_) => {
                lock(&self.waiters).remove(&id);
                Err(LspError::Timeout {
                    server: self.name.clone(),
                    method: method.to_owned(),
                    ms: timeout.as_millis(),
                })
            }
        }
    }

    pub(crate) async fn notify(&self, method: &str, params: Value) -> Result<(), LspError> {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        match self.write(&message).await {
            Ok(()) => Ok(()),
            Err(_) => Err(self.exited_error().await),
        }
    }

    async fn write(&self, message: &Value) -> std::io::Result<()> {
        let mut stdin = self.stdin.lock().await;
        stdin.write_all(&encode(message)).await?;
        stdin.flush().await
    }

    /// `Exited`, with the exit status and the end of stderr when known (the
    /// status is waited for a moment: stdout can close just before the exit).
    async fn exited_error(&self) -> LspError {
        let mut status = None;
        for _ in 0..EXIT_STATUS_TRIES {
            status = lock(&self.child)
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten());
            if status.is_some() && self.stderr_ended.load(Ordering::SeqCst) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let tail = String::from_utf8_lossy(&lock(&self.stderr))
            .trim()
            .to_owned();
        let mut detail = match status {
            Some(s) => format!(" ({s})"),
            None => String::new(),
        };
        if !tail.is_empty() {
            detail.push_str(&format!("; its stderr ends: {tail}"));
        }
        LspError::Exited {
            server: self.name.clone(),
            detail,
        }
    }

    /// `shutdown` then `exit`, both within `grace`; then the process is killed
    /// if it is still there.
    pub(crate) async fn stop(&self, grace: Duration) {
        let polite = async {
            if self.request("shutdown", Value::Null, grace).await.is_ok() {
                let exited = self.exited.notified();
                let _ = self.notify("exit", Value::Null).await;
                if self.is_alive() {
                    exited.await;
                }
            }
        };
        if self.is_alive() {
            let _ = tokio::time::timeout(grace, polite).await;
        }
        self.kill();
    }

    pub(crate) fn kill(&self) {
        if let Some(mut child) = lock(&self.child).take() {
            let _ = child.start_kill();
            // Reaped by tokio's orphan queue once it is gone.
        }
    }
}

/// The `initialize` request's params: the root as the one workspace folder,
/// and what tack can do with the answers.
fn initialize_params(root: &Path, options: Option<Value>) -> Value {
    let uri = super::file_uri(root);
    let name = root
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    json!({
        "processId": std::process::id(),
        "clientInfo": {"name": "tack", "version": env!("CARGO_PKG_VERSION")},
        "rootPath": root.display().to_string(),
        "rootUri": uri,
        "workspaceFolders": [{"uri": uri, "name": name}],
        "initializationOptions": options,
        "capabilities": {
            "workspace": {"workspaceFolders": true, "configuration": true, "symbol": {}},
            "textDocument": {
                "synchronization": {"didSave": true, "dynamicRegistration": false},
                "publishDiagnostics": {"relatedInformation": false, "versionSupport": false},
                "hover": {"contentFormat": ["markdown", "plaintext"]},
                "definition": {"linkSupport": true},
                "implementation": {"linkSupport": true},
                "references": {},
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
                "callHierarchy": {}
            }
        }
    })
}

/// What the reader task shares with its server.
struct Reader {
    waiters: Arc<Mutex<Waiters>>,
    alive: Arc<AtomicBool>,
    exited: Arc<Notify>,
    published: Arc<Published>,
}

async fn read_loop(
    server: std::sync::Weak<Server>,
    mut stdout: BufReader<tokio::process::ChildStdout>,
    r: Reader,
) {
    while let Ok(Some(message)) = read_message(&mut stdout).await {
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").filter(|id| !id.is_null());
        match (method, id) {
            (Some(method), Some(id)) => {
                let Some(server) = server.upgrade() else {
                    break;
                };
                let result = answer_server_request(method, message.get("params"));
                let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
                let _ = server.write(&reply).await;
            }
            (Some("textDocument/publishDiagnostics"), None) => {
                store_diagnostics(&r.published, &message)
            }
            (Some(_), None) => {}
            (None, Some(id)) => {
                let Some(waiter) = id.as_u64().and_then(|id| lock(&r.waiters).remove(&id)) else {
                    continue;
                };
                let answer = match message.get("error") {
                    Some(e) => Err((
                        e.get("code").and_then(Value::as_i64).unwrap_or(0),
                        e.get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_owned(),
                    )),
                    None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                };
                let _ = waiter.send(answer);
            }
            (None, None) => {}
        }
    }
    r.alive.store(false, Ordering::SeqCst);
    // Every request still waiting learns the server is gone.
    lock(&r.waiters).clear();
    r.exited.notify_waiters();
    r.published.changed.notify_waiters();
}

/// What tack answers a server's own requests with: no configuration
/// (`workspace/configuration`, as Claude Code), and an empty success for the
/// rest (progress tokens, capability registrations).
fn answer_server_request(method: &str, params: Option<&Value>) -> Value {
    match method {
        "workspace/configuration" => {
            let items = params
                .and_then(|p| p.get("items"))
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            Value::Array(vec![Value::Null; items])
        }
        "workspace/workspaceFolders" => Value::Array(Vec::new()),
        _ => Value::Null,
    }
}

fn store_diagnostics(published: &Published, message: &Value) {
    let params = message.get("params");
    let Some(uri) = params.and_then(|p| p.get("uri")).and_then(Value::as_str) else {
        return;
    };
    let list = params
        .and_then(|p| p.get("diagnostics"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut by_uri = lock(&published.by_uri);
    let entry = by_uri.entry(uri.to_owned()).or_default();
    *entry = (entry.0 + 1, list);
    drop(by_uri);
    published.changed.notify_waiters();
}

/// Keeps the last [`STDERR_TAIL`] bytes the server wrote to stderr.
async fn keep_tail(
    mut stderr: tokio::process::ChildStderr,
    tail: Arc<Mutex<Vec<u8>>>,
    ended: Arc<AtomicBool>,
) {
    let mut buf = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let mut t = lock(&tail);
        t.extend_from_slice(&buf[..n]);
        let excess = t.len().saturating_sub(STDERR_TAIL);
        t.drain(..excess);
    }
    ended.store(true, Ordering::SeqCst);
}
