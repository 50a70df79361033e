//! The command runs with no capabilities, even as root in its namespace:
//! the bounding and ambient sets are emptied first (so an exec cannot give
//! any back, setuid or not), then the process's own sets.

use std::io;

fn last_cap() -> libc::c_ulong {
    std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(40)
}

pub(super) fn drop_bounding_and_ambient() -> io::Result<()> {
    for cap in 0..=last_cap() {
        // SAFETY: prctl(PR_CAPBSET_DROP) takes integers only.
        if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) } == -1 {
            return Err(io::Error::last_os_error());
        }
    }
    let clear_all = libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong;
    // SAFETY: prctl(PR_CAP_AMBIENT) takes integers only.
    if unsafe { libc::prctl(libc::PR_CAP_AMBIENT, clear_all, 0, 0, 0) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// `_LINUX_CAPABILITY_VERSION_3`: two data words.
const CAP_V3: u32 = 0x2008_0522;

pub(super) fn clear() -> io::Result<()> {
    let mut header = CapHeader {
        version: CAP_V3,
        pid: 0,
    };
    let data = [CapData::default(); 2];
    // SAFETY: `header` and `data` are laid out as the kernel's
    // `__user_cap_header_struct` and `__user_cap_data_struct` (`repr(C)`),
    // and version 3 reads exactly two data entries, which `data` has. The
    // kernel may write its preferred version back into `header`, which is
    // why it is passed mutably; both live through the call.
    let rc = unsafe { libc::syscall(libc::SYS_capset, &mut header, data.as_ptr()) };
    if rc == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
