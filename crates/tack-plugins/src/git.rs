//! Cloning a marketplace or a plugin with the real `git`, treating the
//! repository as hostile: no hooks and no `ext::` transport, only the
//! file, git, http(s) and ssh protocols, no submodules, no terminal prompt
//! for credentials, a timeout that stops the whole process group, and the
//! URL after `--` so it is never read as an option.

use std::path::Path;
use std::time::Duration;

use tack_sys::run::{CommandSpec, Ended, Program, run_command};

use crate::error::InstallError;

/// How long one git command may take.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(120);

/// Output kept per stream (a clone's progress is on stderr).
const OUTPUT_CAP: usize = 64 * 1024;

/// Clones `url` into `dest` (which must not exist) at `git_ref` (a branch or
/// tag; default: the remote's HEAD), then checks out `sha` when given.
/// Returns the commit checked out.
pub fn clone(
    url: &str,
    git_ref: Option<&str>,
    sha: Option<&str>,
    dest: &Path,
    timeout: Duration,
) -> Result<String, InstallError> {
    if url.starts_with('-') {
        return Err(InstallError::refused(format!("`{url}` is not a git URL")));
    }
    let dest_text = dest.to_string_lossy().into_owned();
    let mut args = vec!["clone", "--no-recurse-submodules", "--quiet"];
    if sha.is_none() {
        args.extend(["--depth", "1"]);
    }
    if let Some(r) = git_ref {
        args.extend(["--branch", r]);
    }
    args.extend(["--", url, dest_text.as_str()]);
    let cwd = dest.parent().unwrap_or(Path::new("/"));
    run("clone", &args, cwd, timeout)?;
    if let Some(sha) = sha {
        if !sha.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(InstallError::refused(format!(
                "`{sha}` is not a commit SHA"
            )));
        }
        run(
            "checkout",
            &["checkout", "--quiet", "--detach", sha],
            dest,
            timeout,
        )?;
    }
    head(dest, timeout)
}

/// The commit checked out in `repo`, if it is a git repository.
pub fn head(repo: &Path, timeout: Duration) -> Result<String, InstallError> {
    run("rev-parse", &["rev-parse", "HEAD"], repo, timeout).map(|out| out.trim().to_owned())
}

fn run(action: &str, args: &[&str], cwd: &Path, timeout: Duration) -> Result<String, InstallError> {
    let fail = |message: String| InstallError::Git {
        action: action.to_owned(),
        message,
    };
    let mut all: Vec<String> = [
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "protocol.ext.allow=never",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "submodule.recurse=false",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    all.extend(args.iter().map(|s| (*s).to_owned()));
    let spec = CommandSpec {
        program: Program::Exec {
            program: "git".to_owned(),
            args: all,
        },
        cwd: cwd.to_path_buf(),
        env: [
            ("GIT_TERMINAL_PROMPT", "0"),
            ("GIT_ALLOW_PROTOCOL", "file:git:http:https:ssh"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect(),
        stdin: None,
        timeout,
        output_cap: OUTPUT_CAP,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| fail(e.to_string()))?;
    let finished = runtime.block_on(run_command(&spec, std::future::pending()));
    match finished.ended {
        Ended::Exited(0) => Ok(finished.stdout),
        Ended::Exited(code) => Err(fail(format!(
            "exit code {code}: {}",
            finished.stderr.trim()
        ))),
        Ended::Signaled(signal) => Err(fail(format!("killed by signal {signal}"))),
        Ended::TimedOut(after) => Err(fail(format!("stopped after {} s", after.as_secs()))),
        Ended::Cancelled => Err(fail("cancelled".to_owned())),
        Ended::SpawnFailed(e) => Err(fail(format!("cannot run git: {e}"))),
    }
}
