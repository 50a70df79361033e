//! A small HTTP/1.1 server on 127.0.0.1 for WebFetch tests (TCP_NODELAY on),
//! written on raw sockets so a test can hold a connection open, count the bytes
//! a client accepted, and see a TLS ClientHello arrive where HTTP was expected.
//! Plus a map resolver, a hand-moved clock and helpers shared by the tests.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;
use tack_api::{AnthropicClient, Auth, ClientConfig, ModelClient, RetryPolicy};
use tack_testkit::MockServer;
use tack_tool::{ToolContext, ToolEnv};
use tack_web::{Clock, HostResolver};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// What the server does for a path.
#[derive(Debug, Clone)]
pub enum Route {
    /// A complete response.
    Respond {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// `total` bytes of text in 64 KiB writes, with `Content-Length`; how many
    /// the client took is recorded in [`PageServer::streamed`].
    Stream { content_type: String, total: usize },
    /// Reads the request and never answers.
    Hang,
}

impl Route {
    pub fn html(body: &str) -> Route {
        Route::ok("text/html; charset=utf-8", body.as_bytes())
    }

    pub fn ok(content_type: &str, body: &[u8]) -> Route {
        Route::Respond {
            status: 200,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.to_vec(),
        }
    }

    pub fn redirect(status: u16, location: &str) -> Route {
        Route::Respond {
            status,
            headers: vec![("Location".into(), location.into())],
            body: Vec::new(),
        }
    }

    pub fn status(status: u16, body: &str) -> Route {
        Route::Respond {
            status,
            headers: vec![("Content-Type".into(), "text/html".into())],
            body: body.as_bytes().to_vec(),
        }
    }
}

/// One connection as seen by the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hit {
    /// An HTTP request: its path and header lines (names lower-cased).
    Http {
        path: String,
        headers: Vec<(String, String)>,
    },
    /// The first byte was a TLS handshake record: a client speaking https.
    TlsHello,
}

/// Bytes a [`Route::Stream`] wrote before the client stopped reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Streamed {
    pub written: usize,
    pub completed: bool,
}

#[derive(Default)]
struct State {
    hits: Vec<Hit>,
    streamed: Vec<Streamed>,
}

pub struct PageServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    changed: Arc<Notify>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for PageServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl PageServer {
    pub async fn start(routes: Vec<(&str, Route)>) -> PageServer {
        PageServer::start_on(0, routes).await
    }

    /// On a chosen port (0: any free one).
    pub async fn start_on(port: u16, routes: Vec<(&str, Route)>) -> PageServer {
        let routes: Arc<HashMap<String, Route>> =
            Arc::new(routes.into_iter().map(|(p, r)| (p.to_owned(), r)).collect());
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))
            .await
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State::default()));
        let changed = Arc::new(Notify::new());
        let (st, ch) = (state.clone(), changed.clone());
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                socket.set_nodelay(true).unwrap();
                let (routes, st, ch) = (routes.clone(), st.clone(), ch.clone());
                tokio::spawn(async move {
                    let _ = serve(socket, &routes, &st, &ch).await;
                });
            }
        });
        PageServer {
            addr,
            state,
            changed,
            task,
        }
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn hits(&self) -> Vec<Hit> {
        self.state.lock().unwrap().hits.clone()
    }

    /// The paths of the HTTP requests received, in order.
    pub fn paths(&self) -> Vec<String> {
        self.hits()
            .into_iter()
            .filter_map(|h| match h {
                Hit::Http { path, .. } => Some(path),
                Hit::TlsHello => None,
            })
            .collect()
    }

    pub fn streamed(&self) -> Vec<Streamed> {
        self.state.lock().unwrap().streamed.clone()
    }

    /// Waits until `condition` holds on the server's records.
    pub async fn wait_until(&self, condition: impl Fn(&PageServer) -> bool) {
        loop {
            let notified = self.changed.notified();
            if condition(self) {
                return;
            }
            notified.await;
        }
    }
}

async fn serve(
    mut socket: TcpStream,
    routes: &HashMap<String, Route>,
    state: &Mutex<State>,
    changed: &Notify,
) -> io::Result<()> {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = socket.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        head.extend_from_slice(&buf[..n]);
        if head[0] == 0x16 {
            state.lock().unwrap().hits.push(Hit::TlsHello);
            changed.notify_waiters();
            // What a plain-HTTP server says to a TLS client.
            socket
                .write_all(
                    b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .await?;
            return Ok(());
        }
        if head.windows(4).any(|w| w == b"\r\n\r\n") {
            break;
        }
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let mut lines = text.split("\r\n");
    let path = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or("/")
        .to_owned();
    let headers = lines
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    state.lock().unwrap().hits.push(Hit::Http {
        path: path.clone(),
        headers,
    });
    changed.notify_waiters();
    match routes.get(&path) {
        None => {
            write_head(
                &mut socket,
                404,
                &[("Content-Type".into(), "text/plain".into())],
                9,
            )
            .await?;
            socket.write_all(b"not found").await?;
        }
        Some(Route::Respond {
            status,
            headers,
            body,
        }) => {
            write_head(&mut socket, *status, headers, body.len()).await?;
            socket.write_all(body).await?;
        }
        Some(Route::Stream {
            content_type,
            total,
        }) => {
            let headers = [("Content-Type".to_owned(), content_type.clone())];
            write_head(&mut socket, 200, &headers, *total).await?;
            let line = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01\n";
            let chunk: Vec<u8> = line.iter().copied().cycle().take(64 * 1024).collect();
            let mut written = 0;
            let mut completed = true;
            while written < *total {
                let n = chunk.len().min(total - written);
                if socket.write_all(&chunk[..n]).await.is_err() {
                    completed = false;
                    break;
                }
                written += n;
            }
            state
                .lock()
                .unwrap()
                .streamed
                .push(Streamed { written, completed });
            changed.notify_waiters();
        }
        Some(Route::Hang) => {
            // Hold the connection until the client goes away.
            let _ = socket.read(&mut buf).await;
        }
    }
    Ok(())
}

async fn write_head(
    socket: &mut TcpStream,
    status: u16,
    headers: &[(String, String)],
    len: usize,
) -> io::Result<()> {
    let reason = match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        404 => "Not Found",
        500 => "Internal Server Error",
        _ => "Status",
    };
    let mut head =
        format!("HTTP/1.1 {status} {reason}\r\nContent-Length: {len}\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    socket.write_all(head.as_bytes()).await
}

/// Resolves the names it was given and no others: tests never touch real DNS.
#[derive(Debug, Default)]
pub struct MapResolver(pub HashMap<String, IpAddr>);

impl MapResolver {
    pub fn with(names: &[&str]) -> Arc<MapResolver> {
        Arc::new(MapResolver(
            names
                .iter()
                .map(|n| ((*n).to_owned(), IpAddr::V4(Ipv4Addr::LOCALHOST)))
                .collect(),
        ))
    }
}

impl HostResolver for MapResolver {
    fn lookup(&self, host: &str) -> BoxFuture<'static, io::Result<Vec<IpAddr>>> {
        let found = self.0.get(host).copied();
        let host = host.to_owned();
        async move {
            found.map(|ip| vec![ip]).ok_or_else(|| {
                io::Error::new(io::ErrorKind::NotFound, format!("no such host `{host}`"))
            })
        }
        .boxed()
    }
}

/// A clock moved by hand.
#[derive(Debug)]
pub struct ManualClock {
    start: Instant,
    offset: Mutex<Duration>,
}

impl ManualClock {
    pub fn new() -> Arc<ManualClock> {
        Arc::new(ManualClock {
            start: Instant::now(),
            offset: Mutex::new(Duration::ZERO),
        })
    }

    pub fn advance(&self, by: Duration) {
        *self.offset.lock().unwrap() += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        self.start + *self.offset.lock().unwrap()
    }
}

/// The real model client pointed at the scripted server, without retries.
pub fn model_client(server: &MockServer) -> Arc<dyn ModelClient> {
    Arc::new(
        AnthropicClient::new(ClientConfig {
            base_url: server.base_url(),
            auth: Auth::ApiKey("sk-test".into()),
            retry: RetryPolicy {
                max_retries: 0,
                ..RetryPolicy::default()
            },
            ..ClientConfig::default()
        })
        .unwrap(),
    )
}

pub fn ctx() -> ToolContext {
    let dir = std::env::temp_dir();
    ToolContext::standalone("toolu_web", Arc::new(ToolEnv::new(dir.clone(), dir)))
}
