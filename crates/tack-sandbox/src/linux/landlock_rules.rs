//! Landlock, best effort up to the kernel's ABI: read and execute anywhere,
//! write only in the policy's writable trees and a few devices. Landlock
//! checks the object a path resolves to when it is opened, so a symlink
//! planted (or swapped in) to point outside a writable tree leads nowhere.

use std::io;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, RulesetAttr, RulesetCreated,
    RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};

use crate::policy::Policy;

pub(super) type Ruleset = RulesetCreated;

/// The newest ABI this code asks for (the crate drops what the kernel lacks).
const WANTED: ABI = ABI::V7;

/// Devices a shell writes to.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
    "/dev/shm",
];

/// The kernel's Landlock ABI version (0: none).
pub fn abi() -> i32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with LANDLOCK_CREATE_RULESET_VERSION the attribute must be
    // null and its size 0: the kernel reads no memory and only returns the
    // ABI version (or an error).
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    i32::try_from(v).unwrap_or(0).max(0)
}

fn existing(paths: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    paths.into_iter().filter(|p| p.exists()).collect()
}

/// Built in PID 1 before the command's fork; enforced by [`restrict_self`].
pub(super) fn ruleset(policy: &Policy) -> io::Result<Ruleset> {
    let err = |e: landlock::RulesetError| io::Error::other(e.to_string());
    // Binding a port is not restricted: the network namespace is the
    // command's own, so a server it starts is reachable only from inside
    // (as in Claude Code on Linux, where `allowLocalBinding` is macOS's).
    let base = landlock::Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(WANTED))
        .map_err(err)?
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .map_err(err)?;
    let writable = existing(
        policy
            .writable
            .iter()
            .cloned()
            .chain(DEVICES.iter().map(PathBuf::from)),
    );
    base.create()
        .map_err(err)?
        .add_rules(path_beneath_rules(
            [Path::new("/")],
            AccessFs::from_read(WANTED),
        ))
        .map_err(err)?
        .add_rules(path_beneath_rules(&writable, AccessFs::from_all(WANTED)))
        .map_err(err)
}

pub(super) fn restrict_self(ruleset: Ruleset) -> io::Result<()> {
    let status = ruleset
        .restrict_self()
        .map_err(|e| io::Error::other(e.to_string()))?;
    match status.ruleset {
        RulesetStatus::NotEnforced => Err(io::Error::other("not enforced by this kernel")),
        RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced => Ok(()),
    }
}
