//! A Unix socket's path that fits `sun_path` (108 bytes with its NUL) wherever
//! the socket is: the proxy's sockets live in the session's private folder
//! under TMPDIR, and a TMPDIR of more than a few characters made their paths
//! too long to bind or connect (the sandbox then had no network).
//!
//! A long path is reached through a descriptor of its folder, as
//! `/proc/self/fd/N/NAME`: the kernel follows the descriptor's magic link
//! to the folder itself, so the folder's permissions still apply (unlike an
//! abstract socket, which any process of the network namespace can reach,
//! and which the sandbox's own network namespace could not see anyway), and
//! nothing process-wide changes (unlike a `chdir` to bind by a relative path,
//! which races every other thread). A short path is used as it is.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// `sun_path`'s size on Linux, its terminating NUL included.
const SUN_PATH: usize = 108;

/// A path to bind or connect a Unix socket by; keeps its folder open while
/// it lives (the path is valid only as long).
#[derive(Debug)]
pub struct SocketPath {
    path: PathBuf,
    _folder: Option<File>,
}

impl SocketPath {
    /// `socket` itself when it fits, else `/proc/self/fd/N/NAME` through
    /// a descriptor (`O_PATH`, close-on-exec) of its folder.
    pub fn new(socket: &Path) -> io::Result<SocketPath> {
        if socket.as_os_str().as_bytes().len() < SUN_PATH {
            return Ok(SocketPath {
                path: socket.to_path_buf(),
                _folder: None,
            });
        }
        let (Some(folder), Some(name)) = (socket.parent(), socket.file_name()) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not a socket path", socket.display()),
            ));
        };
        let folder = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_PATH | libc::O_DIRECTORY)
            .open(folder)?;
        let path = Path::new("/proc/self/fd")
            .join(folder.as_raw_fd().to_string())
            .join(name);
        Ok(SocketPath {
            path,
            _folder: Some(folder),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_deeper_than_sun_path_is_bound_and_reached_through_its_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let deep = tmp.path().join("d".repeat(150));
        std::fs::create_dir(&deep).unwrap();
        let socket = deep.join("s.sock");
        assert!(std::os::unix::net::UnixListener::bind(&socket).is_err());
        let bind = SocketPath::new(&socket).unwrap();
        let listener = std::os::unix::net::UnixListener::bind(bind.path()).unwrap();
        drop(bind);
        assert!(socket.exists());
        let connect = SocketPath::new(&socket).unwrap();
        let client = std::os::unix::net::UnixStream::connect(connect.path()).unwrap();
        let (server, _) = listener.accept().unwrap();
        assert_eq!(
            (
                client.peer_addr().is_ok(),
                server.local_addr().is_ok(),
                connect.path().starts_with("/proc/self/fd"),
            ),
            (true, true, true)
        );
        let short = tmp.path().join("s.sock");
        assert_eq!(SocketPath::new(&short).unwrap().path(), short);
    }
}
