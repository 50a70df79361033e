//! The operating-system pieces every tack crate shares, each written once:
//! signalling a process group ([`process_group`]), the child subreaper that
//! keeps daemonised children reachable ([`reaper`]), running a command with a
//! timeout and capped output, stopped with its whole group ([`run`]: hooks, the
//! status line, the user's `!` commands), and replacing a file atomically, with
//! a journal so the temporary files of a write that was killed half-way are
//! removed later ([`atomic_write`]).

pub mod atomic_write;
mod pid_dir;
pub mod process_group;
pub mod reaper;
pub mod run;

pub use atomic_write::{write_atomic, write_atomic_with_mode};
pub use process_group::{group_alive, signal_group};
