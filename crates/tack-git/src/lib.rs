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
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - git facts read in-process where certain, else `Unsure` and git runs: repository discovery,
//!   the config files (read once), filter drivers, main branch (`files.rs`); the recent
//!   commits, `git log --oneline` read from loose objects and packs, deltas included (`log.rs`,
//!   `objects.rs`); `git status --short`: the index (v2-4, `index.rs`) against HEAD's tree and
//!   the work tree (stat data, SHA-1 of contents where stat cannot tell), untracked files
//!   through the `ignore` crate with git's excludes (`status.rs`); the snapshot (`snapshot.rs`)
//!   started by the front end as soon as it knows the cwd (`prefetch.rs`,
//!   `SessionOptions::git_prefetch`). In a usual repository no git process runs before the
//!   first request: `tack-git/src/{files,index,status,log,objects,snapshot,prefetch}.rs`
//! - the checked-out branch for the status line and the transcripts' `gitBranch`, read
//!   in-process: the work tree's own HEAD (a linked worktree's or a submodule's `.git` file
//!   followed to its `gitdir:`), `HEAD` when detached: `tack-git/src/head.rs`
//! - the one way tack runs `git` (snapshot fallback, worktrees, plugin clones, `doctor`):
//!   `SAFE_CONFIG` (no hooks, fsmonitor, pager, external diff, gpg, submodule recursion,
//!   `ext::`), every filter driver the config names blanked (listed in-process, else by `git
//!   config`; unlisted, nothing runs), `GIT_ALLOW_PROTOCOL`, no prompt, no lazy fetch, `git`
//!   from an absolute `PATH` entry, a timeout for the whole process group (tack-sys's runner):
//!   `tack-git/src/run.rs`
//! - git worktrees as Claude Code names them (`.claude/worktrees/<name>/`, branch
//!   `worktree-<name>`): create from a commit, changed or not (files, untracked, commits), the
//!   patch since the base (`--binary`, new files staged), remove with the branch; every git
//!   command through tack-git's runner (no hooks, no filters: `git worktree add` would run
//!   `post-checkout` and every smudge filter): `tack-git/src/worktree.rs`

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
