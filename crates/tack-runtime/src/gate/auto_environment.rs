//! What auto mode's classifier is told of where the session runs (its
//! environment rules' context): the working directories, the repository's
//! remotes and the git state, told at start and again when EnterWorktree or
//! ExitWorktree moves the session.

use std::path::{Path, PathBuf};

use super::Gate;

impl Gate {
    /// Tells auto mode (when on) where the session runs: its working
    /// directories with `cwd` first when given (the folder EnterWorktree or
    /// ExitWorktree moved it to; else the start folder), and `git`, the git
    /// state the system prompt has.
    pub(crate) fn tell_auto_environment(&self, cwd: Option<&Path>, git: Option<&str>) {
        let Some(auto) = self.auto() else {
            return;
        };
        let mut dirs = self.working_dirs();
        if let (Some(cwd), Some(first)) = (cwd, dirs.first_mut()) {
            *first = cwd.to_path_buf();
        }
        auto.set_environment(environment(&dirs, git));
    }
}

/// What the classifier is told of where the session runs: its working
/// directories, the repository's remotes (trusted by the default rules) and
/// its git state (branch, status, recent commits) as the system prompt has it.
fn environment(dirs: &[PathBuf], git: Option<&str>) -> String {
    let mut out = String::from("Working directories (the project; trusted):\n");
    for d in dirs {
        out.push_str(&format!("- {}\n", d.display()));
    }
    let remotes = dirs.first().map(|d| remotes(d)).unwrap_or_default();
    if !remotes.is_empty() {
        out.push_str("\nThis repository's remotes (trusted):\n");
        for (name, url) in remotes {
            out.push_str(&format!("- {name}: {url}\n"));
        }
    }
    if let Some(git) = git.filter(|g| !g.trim().is_empty()) {
        out.push('\n');
        out.push_str(git.trim());
        out.push('\n');
    }
    out
}

/// The remotes of the repository holding `dir`, read from its git config
/// file (no `git` process: a repository's config can name programs git
/// would run). A linked worktree's `.git` file leads to the common config.
/// Each file is read as a repository's file is: a regular file of at most
/// 1 MiB (a FIFO or a device planted there is no config, not a hang).
fn remotes(dir: &Path) -> Vec<(String, String)> {
    let read = |path: &Path| tack_sys::read_config_file(path, MAX_GIT_FILE_BYTES);
    let root = tack_config::find_project_dir(dir);
    let dot_git = root.join(".git");
    let git_dir = match read(&dot_git) {
        Ok(text) => match text.trim().strip_prefix("gitdir:") {
            Some(path) => {
                let linked = root.join(path.trim());
                match read(&linked.join("commondir")) {
                    Ok(common) => linked.join(common.trim()),
                    Err(_) => linked,
                }
            }
            None => return Vec::new(),
        },
        Err(_) => dot_git,
    };
    let Ok(config) = read(&git_dir.join("config")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut remote: Option<String> = None;
    for line in config.lines().map(str::trim) {
        if line.starts_with('[') {
            remote = line
                .strip_prefix("[remote \"")
                .and_then(|r| r.strip_suffix("\"]"))
                .map(str::to_owned);
        } else if let (Some(name), Some((key, value))) = (&remote, line.split_once('='))
            && key.trim() == "url"
            && out.len() < 16
        {
            let url = tack_sys::terminal_text::visible(value.trim()).into_owned();
            out.push((name.clone(), url));
        }
    }
    out
}

/// A git config (or `.git` file) larger than this is not one.
const MAX_GIT_FILE_BYTES: u64 = 1 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    fn mkfifo(path: &Path) {
        let made = std::process::Command::new("mkfifo").arg(path).status();
        assert!(made.unwrap().success());
    }

    /// A checkout (an unpacked archive) can hold anything where git's files
    /// go: a FIFO would block the read for good, so auto mode never
    /// started; it is no config, and the session goes on.
    #[test]
    fn a_fifo_or_a_huge_file_in_place_of_git_files_names_no_remote_and_does_not_hang() {
        let dir = tempfile::tempdir().unwrap();
        let listed = |project: &Path| {
            format!(
                "Working directories (the project; trusted):\n- {}\n",
                project.display()
            )
        };
        let fifo_config = dir.path().join("a");
        std::fs::create_dir_all(fifo_config.join(".git")).unwrap();
        mkfifo(&fifo_config.join(".git/config"));
        let fifo_dot_git = dir.path().join("b");
        std::fs::create_dir_all(&fifo_dot_git).unwrap();
        mkfifo(&fifo_dot_git.join(".git"));
        let linked_fifo = dir.path().join("c");
        std::fs::create_dir_all(linked_fifo.join("wt")).unwrap();
        std::fs::write(linked_fifo.join(".git"), "gitdir: wt\n").unwrap();
        mkfifo(&linked_fifo.join("wt/commondir"));
        mkfifo(&linked_fifo.join("wt/config"));
        let huge = dir.path().join("d");
        std::fs::create_dir_all(huge.join(".git")).unwrap();
        let config = std::fs::File::create(huge.join(".git/config")).unwrap();
        config.set_len(2 << 20).unwrap();
        for project in [fifo_config, fifo_dot_git, linked_fifo, huge] {
            assert_eq!(
                environment(std::slice::from_ref(&project), None),
                listed(&project)
            );
        }
    }

    #[test]
    fn the_remotes_come_from_the_git_config_file() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir_all(&git).unwrap();
        std::fs::write(
            git.join("config"),
            "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:acme/app.git\n\tfetch = +refs/heads/*\n[branch \"main\"]\n\tremote = origin\n",
        )
        .unwrap();
        let project = dir.path().to_path_buf();
        assert_eq!(
            environment(std::slice::from_ref(&project), None),
            format!(
                "Working directories (the project; trusted):\n- {}\n\nThis repository's remotes (trusted):\n- origin: git@github.com:acme/app.git\n",
                project.display()
            )
        );
    }

    #[test]
    fn the_environment_names_the_directories_and_the_git_state() {
        let dirs = [PathBuf::from("/p"), PathBuf::from("/extra")];
        assert_eq!(
            environment(&dirs, Some("Current branch: main\n")),
            "Working directories (the project; trusted):\n- /p\n- /extra\n\nCurrent branch: main\n"
        );
        assert_eq!(
            environment(&dirs[..1], None),
            "Working directories (the project; trusted):\n- /p\n"
        );
    }
}
