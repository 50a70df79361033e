//! The operating-system pieces every tack crate shares, each written once:
//! signalling a process group ([`process_group`]), the child subreaper that
//! keeps daemonised children reachable ([`reaper`]), running a command with a
//! timeout and capped output, stopped with its whole group ([`run`]: hooks, the
//! status line, the user's `!` commands), replacing a file atomically, with a
//! journal so the temporary files of a write that was killed half-way are
//! removed later ([`atomic_write`]), and reading a configuration file a
//! repository may have planted: regular files only, size capped
//! ([`config_file`]), files only the user may read ([`private_file`]), and
//! untrusted text made safe for a terminal ([`terminal_text`]), a thread
//! for work nobody waits for that runs only on idle cores ([`idle_thread`]),
//! an exclusive lock around a state file's read-modify-write
//! ([`file_lock`]), and handing back the relocation table's pages after
//! start-up ([`relocation_pages`]).

pub mod atomic_write;
pub mod config_file;
pub mod file_lock;
pub mod idle_thread;
mod pid_dir;
pub mod private_file;
pub mod process_group;
pub mod reaper;
pub mod relocation_pages;
pub mod run;
pub mod terminal_text;

pub use atomic_write::{write_atomic, write_atomic_private, write_atomic_with_mode};
pub use config_file::{MAX_CONFIG_BYTES, read_config_file};
pub use file_lock::{FileLock, OpenFileLock, lock_exclusive, lock_open_file};
pub use process_group::{group_alive, signal_group};
