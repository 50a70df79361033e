//! Crash test for the atomic writer Write/Edit use: a child process rewrites a
//! large file in a loop and is SIGKILLed at random moments; every time, the file
//! must hold exactly the old or the new content.
//!
//! The child is this same test binary, re-run with `--ignored --exact crash_child`
//! and the target path in an environment variable set on the child only.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use rand::Rng;
use tack_tools::write_atomic;

const TARGET_VAR: &str = "TACK_CRASH_TEST_TARGET";
const SIZE: usize = 8 * 1024 * 1024;

fn contents() -> (Vec<u8>, Vec<u8>) {
    // Different bytes everywhere, so any mix of the two is detected.
    (vec![b'o'; SIZE], vec![b'N'; SIZE + 4096])
}

#[test]
#[ignore = "child process of write_survives_sigkill_at_random_moments"]
fn crash_child() {
    let Some(target) = std::env::var_os(TARGET_VAR) else {
        return;
    };
    let target = Path::new(&target);
    let (old, new) = contents();
    println!("ready");
    loop {
        write_atomic(target, &new).expect("write new");
        write_atomic(target, &old).expect("write old");
    }
}

#[test]
fn write_survives_sigkill_at_random_moments() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("big.bin");
    let (old, new) = contents();
    std::fs::write(&target, &old).unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut rng = rand::rng();
    let (mut saw_old, mut saw_new) = (0, 0);
    for round in 0..10 {
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "crash::crash_child",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(TARGET_VAR, &target)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        assert!(
            lines.any(|l| l.is_ok_and(|l| l.contains("ready"))),
            "child never got ready"
        );
        // A random moment inside the write loop (each write takes tens of ms).
        std::thread::sleep(Duration::from_millis(rng.random_range(0..400)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let now = std::fs::read(&target).unwrap();
        if now == old {
            saw_old += 1;
        } else if now == new {
            saw_new += 1;
        } else {
            panic!(
                "round {round}: target is neither old nor new ({} bytes)",
                now.len()
            );
        }
    }
    eprintln!("old content {saw_old} times, new content {saw_new} times");
    // Killed runs may leave their temp file behind, never anything else.
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            name == "big.bin" || (name.starts_with(".big.bin.tack-") && name.ends_with(".tmp")),
            "{name}"
        );
    }
}
