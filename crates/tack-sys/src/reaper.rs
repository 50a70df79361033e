//! Nothing a session started outlives it.
//!
//! Killing a command's process group (see `process_group.rs`) cannot reach a
//! process that left the group: `setsid cmd &` or a double fork makes a
//! daemon that is reparented to init and runs on after tack exits. So tack
//! makes itself the *child subreaper* at start ([`become_subreaper`]): orphans
//! among its descendants are reparented to tack instead of init, and stay
//! reachable as its descendants. At final shutdown, [`kill_descendants`] finds
//! every process whose parent chain leads to tack (through `/proc`), sends
//! SIGTERM, gives them a grace period, SIGKILLs what is left and reaps them.
//!
//! Reaping waits for any child, which would steal exit statuses from the
//! async runtime's own child handles: call [`kill_descendants`] only when the
//! runtime is gone. Until then adopted orphans that exit stay zombies (a
//! process-table entry each).
//!
//! Linux only (`prctl`, `/proc`); elsewhere both are no-ops.

use std::collections::{HashMap, HashSet};
use std::io;
use std::time::{Duration, Instant};

/// How often the descendants are looked at again while waiting.
const POLL: Duration = Duration::from_millis(10);

/// Makes this process the subreaper of its descendants (`PR_SET_CHILD_SUBREAPER`).
pub fn become_subreaper() -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes one integer argument
        // and touches no memory of ours.
        let rc = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// What [`kill_descendants`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reaped {
    /// Descendants that were running (they got SIGTERM).
    pub terminated: Vec<i32>,
    /// Those still running after the grace period (they got SIGKILL).
    pub killed: Vec<i32>,
}

/// Stops every descendant of this process: SIGTERM, up to `grace` for them to
/// exit, then SIGKILL; reaps the children among them. New descendants that
/// appear meanwhile (a daemon forking as it dies) are handled the same way.
/// Returns once none is left running, or after `grace` plus one second.
pub fn kill_descendants(grace: Duration) -> Reaped {
    let mut reaped = Reaped::default();
    let me = std::process::id() as i32;
    let start = Instant::now();
    let give_up = start + grace + Duration::from_secs(1);
    let mut termed: HashSet<i32> = HashSet::new();
    let mut killed: HashSet<i32> = HashSet::new();
    loop {
        reap_children();
        let running = running_descendants(me);
        if running.is_empty() {
            break;
        }
        let after_grace = start.elapsed() >= grace;
        for pid in running {
            if termed.insert(pid) {
                reaped.terminated.push(pid);
                signal(pid, libc::SIGTERM);
            } else if after_grace && killed.insert(pid) {
                reaped.killed.push(pid);
                signal(pid, libc::SIGKILL);
            }
        }
        if Instant::now() >= give_up {
            break;
        }
        std::thread::sleep(POLL);
    }
    reap_children();
    reaped
}

fn signal(pid: i32, sig: i32) {
    if pid > 1 {
        // SAFETY: kill has no memory-safety preconditions; pid > 1 never
        // means "a whole group" or "everyone".
        unsafe { libc::kill(pid, sig) };
    }
}

/// Collects every exited child (zombie) without blocking.
fn reap_children() {
    loop {
        let mut status = 0;
        // SAFETY: a valid out-pointer; WNOHANG never blocks.
        let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if pid <= 0 {
            return;
        }
    }
}

/// Descendants of `root` that are still running (zombies have exited).
pub fn running_descendants(root: i32) -> Vec<i32> {
    let table = process_table();
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for (&pid, &(ppid, _)) in &table {
        children.entry(ppid).or_default().push(pid);
    }
    let mut found = Vec::new();
    let mut queue = vec![root];
    let mut visited = HashSet::from([root]);
    while let Some(pid) = queue.pop() {
        for &child in children.get(&pid).into_iter().flatten() {
            if !visited.insert(child) {
                continue;
            }
            queue.push(child);
            if table.get(&child).is_some_and(|(_, state)| *state != 'Z') {
                found.push(child);
            }
        }
    }
    found.sort_unstable();
    found
}

/// pid → (parent pid, state letter) of every process, from `/proc/*/stat`.
fn process_table() -> HashMap<i32, (i32, char)> {
    let mut table = HashMap::new();
    for (pid, _) in crate::pid_dir::pid_entries(std::path::Path::new("/proc")) {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        if let Some(parsed) = parse_stat(&stat) {
            table.insert(pid, parsed);
        }
    }
    table
}

/// (ppid, state) from a `/proc/<pid>/stat` line: `pid (comm) S ppid ...`,
/// where `comm` may itself contain spaces and parentheses.
pub fn parse_stat(stat: &str) -> Option<(i32, char)> {
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((ppid, state))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_odd_command_names_parse() {
        assert_eq!(
            parse_stat("4242 (sleep) S 17 4242 4242 0 -1 4194560"),
            Some((17, 'S'))
        );
        assert_eq!(parse_stat("7 (a) b (c)) Z 1 7 7 0 -1"), Some((1, 'Z')));
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn this_process_is_in_the_table_with_its_parent() {
        let table = process_table();
        let me = std::process::id() as i32;
        // SAFETY: getppid has no preconditions.
        let parent = unsafe { libc::getppid() };
        assert_eq!(table.get(&me).map(|(ppid, _)| *ppid), Some(parent));
    }
}
