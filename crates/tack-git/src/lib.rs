//! Every git thing tack does, in one place.
//!
//! - Read in-process, no `git` process (start-up stays fast): the branch a
//!   work tree has checked out ([`head`], right in a linked worktree and a
//!   submodule), and the snapshot the system prompt carries ([`snapshot`]:
//!   branch, main branch, short status, recent commits), which falls back to
//!   `git` where the files cannot tell for certain.
//! - Run as a process, always through [`run::GitCommand`]: the one runner
//!   that switches off every program a repository's config names (hooks,
//!   filters, fsmonitor, pager, external diff, gpg), the `ext::` transport
//!   and credential prompts, with a timeout. The worktrees of `--worktree`,
//!   `isolation: worktree` and `tack batch` ([`worktree`]), plugin clones
//!   and `tack doctor` use it.

pub mod head;
pub mod prefetch;
pub mod run;
pub mod snapshot;
pub mod worktree;

mod files;
mod index;
mod log;
mod objects;
#[cfg(test)]
mod sandbox;
mod status;
