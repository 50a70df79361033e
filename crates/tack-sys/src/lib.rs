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
//! ([`file_lock`]), waiting for a process that is not one's child
//! ([`pidfd`]), and handing back the relocation table's pages after
//! start-up ([`relocation_pages`]).
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - atomic writes (journalled temp files, removed at the next start), process-group signals,
//!   an exclusive `flock` on a file or folder: one of each for every crate:
//!   `tack-sys/src/{atomic_write,process_group,file_lock}.rs`
//! - Claude Code's own lock beside tack's `flock` (proper-lockfile's `<file>.lock` folder):
//!   task lists and team inboxes: `tack-sys/src/cc_lock.rs`
//! - everything under the config dirs (`~/.claude`, `~/.tack`, `~/.claude.json`) the user's
//!   alone whatever the umask: files 0600, folders tack creates 0700 (`write_atomic_private`,
//!   `private_file::{create_private, write_private, open_private_append, create_dirs_private,
//!   restrict_tree}`: transcripts, tool results, checkpoints, task output, MCP logs and
//!   results, trust, plugins, the sweep stamp, the write journal); tested by
//!   `tack-cli/tests/file_modes.rs` under umask 022:
//!   `tack-sys/src/{private_file,atomic_write}.rs`
//! - running a command with a timeout (own process group, stdin, capped output, TERM then KILL
//!   of the group): hooks, the status line, `!cmd` (the Bash tool's timeout and output cap),
//!   apiKeyHelper: `tack-sys/src/run.rs`
//! - reading a configuration file (regular files only, size capped); untrusted text made
//!   visible for a terminal: `tack-sys/src/{config_file,terminal_text}.rs`
//! - an error and its causes as one line, each cause said once: `tack-sys/src/error_text.rs`
//! - child subreaper; killing every descendant at exit: `tack-sys/src/reaper.rs`
//! - work nobody waits for (the `cleanupPeriodDays` sweep) on a `SCHED_IDLE` thread:
//!   `tack-sys/src/idle_thread.rs`

pub mod atomic_write;
pub mod cc_lock;
pub mod config_file;
pub mod error_text;
pub mod file_lock;
pub mod idle_pages;
pub mod idle_thread;
pub mod inotify;
mod pid_dir;
pub mod pidfd;
pub mod private_file;
pub mod process_group;
pub mod reaper;
pub mod relocation_pages;
pub mod run;
pub mod terminal_text;

pub use atomic_write::{write_atomic, write_atomic_private, write_atomic_with_mode};
pub use config_file::{MAX_CONFIG_BYTES, read_config_file};
pub use file_lock::{FileLock, OpenFileLock, lock_exclusive, lock_exclusive_file, lock_open_file};
pub use process_group::{group_alive, signal_group, terminate_self};
