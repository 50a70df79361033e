//! What the benches share: the optimised `tack` pointed at a scripted server.

use std::path::Path;
use std::process::{Command, Stdio};

use tack_testkit::MockServer;

/// `tack` in `project` with a clean environment: temp `home`, a test key, the
/// scripted server's URL.
pub fn tack(project: &Path, home: &Path, server: &MockServer) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tack"));
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
