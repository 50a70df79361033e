//! Connecting to one server: start the transport, run the MCP handshake
//! (rmcp), fetch the tool list. Failures are worded for the user here.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{ServerCapabilities, Tool as McpToolDef};
use rmcp::service::{
    ClientInitializeError, RoleClient, RunningService, RunningServiceCancellationToken,
};

use crate::config::ServerConfig;
use crate::handler::{Events, Handler};
use crate::tool::Target;
use crate::transport::sdk::SdkBridge;
use crate::transport::sse::{LegacySse, SseError};
use crate::transport::stdio::{self, ChildGuard, ExitWatch};
use crate::transport::{error_chain, http};

/// Why a server did not connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StartFailure {
    Failed(String),
    /// HTTP 401: the server wants OAuth, which tack does not do yet.
    NeedsAuth(String),
}

/// A live connection. Dropping it ends the session with the server and kills a
/// stdio server's process group.
pub(crate) struct Connection {
    pub(crate) target: Arc<Target>,
    pub(crate) capabilities: ServerCapabilities,
    pub(crate) instructions: Option<String>,
    pub(crate) child: Option<ChildGuard>,
    stop: Option<RunningServiceCancellationToken>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop.cancel();
        }
    }
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("server", &self.target.server)
            .field("child", &self.child)
            .finish()
    }
}

/// A connection just made: the caller keeps the connection and runs the
/// service (whose end means the server went away).
pub(crate) struct Connected {
    pub(crate) connection: Connection,
    pub(crate) service: RunningService<RoleClient, Handler>,
    pub(crate) tools: Vec<McpToolDef>,
    /// stdio: resolves when the server process exits.
    pub(crate) exit: Option<ExitWatch>,
}

/// Connects to `name` (its configuration already expanded) and lists its
/// tools; `tool_timeout` is the entry's own.
pub(crate) async fn connect(
    name: &str,
    config: &ServerConfig,
    tool_timeout: Option<Duration>,
    cwd: &Path,
    env: &[(String, String)],
    log: Option<&Path>,
    sdk: Option<&SdkBridge>,
) -> Result<Connected, StartFailure> {
    let events = Arc::new(Events::default());
    let handler = Handler {
        events: Arc::clone(&events),
    };
    let (service, child, oversized) = match config {
        ServerConfig::Stdio(stdio_config) => {
            let log = log.map_or_else(|| PathBuf::from("/dev/null"), Path::to_path_buf);
            let (transport, guard, exit, oversized) =
                stdio::spawn(stdio_config, cwd, env, &log).map_err(StartFailure::Failed)?;
            const EXITED: &str = "the server exited during initialization";
            let served = tokio::select! {
                served = handler.serve(transport) => match served {
                    Ok(service) => Ok(service),
                    // A closed stdout usually means the process is exiting:
                    // say so once it has (a moment at most).
                    Err(e) if is_closed(&e) => {
                        let exited = tokio::time::timeout(Duration::from_secs(1), exit.exited()).await;
                        Err(if exited.is_ok() { EXITED.to_string() } else { init_message(&e) })
                    }
                    Err(e) => Err(init_message(&e)),
                },
                () = exit.exited() => Err(EXITED.to_string()),
            };
            match served {
                Ok(service) => (service, Some((guard, exit)), Some(oversized)),
                Err(message) => {
                    // Kill what is left of it before reading what it wrote.
                    drop(guard);
                    return Err(StartFailure::Failed(with_log(message, &log)));
                }
            }
        }
        ServerConfig::Http(remote) => {
            let transport = http::streamable(remote).map_err(StartFailure::Failed)?;
            let service = handler.serve(transport).await.map_err(|e| {
                if e.is_authorization_required() || http::is_unauthorized(&e) {
                    needs_auth(name)
                } else {
                    StartFailure::Failed(init_message(&e))
                }
            })?;
            (service, None, None)
        }
        ServerConfig::Sse(remote) => {
            let transport = LegacySse::connect(remote).await.map_err(|e| match e {
                SseError::Unauthorized => needs_auth(name),
                other => StartFailure::Failed(format!("cannot open the event stream: {other}")),
            })?;
            let service = handler
                .serve(transport)
                .await
                .map_err(|e| StartFailure::Failed(init_message(&e)))?;
            (service, None, None)
        }
        ServerConfig::Sdk { .. } => {
            let Some(bridge) = sdk else {
                return Err(StartFailure::Failed(NOT_IN_AN_SDK_SESSION.to_owned()));
            };
            let transport = bridge
                .open(name, Arc::clone(&events))
                .map_err(StartFailure::Failed)?;
            let service = handler
                .serve(transport)
                .await
                .map_err(|e| StartFailure::Failed(init_message(&e)))?;
            (service, None, None)
        }
    };
    let info = service.peer().peer_info();
    let capabilities = info
        .as_ref()
        .map(|i| i.capabilities.clone())
        .unwrap_or_default();
    let instructions = info.as_ref().and_then(|i| i.instructions.clone());
    let target = Arc::new(Target {
        server: name.to_string(),
        peer: service.peer().clone(),
        events,
        log: matches!(config, ServerConfig::Stdio(_))
            .then(|| log.map(Path::to_path_buf))
            .flatten(),
        oversized,
        // The entry's own, else (an SDK server) what the host declared.
        tool_timeout: tool_timeout.or_else(|| match config {
            ServerConfig::Sdk { .. } => sdk.and_then(|b| b.tool_timeout(name)),
            _ => None,
        }),
    });
    let tools = if capabilities.tools.is_some() {
        list_tools(&target).await.map_err(StartFailure::Failed)?
    } else {
        Vec::new()
    };
    let stop = Some(service.cancellation_token());
    let (child, exit) = child.unzip();
    Ok(Connected {
        connection: Connection {
            target,
            capabilities,
            instructions,
            child,
            stop,
        },
        service,
        tools,
        exit,
    })
}

/// Why a `{"type": "sdk"}` server does not start outside an SDK session.
const NOT_IN_AN_SDK_SESSION: &str = "it is an in-process server of the Agent SDK (\"type\": \"sdk\"), \
     which only an SDK session can reach (the SDK starts tack with --input-format stream-json and serves it)";

/// Every page of `tools/list`.
pub(crate) async fn list_tools(target: &Target) -> Result<Vec<McpToolDef>, String> {
    target
        .peer
        .list_all_tools()
        .await
        .map_err(|e| format!("listing its tools failed: {e}"))
}

fn needs_auth(name: &str) -> StartFailure {
    StartFailure::NeedsAuth(format!(
        "MCP server \"{name}\" needs authentication (HTTP 401 Unauthorized). tack does not support OAuth yet; \
         if the server accepts a token, add it as a header (\"headers\": {{\"Authorization\": \"Bearer ${{TOKEN}}\"}})"
    ))
}

/// The server hung up (end of stream, or a write into a closed pipe).
fn is_closed(e: &ClientInitializeError) -> bool {
    matches!(e, ClientInitializeError::ConnectionClosed(_))
        || error_chain(e).any(|e| {
            e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
        })
}

fn init_message(e: &ClientInitializeError) -> String {
    if is_closed(e) {
        "the server closed the connection during initialization".into()
    } else {
        format!("initialization failed: {e}")
    }
}

/// Adds the tail of a stdio server's stderr to `message`.
pub(crate) fn with_log(message: String, log: &Path) -> String {
    match stdio::log_tail(log) {
        Some(tail) => format!(
            "{message}; its stderr ({}) ends with:\n{tail}",
            log.display()
        ),
        None => message,
    }
}

/// How long a stdio server gets to exit after SIGTERM on shutdown.
pub(crate) const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
