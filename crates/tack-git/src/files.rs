//! What a repository's own files say, read without running `git`: whether
//! `cwd` is in a repository at all, the filter drivers its config files name,
//! and the main branch. Each spawn of `git` costs ~1-3 ms before the first
//! request (and the filter listing had to finish before `status` could start),
//! so these facts are read in-process where that is certain to give what git
//! would, and left to the `git` processes ([`Unsure`](Fact::Unsure)) where it
//! is not: an environment that moves the repository or adds config, config
//! files with `include`s, reftable refs.
//!
//! The filter listing is a security boundary (a driver missed here is a
//! program `status` runs), so it over-approximates: every config file git
//! could read is scanned (both system locations), and a header this parser
//! does not fully understand makes the answer `Unsure`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The variables that change where git looks for the repository, its config
/// or its objects; with any of them set, only git itself knows.
const REPO_ENV: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_NAMESPACE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_REPLACE_REF_BASE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_SHALLOW_FILE",
];

/// An answer read from the files, or `Unsure`: ask git.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fact<T> {
    Known(T),
    Unsure,
}

/// The environment the facts depend on (the process's, or a test's).
#[derive(Debug, Clone, Default)]
pub(crate) struct GitEnv {
    pub home: Option<PathBuf>,
    pub xdg_config_home: Option<PathBuf>,
    /// `<prefix>` of the first `<prefix>/bin/git` on `PATH` (where its
    /// system config and attributes live), looked up once.
    pub git_prefix: Option<PathBuf>,
    /// Some variable of [`REPO_ENV`] is set.
    pub repo_moved: bool,
}

impl GitEnv {
    pub(crate) fn from_process() -> GitEnv {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        GitEnv {
            home: var("HOME").map(PathBuf::from),
            xdg_config_home: var("XDG_CONFIG_HOME").map(PathBuf::from),
            git_prefix: var("PATH").and_then(|path| git_prefix(&path)),
            repo_moved: REPO_ENV.iter().any(|name| var(name).is_some()),
        }
    }
}

/// Where a repository keeps its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RepoDirs {
    /// `.git` (or a linked worktree's own dir under `.git/worktrees/`).
    pub git_dir: PathBuf,
    /// Where config and refs live (`commondir`), `git_dir` for the main tree.
    pub common_dir: PathBuf,
    /// The work tree's root (the directory holding `.git`).
    pub work_tree: PathBuf,
}

/// The repository containing `cwd` as git's discovery finds it: the nearest
/// ancestor with a `.git` directory or `gitdir:` file. `Known(None)`: no
/// repository (git need not run at all).
pub(crate) fn discover(cwd: &Path, env: &GitEnv) -> Fact<Option<RepoDirs>> {
    if env.repo_moved {
        return Fact::Unsure;
    }
    for dir in cwd.ancestors() {
        // Inside a git dir itself (or a bare repository) git has rules of its own.
        if looks_like_git_dir(dir) {
            return Fact::Unsure;
        }
        let dot_git = dir.join(".git");
        let Ok(meta) = std::fs::metadata(&dot_git) else {
            continue;
        };
        let git_dir = if meta.is_dir() {
            dot_git
        } else {
            match std::fs::read_to_string(&dot_git) {
                Ok(text) => match text.trim_end().strip_prefix("gitdir: ") {
                    Some(target) => dir.join(target),
                    None => return Fact::Unsure,
                },
                Err(_) => return Fact::Unsure,
            }
        };
        if !looks_like_git_dir(&git_dir) {
            return Fact::Unsure;
        }
        let common_dir = match std::fs::read_to_string(git_dir.join("commondir")) {
            Ok(text) => git_dir.join(text.trim_end()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => git_dir.clone(),
            Err(_) => return Fact::Unsure,
        };
        return Fact::Known(Some(RepoDirs {
            git_dir,
            common_dir,
            work_tree: dir.to_path_buf(),
        }));
    }
    Fact::Known(None)
}

fn looks_like_git_dir(dir: &Path) -> bool {
    dir.join("HEAD").is_file() && (dir.join("objects").is_dir() || dir.join("commondir").is_file())
}

/// The text of every config file git reads for this repository (system,
/// global, the repository's and its worktree's), in that order, one after
/// another: read once for all the facts below. `Unsure` if one exists but
/// cannot be read.
pub(crate) fn config_text(repo: &RepoDirs, env: &GitEnv) -> Fact<String> {
    read_config(config_files(Some(repo), env))
}

/// [`config_text`] for git run in `cwd`, which may be in no repository
/// (then the system and global files only).
pub(crate) fn config_text_at(cwd: &Path, env: &GitEnv) -> Fact<String> {
    match discover(cwd, env) {
        Fact::Known(repo) => read_config(config_files(repo.as_ref(), env)),
        Fact::Unsure => Fact::Unsure,
    }
}

fn read_config(files: Vec<PathBuf>) -> Fact<String> {
    let mut text = String::new();
    for file in files {
        match std::fs::read(&file) {
            Ok(bytes) => {
                text.push_str(&String::from_utf8_lossy(&bytes));
                text.push('\n');
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return Fact::Unsure,
        }
    }
    Fact::Known(text)
}

/// Whether `config` ([`config_text`]) mentions one of `fragments`
/// (lowercase) anywhere, in a key or a value: a coarse test that errs
/// towards `true`.
pub(crate) fn config_mentions(config: &str, fragments: &[&str]) -> bool {
    let config = config.to_ascii_lowercase();
    fragments.iter().any(|f| config.contains(f))
}

/// The config files git could read: both usual system locations (the one
/// compiled into the `git` on `PATH` is not known without running it), the
/// global ones, the repository's and the worktree's.
fn config_files(repo: Option<&RepoDirs>, env: &GitEnv) -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("/etc/gitconfig")];
    if let Some(prefix) = &env.git_prefix {
        files.push(prefix.join("etc/gitconfig"));
    }
    match &env.xdg_config_home {
        Some(xdg) => files.push(xdg.join("git/config")),
        None => files.extend(env.home.as_ref().map(|h| h.join(".config/git/config"))),
    }
    files.extend(env.home.as_ref().map(|h| h.join(".gitconfig")));
    if let Some(repo) = repo {
        files.push(repo.common_dir.join("config"));
        files.push(repo.git_dir.join("config.worktree"));
    }
    files
}

/// `<prefix>` of the first `<prefix>/bin/git` on `path` (a `PATH` value).
fn git_prefix(path: &OsString) -> Option<PathBuf> {
    let git = std::env::split_paths(path)
        .map(|dir| dir.join("git"))
        .find(|candidate| candidate.is_file())?;
    let git = git.canonicalize().unwrap_or(git);
    Some(git.parent()?.parent()?.to_path_buf())
}

/// The `[filter "<name>"]` (or legacy `[filter.<name>]`) sections of one
/// config file's text. `Unsure` for an `include` anywhere (the included file
/// may name drivers) or a filter header that cannot be read for certain.
pub(crate) fn filter_sections(text: &str) -> Fact<Vec<String>> {
    if text.to_ascii_lowercase().contains("include") {
        return Fact::Unsure;
    }
    let mut names = Vec::new();
    for line in text.lines() {
        let Some(header) = line.trim_start().strip_prefix('[') else {
            continue;
        };
        let section: String = header
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if section.is_empty() && line.to_ascii_lowercase().contains("filter") {
            return Fact::Unsure;
        }
        if !section.eq_ignore_ascii_case("filter") {
            continue;
        }
        match filter_name(&header[section.len()..]) {
            Some(name) => names.push(name),
            None => return Fact::Unsure,
        }
    }
    Fact::Known(names)
}

/// The driver name after `[filter`: ` "name"]` (escapes `\"` and `\\`) or
/// `.name]` (the legacy form, which git lowercases).
fn filter_name(rest: &str) -> Option<String> {
    if let Some(legacy) = rest.strip_prefix('.') {
        let (name, _) = legacy.split_once(']')?;
        return (!name.is_empty()).then(|| name.to_ascii_lowercase());
    }
    let quoted = rest.trim_start_matches([' ', '\t']).strip_prefix('"')?;
    let mut name = String::new();
    let mut chars = quoted.chars();
    loop {
        match chars.next()? {
            '"' => break,
            '\\' => name.push(chars.next()?),
            c => name.push(c),
        }
    }
    chars
        .as_str()
        .trim_start_matches([' ', '\t'])
        .starts_with(']')
        .then_some(name)
}

/// The main branch as `for-each-ref` on `origin/HEAD`, `main` and `master`
/// would give it: `origin/HEAD`'s target, else `main`, else `master` (loose
/// or packed), else `main`. `Unsure` for reftable repositories.
pub(crate) fn main_branch(repo: &RepoDirs) -> Fact<String> {
    let common = &repo.common_dir;
    if common.join("reftable").exists() {
        return Fact::Unsure;
    }
    match std::fs::read_to_string(common.join("refs/remotes/origin/HEAD")) {
        Ok(text) => {
            if let Some(branch) = text.trim_end().strip_prefix("ref: refs/remotes/origin/")
                && !branch.is_empty()
            {
                return Fact::Known(branch.to_owned());
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => return Fact::Unsure,
    }
    let packed = match std::fs::read_to_string(common.join("packed-refs")) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(_) => return Fact::Unsure,
    };
    for branch in ["main", "master"] {
        let name = format!("refs/heads/{branch}");
        let packed_has = packed
            .lines()
            .any(|line| line.split_once(' ').is_some_and(|(_, r)| r == name));
        if packed_has || common.join(&name).is_file() {
            return Fact::Known(branch.to_owned());
        }
    }
    Fact::Known("main".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn filter_headers_in_both_forms_with_escapes_and_other_sections_ignored() {
        let text = "[core]\n\tbare = false\n[filter \"lfs\"]\n\tclean = x\n\
                    [Filter \"a\\\"b\\\\c\"]\n  [filter.Legacy]\n[filters]\n\
                    [diff \"filter\"]\n[filter \"lfs\"] required = true\n";
        assert_eq!(
            filter_sections(text),
            Fact::Known(vec![
                "lfs".to_owned(),
                "a\"b\\c".to_owned(),
                "legacy".to_owned(),
                "lfs".to_owned()
            ])
        );
    }

    #[test]
    fn includes_and_unreadable_filter_headers_are_unsure() {
        for text in [
            "[include]\n\tpath = other\n",
            "[includeIf \"gitdir:/x/\"]\n\tpath = other\n",
            "[core]\n\tx = \"[Include]\"\n",
            "[filter \"unterminated]\n",
            "[filter]\n\tclean = x\n",
            "[filter \"a\" junk]\n",
            "[ filter \"a\"]\n",
        ] {
            assert_eq!(filter_sections(text), Fact::Unsure, "{text:?}");
        }
    }

    #[test]
    fn discovery_finds_a_dot_git_dir_a_gitdir_file_and_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let env = GitEnv::default();
        let plain = root.join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        assert_eq!(discover(&plain, &env), Fact::Known(None));

        let repo = root.join("repo");
        let git_dir = repo.join(".git");
        std::fs::create_dir_all(git_dir.join("objects")).unwrap();
        std::fs::write(git_dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::create_dir_all(repo.join("a/b")).unwrap();
        let main = RepoDirs {
            git_dir: git_dir.clone(),
            common_dir: git_dir.clone(),
            work_tree: repo.clone(),
        };
        assert_eq!(discover(&repo.join("a/b"), &env), Fact::Known(Some(main)));

        let linked = root.join("linked");
        let own = git_dir.join("worktrees/linked");
        std::fs::create_dir_all(&own).unwrap();
        std::fs::create_dir_all(&linked).unwrap();
        std::fs::write(own.join("HEAD"), "ref: refs/heads/x\n").unwrap();
        std::fs::write(own.join("commondir"), "../..\n").unwrap();
        std::fs::write(linked.join(".git"), format!("gitdir: {}\n", own.display())).unwrap();
        assert_eq!(
            discover(&linked, &env),
            Fact::Known(Some(RepoDirs {
                git_dir: own.clone(),
                common_dir: own.join("../.."),
                work_tree: linked.clone(),
            }))
        );

        let moved = GitEnv {
            repo_moved: true,
            ..GitEnv::default()
        };
        assert_eq!(discover(&plain, &moved), Fact::Unsure);
        assert_eq!(discover(&git_dir, &env), Fact::Unsure);
    }

    #[test]
    fn main_branch_from_origin_head_then_main_then_master_loose_or_packed() {
        let tmp = tempfile::tempdir().unwrap();
        let git_dir = tmp.path().to_path_buf();
        let repo = RepoDirs {
            git_dir: git_dir.clone(),
            common_dir: git_dir.clone(),
            work_tree: tmp.path().to_path_buf(),
        };
        assert_eq!(main_branch(&repo), Fact::Known("main".to_owned()));
        std::fs::write(
            git_dir.join("packed-refs"),
            "# pack-refs with: peeled\nabc refs/heads/master\n",
        )
        .unwrap();
        assert_eq!(main_branch(&repo), Fact::Known("master".to_owned()));
        std::fs::create_dir_all(git_dir.join("refs/heads")).unwrap();
        std::fs::write(git_dir.join("refs/heads/main"), "abc\n").unwrap();
        assert_eq!(main_branch(&repo), Fact::Known("main".to_owned()));
        std::fs::create_dir_all(git_dir.join("refs/remotes/origin")).unwrap();
        std::fs::write(
            git_dir.join("refs/remotes/origin/HEAD"),
            "ref: refs/remotes/origin/trunk\n",
        )
        .unwrap();
        assert_eq!(main_branch(&repo), Fact::Known("trunk".to_owned()));
        std::fs::create_dir(git_dir.join("reftable")).unwrap();
        assert_eq!(main_branch(&repo), Fact::Unsure);
    }
}
