//! Files as the front end's client holds them: an editor driving tack over
//! ACP has buffers not saved yet, and Read shows what the user sees there
//! (`fs/read_text_file`); an edit written through the editor is shown there
//! as a change (`fs/write_text_file`). The one seam: file tools ask
//! [`ToolEnv::client_files`](crate::ToolEnv::client_files) first and use
//! the disk when it has nothing to say.

use std::path::Path;
use std::sync::Arc;

use futures::future::BoxFuture;

/// Text files through the client.
pub trait ClientFileSystem: Send + Sync + std::fmt::Debug {
    /// The file's text as the client holds it; `None` when it has none (or
    /// cannot answer): the disk's is used.
    fn read_text<'a>(&'a self, path: &'a Path) -> BoxFuture<'a, Option<String>>;

    /// Writes `text` as the file's content through the client; `None` when
    /// the client takes no writes: the tool writes the disk itself.
    fn write_text<'a>(
        &'a self,
        path: &'a Path,
        text: &'a str,
    ) -> BoxFuture<'a, Option<std::io::Result<()>>>;
}

/// A session's client reader, as options carry it (equal when it is the
/// same reader).
#[derive(Debug, Clone)]
pub struct ClientFiles(pub Arc<dyn ClientFileSystem>);

impl PartialEq for ClientFiles {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl ClientFiles {
    pub async fn read_text(&self, path: &Path) -> Option<String> {
        self.0.read_text(path).await
    }

    pub async fn write_text(&self, path: &Path, text: &str) -> Option<std::io::Result<()>> {
        self.0.write_text(path, text).await
    }
}
