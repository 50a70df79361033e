//! The release link places the functions a session runs next to each other
//! (`hot-symbols.txt`, written by `scripts/hot-symbols.sh`): the kernel maps
//! a binary's code in 64 KiB windows, so hot code spread over the whole
//! 14 MiB of text made a one-turn session resident in most of it.
//!
//! Only where the linker is known to be LLD (Rust's default on x86_64 Linux
//! since 1.90): other linkers do not take `--symbol-ordering-file`.
//! `TACK_NO_SYMBOL_ORDER=1` turns it off.

use std::env;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=hot-symbols.txt");
    println!("cargo:rerun-if-env-changed=TACK_NO_SYMBOL_ORDER");
    let release = env::var("PROFILE").is_ok_and(|p| p == "release");
    let lld_target = env::var("TARGET").is_ok_and(|t| t == "x86_64-unknown-linux-gnu");
    let off = env::var_os("TACK_NO_SYMBOL_ORDER").is_some_and(|v| v != "0");
    let list = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default())
        .join("hot-symbols.txt");
    if !release || !lld_target || off || !list.is_file() {
        return;
    }
    println!(
        "cargo:rustc-link-arg-bin=tack=-Wl,--symbol-ordering-file={}",
        list.display()
    );
    // Names missing from this build (renamed or inlined since the list was
    // made) are expected; the rest are still placed.
    println!("cargo:rustc-link-arg-bin=tack=-Wl,--no-warn-symbol-ordering");
}
