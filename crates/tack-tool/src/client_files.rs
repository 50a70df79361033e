//! Files as the front end's client holds them: an editor driving tack over
//! ACP has buffers not saved yet, and Read shows what the user sees there
//! (`fs/read_text_file`). The one seam: tools that read text ask
//! [`ToolEnv::client_files`](crate::ToolEnv::client_files) first and read
//! the disk when it has nothing.

use std::path::Path;
use std::sync::Arc;

use futures::future::BoxFuture;

/// Reads text files through the client. Answers `None` when the client has
/// no text for the file (or cannot answer): the disk's is used.
pub trait ClientFileReader: Send + Sync + std::fmt::Debug {
    fn read_text<'a>(&'a self, path: &'a Path) -> BoxFuture<'a, Option<String>>;
}

/// A session's client reader, as options carry it (equal when it is the
/// same reader).
#[derive(Debug, Clone)]
pub struct ClientFiles(pub Arc<dyn ClientFileReader>);

impl PartialEq for ClientFiles {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl ClientFiles {
    pub async fn read_text(&self, path: &Path) -> Option<String> {
        self.0.read_text(path).await
    }
}
