//! PID 1's mount namespace: private propagation, a fresh `/proc` (only this
//! namespace's processes), read-only binds over protected paths and empty
//! mounts over unreadable ones.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::policy::Policy;

use super::Step;

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)
}

fn mount(
    source: Option<&Path>,
    target: &Path,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> io::Result<()> {
    let source = source.map(c_path).transpose()?;
    let target = c_path(target)?;
    let fstype = fstype
        .map(CString::new)
        .transpose()
        .map_err(io::Error::other)?;
    let data = data
        .map(CString::new)
        .transpose()
        .map_err(io::Error::other)?;
    let ptr = |c: &Option<CString>| c.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
    // SAFETY: every pointer is null (where mount(2) allows it) or a
    // NUL-terminated string owned by this function, alive through the call.
    let rc = unsafe {
        libc::mount(
            ptr(&source),
            target.as_ptr(),
            ptr(&fstype),
            flags,
            ptr(&data).cast(),
        )
    };
    if rc == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// The flags a remount must keep (the kernel refuses to clear locked ones in
/// a user namespace).
fn locked_flags(path: &Path) -> io::Result<libc::c_ulong> {
    let c = c_path(path)?;
    // SAFETY: `statvfs` is plain integers: all zeros is a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is NUL-terminated and `st` a whole `statvfs` for the kernel
    // to fill; both live through the call.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } == -1 {
        return Err(io::Error::last_os_error());
    }
    let mut flags = 0;
    for (st_flag, ms_flag) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (ST_RELATIME, libc::MS_RELATIME),
    ] {
        if st.f_flag & st_flag != 0 {
            flags |= ms_flag;
        }
    }
    Ok(flags)
}

/// `ST_RELATIME` (Linux's statvfs flag, 4096): glibc's headers name it,
/// musl's do not (the static build).
const ST_RELATIME: libc::c_ulong = 4096;

fn bind_read_only(path: &Path) -> io::Result<()> {
    mount(Some(path), path, None, libc::MS_BIND | libc::MS_REC, None)?;
    let flags = locked_flags(path)?;
    mount(
        None,
        path,
        None,
        libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | flags,
        None,
    )
}

fn hide(path: &Path, meta: &std::fs::Metadata) -> io::Result<()> {
    if meta.is_dir() {
        let flags = libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        mount(None, path, Some("tmpfs"), flags, Some("size=0,mode=000"))
    } else {
        mount(
            Some(Path::new("/dev/null")),
            path,
            None,
            libc::MS_BIND,
            None,
        )?;
        let flags = locked_flags(path)?;
        mount(
            None,
            path,
            None,
            libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | flags,
            None,
        )
    }
}

pub(super) fn setup(policy: &Policy) -> Result<(), Step> {
    let root = Path::new("/");
    mount(None, root, None, libc::MS_REC | libc::MS_PRIVATE, None)
        .map_err(|e| ("mount namespace", e))?;
    let proc_flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    mount(
        Some(Path::new("proc")),
        Path::new("/proc"),
        Some("proc"),
        proc_flags,
        None,
    )
    .map_err(|e| ("mounting /proc", e))?;
    private_devices().map_err(|e| ("/dev", e))?;
    // Resolved now, before the command runs: a symlink planted later
    // changes nothing.
    let exact = policy.read_only.iter().filter(|p| p.exists()).cloned();
    let protected = policy
        .protected
        .iter()
        .filter_map(|p| protect_target(p, &policy.writable));
    for target in exact.chain(protected) {
        bind_read_only(&target).map_err(|e| ("read-only bind", with_path(e, &target)))?;
    }
    for path in &policy.deny_read {
        if let Ok(meta) = std::fs::metadata(path) {
            hide(path, &meta).map_err(|e| ("denyRead", with_path(e, path)))?;
        }
    }
    Ok(())
}

/// A pty instance and a /dev/shm of the namespace's own: the host's ptys
/// (the user's terminal among them) and shared memory are out of reach.
fn private_devices() -> io::Result<()> {
    let pts = Path::new("/dev/pts");
    if pts.is_dir() {
        let flags = libc::MS_NOSUID | libc::MS_NOEXEC;
        mount(
            Some(Path::new("devpts")),
            pts,
            Some("devpts"),
            flags,
            Some("newinstance,ptmxmode=0666,mode=620"),
        )?;
        let ptmx = Path::new("/dev/ptmx");
        if ptmx.exists() {
            mount(Some(&pts.join("ptmx")), ptmx, None, libc::MS_BIND, None)?;
        }
    }
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        let flags = libc::MS_NOSUID | libc::MS_NODEV;
        mount(
            Some(Path::new("tmpfs")),
            shm,
            Some("tmpfs"),
            flags,
            Some("mode=1777"),
        )?;
    }
    Ok(())
}

/// What to bind read-only so that `path` cannot be written or created: the
/// path itself, or if it does not exist its nearest existing folder, when
/// that folder is inside a writable tree (not the tree itself: a missing
/// `.mcp.json` at the project's root stays creatable).
fn protect_target(path: &Path, writable: &[std::path::PathBuf]) -> Option<std::path::PathBuf> {
    if path.exists() {
        return Some(path.to_path_buf());
    }
    let folder = path.ancestors().skip(1).find(|a| a.exists())?;
    writable
        .iter()
        .any(|w| folder.starts_with(w) && folder != w.as_path())
        .then(|| folder.to_path_buf())
}

fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}
