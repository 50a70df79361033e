//! The re-executed binary: unshare, fork PID 1, fork the command.

use std::ffi::OsString;
use std::io;
use std::os::unix::process::CommandExt;

use crate::planted::{self, Snapshot};
use crate::policy::{FORCE_UNAVAILABLE_ENV, Policy};

use super::{Step, bridge, caps, landlock_rules, mounts, seccomp};

/// Exit status of a sandbox that could not be set up (the message is on
/// stderr, starting with `tack sandbox:`).
pub const SETUP_FAILED: i32 = 125;

/// Runs the init for `args` (what follows [`crate::INIT_ARG`]: the policy as
/// JSON, then the command and its arguments). Never returns to the CLI.
pub fn init_main(args: Vec<OsString>) -> i32 {
    let mut args = args.into_iter();
    let policy: Policy = match args
        .next()
        .and_then(|a| a.into_string().ok())
        .map(|json| serde_json::from_str(&json))
    {
        Some(Ok(policy)) => policy,
        Some(Err(e)) => return fail("the policy", &io::Error::other(e)),
        None => return fail("the policy", &io::Error::other("missing")),
    };
    let command: Vec<OsString> = args.collect();
    if command.is_empty() {
        return fail("the command", &io::Error::other("missing"));
    }
    if std::env::var_os(FORCE_UNAVAILABLE_ENV).is_some() {
        let why = io::Error::other(format!("forced unavailable ({FORCE_UNAVAILABLE_ENV})"));
        return fail("user namespaces", &why);
    }
    match outer(&policy, &command) {
        Ok(code) => code,
        Err((step, e)) => fail(step, &e),
    }
}

fn fail(step: &str, e: &io::Error) -> i32 {
    eprintln!("tack sandbox: {step}: {e}");
    SETUP_FAILED
}

fn check(step: &'static str, rc: libc::c_int) -> Result<(), Step> {
    if rc == -1 {
        Err((step, io::Error::last_os_error()))
    } else {
        Ok(())
    }
}

/// The caller's child: new namespaces, then PID 1 forked into them; exits
/// with PID 1's status. Signals that stop a shell are ignored here: the
/// command gets them from its process group, and a SIGKILL here takes PID 1
/// (and so the namespace) with it.
fn outer(policy: &Policy, command: &[OsString]) -> Result<i32, Step> {
    // SAFETY: getuid and getgid have no preconditions and cannot fail.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    if landlock_rules::abi() < 1 {
        return Err(("Landlock", io::Error::other("not supported by this kernel")));
    }
    let flags = libc::CLONE_NEWUSER
        | libc::CLONE_NEWNS
        | libc::CLONE_NEWPID
        | libc::CLONE_NEWNET
        | libc::CLONE_NEWIPC
        | libc::CLONE_NEWUTS;
    // SAFETY: unshare(2) takes flags only. With CLONE_NEWUSER the kernel
    // refuses (EINVAL) a process that has more than one thread, so from here
    // on this process is known to be single-threaded: the forks below copy
    // the whole process, and the children may allocate.
    check("user namespaces", unsafe { libc::unshare(flags) })?;
    let map = |file: &str, text: String| std::fs::write(file, text).map_err(|e| ("the uid map", e));
    map("/proc/self/setgroups", "deny".into())?;
    map("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    map("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
    for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT] {
        // SAFETY: SIG_IGN installs no handler of ours; `sig` is a valid signal.
        unsafe { libc::signal(sig, libc::SIG_IGN) };
    }
    // What git and tack would run, as it is before the command: bound
    // read-only inside, and compared with what is there after it.
    let watched: Vec<std::path::PathBuf> = policy
        .protected
        .iter()
        .chain(&policy.watched)
        .cloned()
        .collect();
    let before = Snapshot::take(&policy.scan_roots, &watched);
    let policy = &with_plantables_read_only(policy, &before);
    // SAFETY: the process is single-threaded (the unshare above succeeded,
    // and nothing since started a thread), so the child is a whole copy: no
    // lock is held by a thread that does not exist there.
    let pid = unsafe { libc::fork() };
    check("fork", pid)?;
    if pid == 0 {
        // PID 1 of the new namespace.
        // Dies with the outer process (which a SIGKILL of the group reaches).
        // SAFETY: prctl(PR_SET_PDEATHSIG) takes a signal number and touches
        // no memory of ours.
        unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
        for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT] {
            // SAFETY: SIG_DFL installs no handler of ours; `sig` is valid.
            unsafe { libc::signal(sig, libc::SIG_DFL) };
        }
        let code = match pid_one(policy, command) {
            Ok(code) => code,
            Err((step, e)) => fail(step, &e),
        };
        // SAFETY: _exit ends this process at once, without running the
        // parent's atexit handlers or flushing buffers copied from it.
        unsafe { libc::_exit(code) };
    }
    let code = wait_exit_code(pid);
    // Every process of the namespace is gone: nothing can race the check.
    let after = Snapshot::take(&policy.scan_roots, &watched);
    for line in before.disarm(&after) {
        eprintln!("{line}");
    }
    Ok(code)
}

/// `policy` with every plantable thing found, and the git dirs of each root
/// and of each repository found, in `read_only`.
fn with_plantables_read_only(policy: &Policy, found: &Snapshot) -> Policy {
    let mut policy = policy.clone();
    let repos = found
        .paths()
        .filter(|p| p.ends_with(".git"))
        .filter_map(|p| p.parent())
        .chain(policy.scan_roots.iter().map(|r| r.as_path()));
    let git_dirs: Vec<_> = repos.flat_map(planted::git_dirs).collect();
    policy.read_only.extend(found.paths().cloned());
    policy.read_only.extend(git_dirs);
    policy.read_only.sort();
    policy.read_only.dedup();
    policy
}

/// Waits for `pid` and turns its end into an exit code (128 + signal).
fn wait_exit_code(pid: libc::pid_t) -> i32 {
    let mut status = 0;
    loop {
        // SAFETY: `status` is a live `c_int` for waitpid to write.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            break;
        }
        if r == -1 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return SETUP_FAILED;
        }
    }
    exit_code(status)
}

fn exit_code(status: libc::c_int) -> i32 {
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        SETUP_FAILED
    }
}

/// PID 1: the namespace's mounts and network, then the command; reaps every
/// orphan until the command exits.
fn pid_one(policy: &Policy, command: &[OsString]) -> Result<i32, Step> {
    mounts::setup(policy)?;
    let listeners = bridge::bring_up(&policy.bridges)?;
    let ruleset = landlock_rules::ruleset(policy).map_err(|e| ("Landlock", e))?;
    let filter = seccomp::filter(policy.allow_unix_sockets).map_err(|e| ("seccomp", e))?;
    // SAFETY: PID 1 is the forked child of a single-threaded process and has
    // started no thread yet (the bridges' threads start in `serve_all`, after
    // this fork): the command's process is a whole copy and may allocate.
    let child = unsafe { libc::fork() };
    check("fork", child)?;
    if child == 0 {
        drop(listeners);
        let err = confine_and_exec(ruleset, &filter, command);
        // SAFETY: _exit ends this process at once, without running PID 1's
        // atexit handlers or flushing buffers copied from it.
        unsafe { libc::_exit(fail(err.0, &err.1)) };
    }
    drop(ruleset);
    forward_stop_signals(child);
    bridge::serve_all(listeners);
    let mut status = 0;
    loop {
        // SAFETY: `status` is a live `c_int` for waitpid to write.
        let pid = unsafe { libc::waitpid(-1, &mut status, 0) };
        if pid == child {
            return Ok(exit_code(status));
        }
        if pid == -1 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return Err(("wait", io::Error::last_os_error()));
        }
    }
}

/// The command's session (its own: see [`confine_and_exec`]), for the
/// signal handler.
static COMMAND: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

extern "C" fn forward(sig: libc::c_int) {
    let pid = COMMAND.load(std::sync::atomic::Ordering::Relaxed);
    if pid > 0 {
        // SAFETY: kill(2) is async-signal-safe and touches no memory of
        // ours; `-pid` (pid > 0) names the command's process group only.
        unsafe { libc::kill(-pid, sig) };
    }
    // A command that outlives a stop signal by [`STOP_GRACE`] is ended with
    // its namespace, before the caller's kill grace (2 s) runs out: the
    // outer process must live to check what the command left
    // (`crate::planted`).
    // SAFETY: alarm(2) is async-signal-safe and touches no memory.
    unsafe { libc::alarm(STOP_GRACE) };
}

/// Seconds a command has to exit after a stop signal.
const STOP_GRACE: libc::c_uint = 1;

extern "C" fn stop_now(_sig: libc::c_int) {
    // SAFETY: _exit(2) is async-signal-safe; PID 1 ending ends the namespace,
    // which is what is wanted.
    unsafe { libc::_exit(128 + libc::SIGTERM) };
}

/// The command is in a session of its own, out of the caller's process
/// group: the stop signals the caller sends that group (TERM on a timeout or
/// an interrupt) reach PID 1, which passes them on to the command's group.
/// (A SIGKILL of the group takes the outer process, and with it PID 1 and
/// the whole namespace.)
fn forward_stop_signals(command: libc::pid_t) {
    COMMAND.store(command, std::sync::atomic::Ordering::Relaxed);
    let handler = forward as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT] {
        // SAFETY: `forward` is an `extern "C" fn(c_int)` that does only
        // async-signal-safe things (an atomic load and kill(2)).
        unsafe { libc::signal(sig, handler) };
    }
    let stop = stop_now as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handler only calls _exit, which is async-signal-safe.
    unsafe { libc::signal(libc::SIGALRM, stop) };
}

/// The command's process: a session of its own (no controlling terminal, so
/// nothing it runs can read the user's terminal or push input into it), no
/// capabilities, `no_new_privs`, Landlock, seccomp, then exec. Returns only
/// on failure.
fn confine_and_exec(
    ruleset: landlock_rules::Ruleset,
    filter: &seccomp::Filter,
    command: &[OsString],
) -> Step {
    // SAFETY: setsid takes no arguments and touches no memory of ours.
    if let Err(e) = check("setsid", unsafe { libc::setsid() }) {
        return e;
    }
    // SAFETY: prctl(PR_SET_NO_NEW_PRIVS) takes integers only.
    if let Err(e) = check("no_new_privs", unsafe {
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    }) {
        return e;
    }
    if let Err(e) = caps::drop_bounding_and_ambient() {
        return ("capabilities", e);
    }
    if let Err(e) = landlock_rules::restrict_self(ruleset) {
        return ("Landlock", e);
    }
    if let Err(e) = caps::clear() {
        return ("capabilities", e);
    }
    if let Err(e) = seccomp::apply(filter) {
        return ("seccomp", e);
    }
    let e = std::process::Command::new(&command[0])
        .args(&command[1..])
        .exec();
    ("exec", e)
}
