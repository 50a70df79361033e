//! The one way tack runs `git`: the start-up snapshot when it cannot read
//! the repository in-process, worktrees (`--worktree`, `isolation:
//! worktree`, `tack batch`), plugin and marketplace clones, `tack doctor`.
//!
//! # A repository is not trusted
//!
//! Opening a repository must not run its code, but a repository's config
//! names programs git runs on its own: `core.fsmonitor` (on every
//! `status`), clean/smudge/process filters (a checkout runs the smudge
//! filter of every file `.gitattributes` assigns one, `status` and `add`
//! the clean filter), hooks (`git worktree add` runs `post-checkout`),
//! pagers, external diff, `gpg.program` (signed commits, `log` with
//! `log.showSignature`), lazy fetches of a partial clone, the `ext::`
//! transport. Every command runs with those switched off on the command
//! line ([`SAFE_CONFIG`]), which beats any config file. Filter drivers have
//! free names, so they are listed first (in-process from the config files,
//! else `git config`, which runs nothing) and each is blanked; if they
//! cannot be listed, the command does not run. Only the file, git, http(s)
//! and ssh protocols, no terminal prompt for credentials, and a timeout that
//! stops the whole process group (tack-sys's runner).

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tack_sys::run::{CommandSpec, Ended, Program, run_command};

use crate::files::{self, Fact, GitEnv};

/// `-c` settings on every git command: no repo-configured program runs.
/// (An empty `core.fsmonitor` is "off" both for gits that read it as a bool
/// and for older ones that read it as a hook path.)
pub const SAFE_CONFIG: &[&str] = &[
    "core.fsmonitor=",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "diff.external=",
    "log.showSignature=false",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "submodule.recurse=false",
    "protocol.ext.allow=never",
];

/// The transports git may use (`GIT_ALLOW_PROTOCOL`): no `ext::`, no
/// remote helper a repository names.
pub const ALLOWED_PROTOCOLS: &str = "file:git:http:https:ssh";

/// Output kept per stream unless a command asks for more.
const OUTPUT_CAP: usize = 16 << 20;

/// Why a git command gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GitError {
    #[error("exit code {code}: {stderr}")]
    Exited { code: i32, stderr: String },
    #[error("killed by signal {0}")]
    Signaled(i32),
    #[error("stopped after {} s", .0.as_secs())]
    TimedOut(Duration),
    #[error("cannot run git: {0}")]
    Spawn(String),
    /// A filter driver `-c` cannot blank (its name holds `=` or a newline):
    /// the command would run it.
    #[error("the filter driver {0:?} cannot be switched off, so git is not run")]
    FilterName(String),
    #[error("its output passed {0} bytes")]
    OutputTooLarge(usize),
}

/// What a finished git command printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitOutput {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl GitOutput {
    /// Its stdout if it exited 0, else [`GitError::Exited`].
    pub fn success(self) -> Result<String, GitError> {
        match self.code {
            0 => Ok(self.stdout),
            code => Err(GitError::Exited {
                code,
                stderr: self.stderr.trim().to_owned(),
            }),
        }
    }
}

/// One git command and how it runs; [`run`](Self::run) adds the hardening.
#[derive(Debug, Clone)]
pub struct GitCommand {
    cwd: PathBuf,
    args: Vec<String>,
    stdin: Option<Arc<Vec<u8>>>,
    timeout: Duration,
    output_cap: usize,
    /// The filter drivers to blank; `None`: listed before the command runs.
    drivers: Option<Vec<String>>,
}

impl GitCommand {
    /// `git <args>` in `cwd`, stopped after `timeout`.
    pub fn new(cwd: &Path, args: &[&str], timeout: Duration) -> GitCommand {
        GitCommand {
            cwd: cwd.to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            stdin: None,
            timeout,
            output_cap: OUTPUT_CAP,
            drivers: None,
        }
    }

    /// Writes `input` to its stdin.
    pub fn stdin(mut self, input: &[u8]) -> GitCommand {
        self.stdin = Some(Arc::new(input.to_vec()));
        self
    }

    /// Keeps up to `bytes` of each stream; more is [`GitError::OutputTooLarge`].
    pub fn output_cap(mut self, bytes: usize) -> GitCommand {
        self.output_cap = bytes;
        self
    }

    /// Blanks these filter drivers instead of listing them.
    pub(crate) fn drivers(mut self, drivers: Vec<String>) -> GitCommand {
        self.drivers = Some(drivers);
        self
    }

    /// Runs it, hardened; any exit code is an answer.
    pub async fn run(&self) -> Result<GitOutput, GitError> {
        let drivers = match &self.drivers {
            Some(drivers) => drivers.clone(),
            None => filter_drivers(&self.cwd, self.timeout).await?,
        };
        self.run_blanking(&blank_drivers(&drivers)?).await
    }

    /// [`run`](Self::run) on a runtime of its own, for callers outside one.
    pub fn run_blocking(&self) -> Result<GitOutput, GitError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| GitError::Spawn(e.to_string()))?;
        runtime.block_on(self.run())
    }

    async fn run_blanking(&self, blank_filters: &[String]) -> Result<GitOutput, GitError> {
        let mut args: Vec<String> = ["--no-pager", "--no-optional-locks"]
            .map(String::from)
            .into();
        for setting in SAFE_CONFIG
            .iter()
            .copied()
            .chain(blank_filters.iter().map(String::as_str))
        {
            args.extend(["-c".to_owned(), setting.to_owned()]);
        }
        args.extend(self.args.iter().cloned());
        let env = [
            ("GIT_TERMINAL_PROMPT", "0"),
            // A partial clone would fetch missing objects, through the
            // remote's transport (and `core.sshCommand`).
            ("GIT_NO_LAZY_FETCH", "1"),
            ("GIT_ALLOW_PROTOCOL", ALLOWED_PROTOCOLS),
        ];
        let spec = CommandSpec {
            program: Program::Exec {
                program: git_program().to_owned(),
                args,
            },
            cwd: self.cwd.clone(),
            env: env.map(|(k, v)| (k.to_owned(), v.to_owned())).into(),
            stdin: self.stdin.clone(),
            timeout: self.timeout,
            output_cap: self.output_cap,
        };
        let finished = run_command(&spec, std::future::pending()).await;
        if finished.truncated {
            return Err(GitError::OutputTooLarge(self.output_cap));
        }
        match finished.ended {
            Ended::Exited(code) => Ok(GitOutput {
                code,
                stdout: finished.stdout,
                stderr: finished.stderr,
            }),
            Ended::Signaled(signal) => Err(GitError::Signaled(signal)),
            Ended::TimedOut(after) => Err(GitError::TimedOut(after)),
            Ended::Cancelled => Err(GitError::Spawn("cancelled".to_owned())),
            Ended::SpawnFailed(e) => Err(GitError::Spawn(e)),
        }
    }
}

/// The filter drivers the config git reads in `cwd` names, each once:
/// in-process where certain, else from `git config` (which runs no filter).
pub(crate) async fn filter_drivers(cwd: &Path, timeout: Duration) -> Result<Vec<String>, GitError> {
    if let Fact::Known(config) = files::config_text_at(cwd, &GitEnv::from_process())
        && let Fact::Known(drivers) = drivers_in_config(&config)
    {
        return Ok(drivers);
    }
    let args = &[
        "config",
        "--null",
        "--name-only",
        "--get-regexp",
        r"^filter\.",
    ];
    let listing = GitCommand::new(cwd, args, timeout)
        .run_blanking(&[])
        .await?;
    match listing.code {
        // 1: no such key, no filters.
        1 => Ok(Vec::new()),
        _ => Ok(listed_drivers(&listing.success()?)),
    }
}

/// The filter drivers `config` ([`files::config_text`]) names, each once,
/// in order; `Unsure` where a header cannot be read for certain.
pub(crate) fn drivers_in_config(config: &str) -> Fact<Vec<String>> {
    match files::filter_sections(config) {
        Fact::Known(mut names) => {
            let mut seen = HashSet::new();
            names.retain(|n| seen.insert(n.clone()));
            Fact::Known(names)
        }
        Fact::Unsure => Fact::Unsure,
    }
}

/// The drivers of the `filter.<name>.<key>` names `git config --null
/// --name-only` printed, each once, in order.
fn listed_drivers(names: &str) -> Vec<String> {
    let mut drivers: Vec<String> = Vec::new();
    for key in names.split('\0').filter(|k| !k.is_empty()) {
        let Some((driver, _)) = key
            .strip_prefix("filter.")
            .and_then(|rest| rest.rsplit_once('.'))
        else {
            continue;
        };
        if !drivers.iter().any(|d| d == driver) {
            drivers.push(driver.to_owned());
        }
    }
    drivers
}

/// `-c` settings that blank each of `drivers`; an error for a driver name
/// `-c` cannot express.
pub(crate) fn blank_drivers(drivers: &[impl AsRef<str>]) -> Result<Vec<String>, GitError> {
    let mut overrides = Vec::new();
    for driver in drivers {
        let d = driver.as_ref();
        // `-c` splits at the first `=`: such a name would blank another key.
        if d.contains(['=', '\n']) {
            return Err(GitError::FilterName(d.to_owned()));
        }
        overrides.extend([
            format!("filter.{d}.clean="),
            format!("filter.{d}.smudge="),
            format!("filter.{d}.process="),
            format!("filter.{d}.required=false"),
        ]);
    }
    Ok(overrides)
}

/// `git`: the first executable of that name in an absolute `PATH` entry,
/// looked up once. The child then execs it at once instead of trying each
/// `PATH` entry after the fork, and a relative entry (`.`, which would be
/// the repository itself) is never searched. Just `git` if none is found.
fn git_program() -> &'static str {
    static PROGRAM: OnceLock<String> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        find_git(&std::env::var_os("PATH").unwrap_or_default())
            .into_string()
            .unwrap_or_else(|_| "git".to_owned())
    })
}

/// [`git_program`]'s search of `path` (a `PATH` value).
fn find_git(path: &OsStr) -> OsString {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("git"))
        .find(|git| {
            std::fs::metadata(git).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .map_or_else(|| "git".into(), PathBuf::into_os_string)
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
