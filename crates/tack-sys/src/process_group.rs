//! Process groups: every child tack starts for a tool, a hook, a helper or an
//! MCP server leads its own group, and stopping it means signalling the whole
//! group, so no grandchild survives.

/// Sends `signal` to every process of group `pgid`. Returns false if the group
/// has no process left (or `pgid` could name "every process" or our own group:
/// 0, 1 and negative ids are refused).
pub fn signal_group(pgid: i32, signal: i32) -> bool {
    if pgid <= 1 {
        return false;
    }
    // SAFETY: killpg has no memory-safety preconditions; pgid > 1 so it never
    // targets "every process" or our own group by accident.
    unsafe { libc::killpg(pgid, signal) == 0 }
}

/// Sends this process SIGTERM: it ends as `tack stop` ends it (a
/// background session handles the signal and ends cleanly).
pub fn terminate_self() -> bool {
    // SAFETY: kill() of our own pid has no memory-safety preconditions.
    unsafe { libc::kill(libc::getpid(), libc::SIGTERM) == 0 }
}

/// True while some process (zombies included) is in group `pgid`.
pub fn group_alive(pgid: i32) -> bool {
    signal_group(pgid, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    #[test]
    fn a_group_is_signalled_whole_and_bad_ids_are_refused() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & sleep 30"])
            .process_group(0)
            .spawn()
            .unwrap();
        let pgid = i32::try_from(child.id()).unwrap();
        assert!(group_alive(pgid));
        assert!(signal_group(pgid, libc::SIGKILL));
        let _ = child.wait();
        // The background sleep was in the group too: nothing is left.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while group_alive(pgid) {
            assert!(std::time::Instant::now() < deadline, "the group survived");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!signal_group(0, 0) && !signal_group(1, 0) && !signal_group(-5, 0));
    }
}
