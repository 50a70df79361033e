//! A session's language servers: each plugin server started on first use (a
//! request for a file it covers, or an edit of one), one per server and root,
//! started again on the next use after it dies (up to its `maxRestarts`), and
//! stopped with the session (`shutdown` + `exit`, killed after its
//! `shutdownTimeout`). Files are opened on the server before a request on
//! them, and an edit is synced (`didChange` + `didSave`) so that its
//! diagnostics can reach the model.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use super::config::LspServerSpec;
use super::diagnostics::Delivered;
use super::file_uri;
use super::server::{LspError, Server};

/// How long a request other than `initialize` may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How long an edit waits for the server's diagnostics of the file.
const DIAGNOSTICS_WAIT: Duration = Duration::from_secs(2);
/// LSP's `ContentModified`: the server's state changed under the request
/// (still indexing); Claude Code retries it three times.
const CONTENT_MODIFIED: i64 = -32801;
const CONTENT_MODIFIED_RETRIES: u32 = 3;

/// The session's servers; clones share them.
#[derive(Clone)]
pub struct LspServers {
    inner: Arc<Inner>,
}

struct Inner {
    specs: Vec<LspServerSpec>,
    project: PathBuf,
    slots: Vec<tokio::sync::Mutex<Slot>>,
    delivered: Mutex<Delivered>,
}

#[derive(Default)]
struct Slot {
    running: Option<Arc<Server>>,
    /// Times it died (a start that failed counts).
    crashes: u32,
    /// Open documents: URI → version.
    open: HashMap<String, i64>,
}

impl LspServers {
    /// `None` when there is no server.
    pub fn new(specs: Vec<LspServerSpec>, project: PathBuf) -> Option<LspServers> {
        if specs.is_empty() {
            return None;
        }
        let slots = specs
            .iter()
            .map(|_| tokio::sync::Mutex::default())
            .collect();
        Some(LspServers {
            inner: Arc::new(Inner {
                specs,
                project,
                slots,
                delivered: Mutex::default(),
            }),
        })
    }

    /// The first server covering `path`'s extension, and the language id.
    fn server_index(&self, path: &Path) -> Option<(usize, String)> {
        self.inner.specs.iter().enumerate().find_map(|(i, spec)| {
            spec.config
                .language_of(path)
                .map(|lang| (i, lang.to_owned()))
        })
    }

    /// Whether some server covers `path`.
    pub fn covers(&self, path: &Path) -> bool {
        self.server_index(path).is_some()
    }

    /// The running server of slot `i`, started (or started again) if needed.
    async fn running(&self, i: usize, slot: &mut Slot) -> Result<Arc<Server>, LspError> {
        if let Some(server) = slot.running.as_ref().filter(|s| s.is_alive()) {
            return Ok(Arc::clone(server));
        }
        let spec = &self.inner.specs[i];
        if slot.running.take().is_some() {
            slot.crashes += 1;
            slot.open.clear();
        }
        let max = spec.config.max_restarts();
        if slot.crashes > max {
            return Err(LspError::GaveUp {
                server: spec.name.clone(),
                crashes: slot.crashes,
                max,
            });
        }
        let root = match &spec.config.workspace_folder {
            Some(dir) => self.inner.project.join(dir),
            None => self.inner.project.clone(),
        };
        match Server::start(spec, &root).await {
            Ok(server) => {
                slot.running = Some(Arc::clone(&server));
                Ok(server)
            }
            Err(e) => {
                slot.crashes += 1;
                Err(e)
            }
        }
    }

    /// Sends `method` for `path` (opening it on the server first); `Ok(None)`
    /// when no server covers it.
    pub async fn request(
        &self,
        path: &Path,
        method: &str,
        params: Value,
    ) -> Result<Option<Value>, LspError> {
        let Some((i, lang)) = self.server_index(path) else {
            return Ok(None);
        };
        let server = {
            let mut slot = self.inner.slots[i].lock().await;
            let server = self.running(i, &mut slot).await?;
            let uri = file_uri(path);
            if let std::collections::hash_map::Entry::Vacant(entry) = slot.open.entry(uri) {
                let text = tokio::fs::read_to_string(path).await.unwrap_or_default();
                let doc =
                    json!({"uri": entry.key(), "languageId": lang, "version": 1, "text": text});
                server
                    .notify("textDocument/didOpen", json!({ "textDocument": doc }))
                    .await?;
                entry.insert(1);
            }
            server
        };
        let mut tries = 0;
        loop {
            match server
                .request(method, params.clone(), REQUEST_TIMEOUT)
                .await
            {
                Err(LspError::Rpc { code, .. })
                    if code == CONTENT_MODIFIED && tries < CONTENT_MODIFIED_RETRIES =>
                {
                    tokio::time::sleep(Duration::from_millis(500 << tries)).await;
                    tries += 1;
                }
                other => return other.map(Some),
            }
        }
    }

    /// After a file tool changed `path`: the change synced to the server that
    /// covers it (started if need be), and the new diagnostics it publishes
    /// within a short wait, as the text Claude Code sends (`None`: none new,
    /// no server, or the server is down: an edit never fails for it).
    pub async fn after_edit(&self, path: &Path) -> Option<String> {
        let (i, lang) = self.server_index(path)?;
        let uri = file_uri(path);
        let text = tokio::fs::read_to_string(path).await.ok()?;
        let server = {
            let mut slot = self.inner.slots[i].lock().await;
            let server = self.running(i, &mut slot).await.ok()?;
            let before = published_count(&server, &uri);
            let version = slot.open.get(&uri).map(|v| v + 1);
            let synced = match version {
                Some(version) => {
                    let params = json!({
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"text": text}]
                    });
                    slot.open.insert(uri.clone(), version);
                    server.notify("textDocument/didChange", params).await
                }
                None => {
                    let doc = json!({"uri": uri, "languageId": lang, "version": 1, "text": text});
                    slot.open.insert(uri.clone(), 1);
                    server
                        .notify("textDocument/didOpen", json!({ "textDocument": doc }))
                        .await
                }
            };
            synced.ok()?;
            let save = json!({"textDocument": {"uri": uri}, "text": text});
            server.notify("textDocument/didSave", save).await.ok()?;
            (server, before)
        };
        let (server, before) = server;
        let _ = tokio::time::timeout(DIAGNOSTICS_WAIT, async {
            loop {
                let changed = server.published.changed.notified();
                if published_count(&server, &uri) > before || !server.is_alive() {
                    return;
                }
                changed.await;
            }
        })
        .await;
        let list = lock(&server.published.by_uri)
            .get(&uri)
            .map(|(_, list)| list.clone())?;
        lock(&self.inner.delivered).new_text(&uri, &list)
    }

    /// Stops every running server: `shutdown` + `exit`, killed after its
    /// `shutdownTimeout`.
    pub async fn shutdown(&self) {
        let stops = self
            .inner
            .specs
            .iter()
            .zip(&self.inner.slots)
            .map(|(spec, slot)| async move {
                let running = slot.lock().await.running.take();
                if let Some(server) = running {
                    server.stop(spec.config.shutdown_timeout()).await;
                }
            });
        futures::future::join_all(stops).await;
    }
}

impl Drop for Inner {
    /// The session's end: servers still running are stopped politely on the
    /// runtime if there is one; without it (or once it ends) dropping them
    /// kills them.
    fn drop(&mut self) {
        let running: Vec<(Arc<Server>, Duration)> = (self.specs.iter().zip(&mut self.slots))
            .filter_map(|(spec, slot)| {
                let server = slot.get_mut().running.take()?;
                Some((server, spec.config.shutdown_timeout()))
            })
            .collect();
        if running.is_empty() {
            return;
        }
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let stops = running.iter().map(|(s, grace)| s.stop(*grace));
                futures::future::join_all(stops).await;
            });
        }
    }
}

fn published_count(server: &Server, uri: &str) -> u64 {
    lock(&server.published.by_uri)
        .get(uri)
        .map_or(0, |(n, _)| *n)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
