//! The release link places the functions a session runs next to each other
//! (`hot-symbols.txt`, written by `scripts/hot-symbols.sh`): the kernel maps
//! a binary's code in 64 KiB windows, so hot code spread over the whole
//! 14 MiB of text made a one-turn session resident in most of it.
//!
//! Only where the linker is known to be LLD (Rust's default on x86_64 Linux
//! since 1.90): other linkers do not take `--symbol-ordering-file`.
//! `TACK_NO_SYMBOL_ORDER=1` turns it off. The link also writes its map to
//! `OUT_DIR/tack.map`, which `scripts/hot-symbols.sh` reads.
//!
//! The same LLD release link is made smaller (BENCHMARKS.md, "binary"):
//! identical functions folded (`--icf=all`: generic code instantiated for
//! types of one layout is often byte for byte the same), strings merged
//! (`-O2`), and, where the C library loads them (glibc 2.36 and later, checked
//! on the building machine, which is where `cargo install` runs it), relative
//! relocations packed (`-z pack-relative-relocs`: a position-independent
//! binary's ~41,000 pointer fix-ups as a bitmap of 12 KB instead of a 966 KB
//! table). `TACK_NO_LINK_SHRINK=1` turns these three off.

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=hot-symbols.txt");
    println!("cargo:rerun-if-env-changed=TACK_NO_SYMBOL_ORDER");
    println!("cargo:rerun-if-env-changed=TACK_NO_LINK_SHRINK");
    let release = env::var("PROFILE").is_ok_and(|p| p == "release");
    let lld_target = env::var("TARGET").is_ok_and(|t| t == "x86_64-unknown-linux-gnu");
    if release && lld_target && !is_set("TACK_NO_LINK_SHRINK") {
        shrink_link();
    }
    let off = is_set("TACK_NO_SYMBOL_ORDER");
    let list = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default())
        .join("hot-symbols.txt");
    if !release || !lld_target || off || !list.is_file() {
        return;
    }
    println!(
        "cargo:rustc-link-arg-bin=tack=-Wl,--symbol-ordering-file={}",
        list.display()
    );
    // Where each function landed: scripts/hot-symbols.sh maps the stripped
    // binary's sampled addresses back to names with it.
    if let Some(out) = env::var_os("OUT_DIR") {
        let map = PathBuf::from(out).join("tack.map");
        println!("cargo:rustc-link-arg-bin=tack=-Wl,-Map={}", map.display());
    }
    // Names missing from this build (renamed or inlined since the list was
    // made) are expected; the rest are still placed.
    println!("cargo:rustc-link-arg-bin=tack=-Wl,--no-warn-symbol-ordering");
}

fn is_set(var: &str) -> bool {
    env::var_os(var).is_some_and(|v| v != "0")
}

/// Link arguments that make the release binary smaller without changing
/// what runs (see the crate docs).
fn shrink_link() {
    println!("cargo:rustc-link-arg-bin=tack=-Wl,--icf=all");
    println!("cargo:rustc-link-arg-bin=tack=-Wl,-O2");
    let native = env::var("HOST").ok() == env::var("TARGET").ok();
    if native && glibc_at_least(2, 36) {
        println!("cargo:rustc-link-arg-bin=tack=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether this machine's glibc loads packed relative relocations
/// (`DT_RELR`, glibc 2.36): a binary linked with them does not start on an
/// older one ("version `GLIBC_ABI_DT_RELR' not found").
fn glibc_at_least(major: u32, minor: u32) -> bool {
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    // "glibc 2.36"
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(version) = text.trim().strip_prefix("glibc ") else {
        return false;
    };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(a), Some(b)) => (a, b) >= (major, minor),
        _ => false,
    }
}
