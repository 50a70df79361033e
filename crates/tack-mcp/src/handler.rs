//! tack's side of one MCP connection: what rmcp calls when the server sends a
//! notification. Progress goes to the tool call that asked for it; a changed
//! tool list wakes the task that fetches it again.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, ProgressNotificationParam, ProgressToken,
};
use rmcp::service::{NotificationContext, RoleClient};
use serde_json::json;
use tack_tool::ProgressSink;
use tokio::sync::Notify;

/// Where one running call's progress goes.
#[derive(Debug, Clone)]
struct Route {
    sink: ProgressSink,
    server: String,
    tool: String,
}

/// State shared between the handler (notifications) and the tools (calls).
#[derive(Debug, Default)]
pub(crate) struct Events {
    routes: Mutex<HashMap<ProgressToken, Route>>,
    /// Signalled on `notifications/tools/list_changed`.
    pub(crate) tools_changed: Notify,
    /// `tools/list_changed` notifications received, and how many of them the
    /// tool list installed now reflects.
    list_changes: AtomicU64,
    list_applied: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Events {
    /// The server said its tools changed and the new list is not in yet.
    pub(crate) fn list_stale(&self) -> bool {
        self.list_changes.load(Ordering::Acquire) != self.list_applied.load(Ordering::Acquire)
    }

    /// The changes announced so far, to pass to [`Events::list_applied`]
    /// once the list fetched after them is installed.
    pub(crate) fn list_changes(&self) -> u64 {
        self.list_changes.load(Ordering::Acquire)
    }

    /// A `tools/list_changed` on its way to the client.
    pub(crate) fn note_list_change(&self) {
        self.list_changes.fetch_add(1, Ordering::AcqRel);
    }

    pub(crate) fn list_applied(&self, changes: u64) {
        self.list_applied.store(changes, Ordering::Release);
    }

    /// Sends progress for `token` to `sink` until the guard is dropped.
    pub(crate) fn route(
        self: &Arc<Self>,
        token: ProgressToken,
        sink: ProgressSink,
        server: &str,
        tool: &str,
    ) -> RouteGuard {
        lock(&self.routes).insert(
            token.clone(),
            Route {
                sink,
                server: server.to_string(),
                tool: tool.to_string(),
            },
        );
        RouteGuard {
            events: Arc::clone(self),
            token,
        }
    }

    fn progress(&self, params: ProgressNotificationParam) {
        let Some(route) = lock(&self.routes).get(&params.progress_token).cloned() else {
            return;
        };
        // Claude Code's `mcp_progress` shape, for the UI and SDK stream.
        route.sink.send(json!({
            "type": "mcp_progress",
            "status": "progress",
            "serverName": route.server,
            "toolName": route.tool,
            "progress": params.progress,
            "total": params.total,
            "progressMessage": params.message,
        }));
    }
}

/// Removes a progress route when the call ends.
pub(crate) struct RouteGuard {
    events: Arc<Events>,
    token: ProgressToken,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        lock(&self.events.routes).remove(&self.token);
    }
}

/// The rmcp client handler of one connection.
#[derive(Debug, Clone)]
pub(crate) struct Handler {
    pub(crate) events: Arc<Events>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("tack", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.events.progress(params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.events.note_list_change();
        self.events.tools_changed.notify_one();
    }
}
