//! Where the real components that `.ci/run` installs live, for the tests that
//! run them: a missing one fails the test when `TACK_REQUIRE_INTEGRATIONS` is
//! set (CI), and otherwise says the test did not run.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `pylsp` in the venv `.ci/install-lsp.sh` made (`$TACK_LSP_DIR`, else
/// `target/lsp`).
pub fn pylsp() -> Option<PathBuf> {
    let bin = venv("TACK_LSP_DIR", "lsp").join("bin/pylsp");
    let found = bin.canonicalize().ok().filter(|p| p.is_file());
    found.or_else(|| missing("pylsp", "install-lsp.sh"))
}

/// The venv `.ci/install-integrations.sh` made (`$TACK_INTEGRATIONS_DIR`, else
/// `target/integrations`), if `module` imports there.
pub fn integrations_venv(module: &str) -> Option<PathBuf> {
    let dir = venv("TACK_INTEGRATIONS_DIR", "integrations");
    let works = Command::new(dir.join("bin/python"))
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if works {
        Some(dir)
    } else {
        missing(module, "install-integrations.sh")
    }
}

fn venv(var: &str, under_target: &str) -> PathBuf {
    std::env::var_os(var).map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../target")
                .join(under_target)
        },
        PathBuf::from,
    )
}

fn missing(what: &str, script: &str) -> Option<PathBuf> {
    assert!(
        std::env::var_os("TACK_REQUIRE_INTEGRATIONS").is_none(),
        "TACK_REQUIRE_INTEGRATIONS is set but {what} is not installed: run bash .ci/{script}"
    );
    eprintln!("{what} is not installed (bash .ci/{script}): this test did not run");
    None
}
