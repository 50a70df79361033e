//! Background sessions (`tack --bg`, `agents`, `logs`, `stop`, `rm`), as
//! Claude Code's: each one its own process serving the session protocol on a
//! socket in its job folder, the list being the folders themselves.
//!
//! - the job folder and `state.json`: `job.rs`
//! - `--bg`: the launcher that starts the detached session process and
//!   returns: `launch.rs`
//! - the session process (`--bg-job DIR`): serves, runs the prompt, keeps
//!   `state.json`, ends on SIGTERM: `session.rs`
//! - `agents`, `logs`, `stop`, `rm`: `commands.rs` (`agents`' table: `table.rs`)
//! - the worktree a `--bg -w` session made, settled by `rm`: `worktree.rs`
//! - the flags a respawn keeps (`args.json`): `kept_args.rs`; the team
//!   variables it keeps (`env.json`): `kept_env.rs`
//! - `respawn`: a killed session started again from its transcript:
//!   `respawn.rs`
//! - what the runtime starts a background teammate with: `teammates.rs`
//!
//! `docs/bg-design.md` says what is decided and what is next.

pub mod attach;
pub mod commands;
pub mod job;
pub mod kept_args;
pub mod kept_env;
pub mod launch;
pub mod live;
pub mod respawn;
pub mod session;
pub mod table;
pub mod teammates;
pub mod worktree;

use std::sync::atomic::{AtomicBool, Ordering};

/// Set once `--bg` has started a session: the launcher then leaves its
/// descendants alone at exit (the session is meant to outlive it).
static LAUNCHED: AtomicBool = AtomicBool::new(false);

/// Whether this process launched a background session.
pub fn launched() -> bool {
    LAUNCHED.load(Ordering::Relaxed)
}
