//! Shared helpers: the fixture server (stdio binary, streamable HTTP and
//! legacy SSE in-process), configurations, tool contexts, process checks.
#![allow(dead_code)]

#[path = "../../src/bin/tack-mcp-fixture/server.rs"]
pub mod fixture_server;

use std::collections::{BTreeMap, HashMap};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::serve::ListenerExt;
use futures::StreamExt;
use rmcp::ServiceExt;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::Value;
use tack_mcp::{
    ConfigScope, McpConfig, McpManager, McpOptions, RemoteConfig, ServerConfig, ServerEntry,
    StdioConfig,
};
use tack_tool::{Tool, ToolContext, ToolEnv, ToolResult};
use tempfile::TempDir;
use tokio::sync::mpsc;

use fixture_server::{Fixture, FixtureState};

pub const FIXTURE: &str = env!("CARGO_BIN_EXE_tack-mcp-fixture");

/// A scratch directory with a session directory for tool output.
pub struct Scratch {
    pub dir: TempDir,
    pub env: Arc<ToolEnv>,
}

impl Scratch {
    pub fn new() -> Scratch {
        let dir = tempfile::tempdir().expect("tempdir");
        let session = dir.path().join("session");
        std::fs::create_dir_all(&session).expect("session dir");
        let env = Arc::new(ToolEnv::new(dir.path().to_path_buf(), session));
        Scratch { dir, env }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn options(&self) -> McpOptions {
        McpOptions::new(self.path(), self.path().join("logs"))
    }

    pub fn ctx(&self, id: &str) -> ToolContext {
        ToolContext::standalone(id, Arc::clone(&self.env))
    }
}

pub fn no_env(_: &str) -> Option<String> {
    None
}

pub fn stdio(name: &str, args: &[&str]) -> ServerEntry {
    stdio_with_env(name, args, &[])
}

pub fn stdio_with_env(name: &str, args: &[&str], env: &[(&str, &str)]) -> ServerEntry {
    entry(
        name,
        ServerConfig::Stdio(StdioConfig {
            command: FIXTURE.to_string(),
            args: args.iter().map(ToString::to_string).collect(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }),
    )
}

pub fn http(name: &str, url: &str, headers: &[(&str, &str)]) -> ServerEntry {
    entry(name, ServerConfig::Http(remote(url, headers)))
}

pub fn sse(name: &str, url: &str, headers: &[(&str, &str)]) -> ServerEntry {
    entry(name, ServerConfig::Sse(remote(url, headers)))
}

fn remote(url: &str, headers: &[(&str, &str)]) -> RemoteConfig {
    RemoteConfig {
        url: url.to_string(),
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
    }
}

pub fn entry(name: &str, config: ServerConfig) -> ServerEntry {
    ServerEntry {
        name: name.to_string(),
        scope: ConfigScope::Dynamic,
        origin: "test".to_string(),
        config,
        tool_timeout: None,
    }
}

pub fn config(servers: Vec<ServerEntry>) -> McpConfig {
    McpConfig {
        servers,
        ..McpConfig::default()
    }
}

pub fn tool(manager: &McpManager, name: &str) -> Arc<dyn Tool> {
    manager
        .tools()
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| {
            let names: Vec<String> = manager
                .tools()
                .iter()
                .map(|t| t.name().to_string())
                .collect();
            panic!("no tool {name}; tools: {names:?}")
        })
}

/// Validates and calls `name` like the executor does.
pub async fn call(manager: &McpManager, scratch: &Scratch, name: &str, input: Value) -> ToolResult {
    let tool = tool(manager, name);
    let ctx = scratch.ctx("toolu_test");
    tool.validate(&input, &ctx)?;
    tool.call(input, &ctx).await
}

/// The text of a successful result.
pub fn text(result: ToolResult) -> String {
    match result {
        Ok(out) => out.content.to_text(),
        Err(e) => panic!("tool failed: {e}"),
    }
}

/// True once no process with this pid exists (killed and reaped).
pub fn gone(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// True if `pid` is gone or a zombie (killed, not yet reaped by its parent).
pub fn dead(pid: i32) -> bool {
    if gone(pid) {
        return true;
    }
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(true)
}

/// Waits (bounded) for `pid` to die: there is no event for a process we are
/// not the parent of.
pub async fn wait_dead(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if dead(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

// ------------------------------------------------------------ HTTP servers

/// An in-process HTTP server on 127.0.0.1 serving the fixture as streamable
/// HTTP at `/mcp` (with an optional required header) and legacy SSE at
/// `/sse`, plus `/locked` (401 with a challenge) and `/locked-plain` (401 without).
pub struct HttpFixture {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl HttpFixture {
    pub async fn start(required: Option<(&'static str, &'static str)>) -> HttpFixture {
        let state = Arc::new(FixtureState::default());
        let http_state = Arc::clone(&state);
        let service = StreamableHttpService::new(
            move || Ok(Fixture::new(Arc::clone(&http_state), "http")),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let sessions: Sessions = Arc::default();
        let sse_state = Arc::clone(&state);
        let sse_sessions = Arc::clone(&sessions);
        let post_sessions = Arc::clone(&sessions);
        let router = Router::new()
            .nest_service("/mcp", service)
            .route(
                "/sse",
                axum::routing::get(move || {
                    open_sse(Arc::clone(&sse_sessions), Arc::clone(&sse_state))
                }),
            )
            .route(
                "/messages",
                axum::routing::post(move |req: Request| {
                    post_message(Arc::clone(&post_sessions), req)
                }),
            )
            .route(
                "/locked",
                axum::routing::any(|| async {
                    Response::builder()
                        .status(StatusCode::UNAUTHORIZED)
                        .header(header::WWW_AUTHENTICATE, "Bearer realm=\"mcp\"")
                        .body(Body::from("login first"))
                        .expect("response")
                }),
            )
            .route(
                "/locked-plain",
                axum::routing::any(|| async {
                    Response::builder()
                        .status(StatusCode::UNAUTHORIZED)
                        .body(Body::from("no"))
                        .expect("response")
                }),
            )
            .layer(middleware::from_fn(move |req: Request, next: Next| {
                check_header(required, req, next)
            }));
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
        HttpFixture {
            addr,
            stop: Some(stop),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

async fn check_header(
    required: Option<(&'static str, &'static str)>,
    req: Request,
    next: Next,
) -> Response {
    if let Some((name, value)) = required {
        let path = req.uri().path();
        let guarded =
            path.starts_with("/mcp") || path.starts_with("/sse") || path.starts_with("/messages");
        let present = req.headers().get(name).and_then(|v| v.to_str().ok()) == Some(value);
        if guarded && !present {
            return Response::builder()
                .status(StatusCode::UNAUTHORIZED)
                .body(Body::from("missing token"))
                .expect("response");
        }
    }
    next.run(req).await
}

type Sessions = Arc<Mutex<HashMap<String, mpsc::Sender<ClientJsonRpcMessage>>>>;

/// Legacy SSE: a session per GET, an `endpoint` event, then every server
/// message as a `message` event.
async fn open_sse(sessions: Sessions, state: Arc<FixtureState>) -> Response {
    let id = uuid_like();
    let (to_server, from_client) = mpsc::channel::<ClientJsonRpcMessage>(64);
    let (to_client, from_server) = mpsc::channel::<ServerJsonRpcMessage>(64);
    sessions
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(id.clone(), to_server);
    let incoming = Box::pin(futures::stream::unfold(from_client, |mut rx| async move {
        rx.recv().await.map(|m| (m, rx))
    }));
    let outgoing = tokio_util::sync::PollSender::new(to_client);
    tokio::spawn(async move {
        if let Ok(running) = Fixture::new(state, "sse").serve((outgoing, incoming)).await {
            let _ = running.waiting().await;
        }
    });
    let endpoint = format!("event: endpoint\ndata: /messages?sessionId={id}\n\n");
    let messages = futures::stream::unfold(from_server, |mut rx| async move {
        rx.recv().await.map(|m| {
            let json = serde_json::to_string(&m).unwrap_or_default();
            (format!("event: message\ndata: {json}\n\n"), rx)
        })
    });
    let body = futures::stream::once(async move { endpoint })
        .chain(messages)
        .map(|s| Ok::<_, std::io::Error>(bytes::Bytes::from(s)));
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(Body::from_stream(body))
        .expect("response")
}

async fn post_message(sessions: Sessions, req: Request) -> StatusCode {
    let id = req
        .uri()
        .query()
        .and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("sessionId=")))
        .unwrap_or_default()
        .to_string();
    let sender = sessions
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&id)
        .cloned();
    let Some(sender) = sender else {
        return StatusCode::NOT_FOUND;
    };
    let Ok(body) = axum::body::to_bytes(req.into_body(), 1 << 20).await else {
        return StatusCode::BAD_REQUEST;
    };
    let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(&body) else {
        return StatusCode::BAD_REQUEST;
    };
    if sender.send(message).await.is_err() {
        return StatusCode::GONE;
    }
    StatusCode::ACCEPTED
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("s{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

pub fn log_of(scratch: &Scratch, server: &str) -> PathBuf {
    scratch.path().join("logs").join(format!("{server}.log"))
}
