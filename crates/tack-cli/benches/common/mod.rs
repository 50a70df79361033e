//! What the benches share: the optimised `tack` pointed at a scripted server.

use std::path::Path;
use std::process::{Command, Stdio};

use tack_testkit::MockServer;

/// `tack` in `project` with a clean environment: temp `home`, a test key, the
/// scripted server's URL. `TACK_BENCH_BIN` names another binary to measure
/// (the real release build, whose hot-symbol order a `cargo bench` relink
/// loses).
pub fn tack(project: &Path, home: &Path, server: &MockServer) -> Command {
    let program =
        std::env::var_os("TACK_BENCH_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_tack").into());
    let mut cmd = Command::new(program);
    cmd.current_dir(project)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("TACK_CONFIG_DIR", home.join(".tack"))
        .env("ANTHROPIC_API_KEY", "bench")
        .env("ANTHROPIC_BASE_URL", server.base_url());
    cmd
}

/// The runtime the in-process scripted server runs on (one worker: the other
/// core is left to the process under test).
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime")
}

/// A project that is a git repository with one commit and a dirty file, as real
/// projects are: the first request waits for the git context.
#[allow(dead_code)] // not every bench uses it
pub fn git_project() -> tempfile::TempDir {
    let project = tempfile::tempdir().expect("temp project");
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(["-c", "user.name=b", "-c", "user.email=b@b"])
            .args(args)
            .current_dir(project.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "git {args:?} failed");
    };
    git(&["init", "-q"]);
    std::fs::write(project.path().join("README.md"), "hello\n").expect("write");
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "init"]);
    std::fs::write(project.path().join("README.md"), "changed\n").expect("write");
    project
}

/// The `--spawn-and-measure PROGRAM ARGS…` mode (a bench re-run as a small
/// middle process, so the measured child does not start with the bench's
/// resident memory): runs the program (stdout
/// discarded) and prints its peak RSS in KiB.
#[allow(dead_code, clippy::zombie_processes)] // reaped by the `wait4` below
pub fn spawn_and_measure(program: &str, args: &[String]) {
    let child = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("tack runs");
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child, not yet waited for; the pointers are live.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "tack failed: {status}"
    );
    println!("{}", usage.ru_maxrss);
}

/// True when this process was started as the middle process (its argv is
/// `--spawn-and-measure PROGRAM ARGS…`) and has measured its child.
#[allow(dead_code)]
pub fn measuring_child() -> bool {
    let args: Vec<String> = std::env::args().collect();
    if let [_, mode, program, rest @ ..] = args.as_slice()
        && mode == SPAWN_AND_MEASURE
    {
        spawn_and_measure(program, rest);
        return true;
    }
    false
}

#[allow(dead_code)]
pub const SPAWN_AND_MEASURE: &str = "--spawn-and-measure";
