//! A task's own folder: a git worktree of its repository (or a snapshot copy
//! of a folder outside git) under the batch's work folder, made before the
//! task runs and removed after its patch is taken. Changes to one repository's
//! worktree list are made one at a time (git locks them).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use tack_git::worktree::{self, Worktree, WorktreeError};

use super::task::{Source, Task, is_url};

/// What a running task has: its worktree and the folder it runs in (a
/// subfolder of the worktree when the task's `cwd` was one of its repository).
pub struct Workspace {
    pub worktree: Worktree,
    pub run_dir: PathBuf,
    copied: bool,
}

/// Per-repository locks, and the clones of repositories given by URL.
#[derive(Default)]
pub struct Repos {
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl Repos {
    fn lock_for(&self, key: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.locks.lock().unwrap_or_else(|p| p.into_inner());
        locks.entry(key.to_owned()).or_default().clone()
    }

    /// The local repository for `repo`: itself, or for a URL a bare clone in
    /// `<work>/repos/`, made once.
    async fn local(&self, repo: &str, work: &Path) -> anyhow::Result<PathBuf> {
        if !is_url(repo) {
            let path = PathBuf::from(repo);
            if !path.is_dir() {
                anyhow::bail!("its `repo` {repo} is not a folder (no such folder)");
            }
            return Ok(path);
        }
        let name: String = (repo.chars())
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let dest = work.join("repos").join(name);
        let lock = self.lock_for(repo);
        let _held = lock.lock().await;
        if !dest.exists() {
            std::fs::create_dir_all(work.join("repos"))?;
            worktree::clone_bare(repo, &dest)
                .await
                .with_context(|| format!("cannot clone {repo}"))?;
        }
        Ok(dest)
    }
}

/// Makes the task's folder at `dir`, first removing what a crashed run left.
pub async fn prepare(
    task: &Task,
    dir: &Path,
    work: &Path,
    repos: &Repos,
) -> anyhow::Result<Workspace> {
    match &task.source {
        Source::Repo { repo, commit } => {
            let local = repos.local(repo, work).await?;
            let worktree = fresh_worktree(&local, dir, commit, repos)
                .await
                .with_context(|| format!("cannot make a worktree of {repo} at {commit}"))?;
            Ok(Workspace {
                run_dir: dir.to_owned(),
                worktree,
                copied: false,
            })
        }
        Source::Dir(folder) if !folder.is_dir() => {
            anyhow::bail!(
                "its `cwd` {} is not a folder (no such folder)",
                folder.display()
            )
        }
        Source::Dir(folder) => match worktree::repo_root(folder).await {
            Ok(root) => {
                let (canonical, root_canonical) = (folder.canonicalize()?, root.canonicalize()?);
                let worktree = fresh_worktree(&root, dir, "HEAD", repos)
                    .await
                    .with_context(|| format!("cannot make a worktree of {}", root.display()))?;
                Ok(Workspace {
                    run_dir: worktree::matching_folder(dir, &root_canonical, &canonical),
                    worktree,
                    copied: false,
                })
            }
            Err(WorktreeError::NotARepository(_)) => {
                let _ = std::fs::remove_dir_all(dir);
                let (from, to) = (folder.clone(), dir.to_owned());
                // The work folder may sit inside the folder copied.
                let skip = work.canonicalize()?;
                tokio::task::spawn_blocking(move || copy_tree(&from, &to, &skip))
                    .await?
                    .with_context(|| format!("cannot copy {}", folder.display()))?;
                let worktree = worktree::snapshot(dir).await?;
                Ok(Workspace {
                    run_dir: dir.to_owned(),
                    worktree,
                    copied: true,
                })
            }
            Err(e) => Err(e.into()),
        },
    }
}

/// A worktree of `repo` at `dir`, made after clearing whatever a killed run
/// left there: the folder, git's record of it (locked, when its `worktree
/// add` was killed half-way). A `git` of a run killed with SIGKILL may
/// still be finishing in it (only the sessions die with the batch): when
/// making it fails, what is there is cleared again and it is tried again.
async fn fresh_worktree(
    repo: &Path,
    dir: &Path,
    commit: &str,
    repos: &Repos,
) -> anyhow::Result<Worktree> {
    let lock = repos.lock_for(&repo.to_string_lossy());
    let _held = lock.lock().await;
    // A commit that is not there will not appear: no second try for that.
    let base = worktree::resolve_commit(repo, commit).await?;
    let mut attempt = 1;
    loop {
        worktree::clear_leftover(repo, dir).await?;
        match worktree::create(repo, dir, &base, None).await {
            Ok(made) => return Ok(made),
            Err(e) if attempt == ATTEMPTS => return Err(e.into()),
            Err(_) => {}
        }
        tokio::time::sleep(Duration::from_millis(200) * attempt).await;
        attempt += 1;
    }
}

/// How many times a task's worktree is tried before the task fails.
const ATTEMPTS: u32 = 3;

impl Workspace {
    /// The task's patch (everything changed, new files included), then the
    /// folder removed. A patch that cannot be taken is an error; the folder
    /// is removed either way.
    pub async fn finish(self, repos: &Repos) -> (anyhow::Result<String>, anyhow::Result<()>) {
        let patch = self.worktree.diff().await.map_err(anyhow::Error::from);
        let removed = if self.copied {
            std::fs::remove_dir_all(&self.worktree.path).map_err(anyhow::Error::from)
        } else {
            let lock = repos.lock_for(&self.worktree.repo.to_string_lossy());
            let _held = lock.lock().await;
            self.worktree
                .remove(false)
                .await
                .map_err(anyhow::Error::from)
        };
        (patch, removed)
    }
}

/// Copies a folder: files, folders and symbolic links (as links), leaving
/// out the folder `skip`.
fn copy_tree(from: &Path, to: &Path, skip: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            if entry.path().canonicalize()? == skip {
                continue;
            }
            copy_tree(&entry.path(), &target, skip)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}
