//! What the benches share: the optimised `tack` pointed at a scripted server.

use std::path::Path;
use std::process::Command;

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
