//! The editor's files for tack's tools: when the client offers
//! `fs.readTextFile`, Read asks it (`fs/read_text_file`) and so sees
//! buffers not saved yet; a client that does not answer within
//! [`READ_TIMEOUT`], or answers with an error, leaves Read to the disk.

use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tack_runtime::ClientFileReader;

use crate::rpc::Peer;

/// How long a read waits for the editor.
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Reads through the client, for one session (its id is known once the
/// session has started: until then the disk is read).
#[derive(Debug)]
pub struct EditorFiles {
    pub peer: Peer,
    pub session_id: Arc<OnceLock<String>>,
}

impl ClientFileReader for EditorFiles {
    fn read_text<'a>(&'a self, path: &'a Path) -> BoxFuture<'a, Option<String>> {
        async move {
            let id = self.session_id.get()?;
            let params = json!({"sessionId": id, "path": path});
            let asked = self.peer.request("fs/read_text_file", params);
            let answer = tokio::time::timeout(READ_TIMEOUT, asked).await.ok()?.ok()?;
            answer
                .get("content")
                .and_then(Value::as_str)
                .map(str::to_owned)
        }
        .boxed()
    }
}
