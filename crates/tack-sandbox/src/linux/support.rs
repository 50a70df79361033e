//! What this kernel offers the sandbox, read without changing anything (for
//! `tack doctor`; whether confinement really works is known only by trying:
//! `crate::Sandbox::availability`).

use super::landlock_rules;

/// The kernel's side of the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelSupport {
    /// `None`: user namespaces look usable; `Some(why)`: they are not.
    pub user_namespaces: Option<String>,
    /// 0: no Landlock.
    pub landlock_abi: i32,
    /// seccomp filters (`prctl(PR_GET_SECCOMP)` answers).
    pub seccomp: bool,
}

fn read_number(path: &str) -> Option<i64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

pub fn kernel_support() -> KernelSupport {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let user_namespaces = if read_number("/proc/sys/user/max_user_namespaces") == Some(0) {
        Some("user.max_user_namespaces is 0".to_owned())
    } else if !root && read_number("/proc/sys/kernel/unprivileged_userns_clone") == Some(0) {
        Some("kernel.unprivileged_userns_clone is 0".to_owned())
    } else if !root
        && read_number("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == Some(1)
    {
        Some("AppArmor restricts unprivileged user namespaces".to_owned())
    } else {
        None
    };
    // SAFETY: prctl(PR_GET_SECCOMP) takes integers and only reads a mode.
    let seccomp = unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } >= 0;
    KernelSupport {
        user_namespaces,
        landlock_abi: landlock_rules::abi(),
        seccomp,
    }
}
