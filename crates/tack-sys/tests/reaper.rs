//! The reaper stops daemons a command left behind (alone in its binary: it
//! kills every descendant of the test process).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use pretty_assertions::assert_eq;
use tack_sys::reaper::{become_subreaper, kill_descendants};

fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}

fn pid_in(path: &Path) -> i32 {
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn daemons_left_by_a_command_are_terminated_then_killed() {
    become_subreaper().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // One daemon that dies on SIGTERM, one that ignores it; both leave the
    // shell's session, and the shell exits at once.
    let script = "setsid sh -c 'echo $$ > polite.pid; exec sleep 300' </dev/null >/dev/null 2>&1 &
                  setsid sh -c 'trap \"\" TERM; echo $$ > stubborn.pid; while :; do sleep 1; done' \
                    </dev/null >/dev/null 2>&1 &
                  while [ ! -s polite.pid ] || [ ! -s stubborn.pid ]; do sleep 0.01; done";
    let status = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    let polite = pid_in(&dir.path().join("polite.pid"));
    let stubborn = pid_in(&dir.path().join("stubborn.pid"));
    assert!(running(polite) && running(stubborn));

    let reaped = kill_descendants(Duration::from_millis(300));
    let mut terminated = reaped.terminated.clone();
    terminated.retain(|p| [polite, stubborn].contains(p));
    terminated.sort_unstable();
    let mut expected = vec![polite, stubborn];
    expected.sort_unstable();
    assert_eq!(terminated, expected);
    // `sleep 1` children of the stubborn loop may be killed too; the loop itself must be.
    assert!(reaped.killed.contains(&stubborn), "{reaped:?}");
    assert!(!reaped.killed.contains(&polite), "{reaped:?}");
    assert!(!running(polite) && !running(stubborn));
    // Reaped, not left as zombies.
    assert!(!Path::new(&format!("/proc/{polite}")).exists());
    assert!(!Path::new(&format!("/proc/{stubborn}")).exists());
}
