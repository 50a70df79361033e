//! The editor's files for tack's tools: when the client offers
//! `fs.readTextFile`, Read asks it (`fs/read_text_file`) and so sees
//! buffers not saved yet; a client that does not answer within
//! [`TIMEOUT`], or answers with an error, leaves Read to the disk. When it
//! offers `fs.writeTextFile`, Write, Edit and MultiEdit write through it
//! (`fs/write_text_file`), so the editor shows the change; its error is the
//! tool's.

use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use agent_client_protocol::v1::schema::{
    ClientCapabilities, ReadTextFileRequest, SessionId, WriteTextFileRequest,
};
use futures::FutureExt;
use futures::future::BoxFuture;
use tack_runtime::ClientFileSystem;

use crate::peer::Peer;

/// How long a read or a write waits for the editor.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// Reads through the client, for one session (its id is known once the
/// session has started: until then the disk is read).
#[derive(Debug)]
pub struct EditorFiles {
    pub peer: Peer,
    pub session_id: Arc<OnceLock<String>>,
    /// What the client offers.
    pub caps: FsCapabilities,
}

/// The client's `fs` capabilities (`initialize`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FsCapabilities {
    pub read: bool,
    pub write: bool,
}

impl FsCapabilities {
    /// From `initialize`'s `clientCapabilities`.
    pub fn of(client: &ClientCapabilities) -> FsCapabilities {
        FsCapabilities {
            read: client.fs.read_text_file,
            write: client.fs.write_text_file,
        }
    }
}

impl ClientFileSystem for EditorFiles {
    fn read_text<'a>(&'a self, path: &'a Path) -> BoxFuture<'a, Option<String>> {
        async move {
            let id = self.session_id.get().filter(|_| self.caps.read)?;
            let asked = (self.peer)
                .send_request(ReadTextFileRequest::new(SessionId::new(id.as_str()), path))
                .block_task();
            let answer = tokio::time::timeout(TIMEOUT, asked).await.ok()?.ok()?;
            Some(answer.content)
        }
        .boxed()
    }

    fn write_text<'a>(
        &'a self,
        path: &'a Path,
        text: &'a str,
    ) -> BoxFuture<'a, Option<std::io::Result<()>>> {
        async move {
            let id = self.session_id.get().filter(|_| self.caps.write)?;
            let asked = (self.peer)
                .send_request(WriteTextFileRequest::new(
                    SessionId::new(id.as_str()),
                    path,
                    text,
                ))
                .block_task();
            Some(match tokio::time::timeout(TIMEOUT, asked).await {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(e)) => Err(std::io::Error::other(format!("the editor: {}", e.message))),
                Err(_) => Err(std::io::Error::other("the editor did not answer")),
            })
        }
        .boxed()
    }
}
