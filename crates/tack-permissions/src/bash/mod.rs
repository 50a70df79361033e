//! Bash command analysis: a real shell parser (tree-sitter-bash) turns a command
//! line into simple commands, redirections and hazards ([`parse_script`]); rules'
//! `Bash(...)` specifiers match simple commands word-wise ([`BashPattern`]); and the
//! small policy tables below say which commands are wrappers, which environment
//! prefixes are harmless and which commands are harmless on their own.

mod parse;
mod pattern;
mod read_only;

pub use parse::{
    Assignment, Hazard, MAX_SCRIPT_LEN, ParsedScript, Redirect, RedirectKind, SimpleCommand,
    Unparseable, Word, parse_command, parse_script,
};
pub use pattern::{BashPattern, Match, glob_match, render};
pub use read_only::read_only_operands;

/// Commands that run another command (or shell text) given in their arguments.
/// A prefix or wildcard rule never allows them (only an exact rule or a tool-wide
/// `Bash` allow does); deny rules are checked against every argv suffix of theirs,
/// and the script argument of `sh -c` / `eval` / `trap` is analysed recursively.
const WRAPPERS: &[&str] = &[
    "eval",
    "source",
    ".",
    "exec",
    "command",
    "builtin",
    "env",
    "sudo",
    "doas",
    "su",
    "runuser",
    "nohup",
    "timeout",
    "nice",
    "ionice",
    "time",
    "xargs",
    "stdbuf",
    "setsid",
    "unbuffer",
    "watch",
    "chroot",
    "flock",
    "strace",
    "ltrace",
    "script",
    "parallel",
    "coproc",
    "trap",
    "alias",
    "unalias",
    "enable",
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "fish",
    "csh",
    "tcsh",
    "busybox",
    "fakeroot",
    "firejail",
    "systemd-run",
    "nsenter",
    "unshare",
    "caffeinate",
];

/// Shells and wrappers whose script text (`-c TEXT`, eval's words) is analysed.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "busybox",
];

/// `find` flags that run commands or write files: with any of these, `find` is
/// treated as a wrapper.
const FIND_EXEC_FLAGS: &[&str] = &[
    "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
];

/// Environment prefixes that may precede a command matched by a rule. Anything
/// else (`PATH=`, `LD_PRELOAD=`, `GIT_*=`, `NODE_OPTIONS=`, ...) makes the command
/// impossible to allow by a content rule.
const SAFE_ENV: &[&str] = &[
    "RUST_BACKTRACE",
    "RUST_LOG",
    "CARGO_TERM_COLOR",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CI",
    "NODE_ENV",
    "TZ",
    "LANG",
    "LC_ALL",
    "LANGUAGE",
    "TERM",
    "COLUMNS",
    "LINES",
    "DEBUG",
    "VERBOSE",
];

/// The last path component of a command name (`/usr/bin/git` → `git`).
pub fn basename(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// True when `cmd` runs other commands from its arguments (see [`WRAPPERS`]).
pub fn is_wrapper(cmd: &SimpleCommand) -> bool {
    let Some(name) = cmd.name() else {
        return false;
    };
    let base = basename(name);
    if WRAPPERS.contains(&base) {
        return true;
    }
    base == "find"
        && cmd.argv.iter().any(|w| {
            w.value
                .as_deref()
                .is_none_or(|v| FIND_EXEC_FLAGS.contains(&v))
        })
}

/// True when `NAME=` may prefix a command allowed by a rule.
pub fn is_safe_env(name: &str) -> bool {
    SAFE_ENV.contains(&name)
}

/// True when a standalone assignment (`x=1; ...`) or a loop variable cannot change
/// how later commands run: a lower-case name (environment variables that programs
/// read are upper-case by convention) that is not a proxy or npm setting.
pub fn is_safe_shell_variable(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !name.contains("proxy")
        && !name.starts_with("npm_")
        && !name.starts_with("bash")
}

/// `git status`, `git diff`, `git log`, `git show`, `git rev-parse` and a
/// listing `git branch` (`--show-current`, `-a`, `-r`, `-v`, `--list`):
/// git commands that change nothing, as Claude Code allows them read-only.
/// Every word static, no `NAME=` prefix, no global option before the
/// subcommand (`-c` could name a program), no `--output` file, no external
/// diff or textconv program.
pub fn is_read_only_git(cmd: &SimpleCommand) -> bool {
    if cmd.name() != Some("git") || !cmd.env.is_empty() {
        return false;
    }
    let Some(words) = cmd.argv[1..]
        .iter()
        .map(|w| w.value.as_deref())
        .collect::<Option<Vec<&str>>>()
    else {
        return false;
    };
    let Some((sub, args)) = words.split_first() else {
        return false;
    };
    let writes = |a: &&str| {
        a.starts_with("--output") || a.starts_with("--ext-diff") || a.starts_with("--textconv")
    };
    match *sub {
        "status" | "rev-parse" => true,
        "diff" | "log" | "show" => !args.iter().any(writes),
        "branch" => args.iter().all(|a| {
            matches!(
                *a,
                "--show-current" | "-a" | "--all" | "-r" | "--remotes" | "-v" | "-vv" | "--list"
            )
        }),
        _ => false,
    }
}

/// Commands allowed without any rule because they only print their arguments or
/// filter stdin. Deliberately tiny: `echo`, `printf` (without `-v`), `true`, `false`,
/// `:`, `pwd`, and `head`/`tail`/`wc`/`sort`-free filters `head`, `tail`, `wc` when
/// every argument is an option or a number (no file operands: files are read via
/// Read, which checks paths). Redirections are checked separately.
pub fn is_harmless(cmd: &SimpleCommand) -> bool {
    let Some(name) = cmd.name() else {
        return false;
    };
    if !cmd.env.is_empty() {
        return false;
    }
    let args = &cmd.argv[1..];
    match name {
        "true" | "false" | ":" => true,
        "pwd" => args
            .iter()
            .all(|w| matches!(w.value.as_deref(), Some("-L" | "-P"))),
        "echo" => true,
        "printf" => args
            .first()
            .and_then(|w| w.value.as_deref())
            .is_some_and(|v| !v.starts_with('-')),
        "head" | "tail" | "wc" => args.iter().all(|w| {
            w.value.as_deref().is_some_and(|v| {
                (v.starts_with('-') && !v.contains('='))
                    || (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
            })
        }),
        _ => false,
    }
}

/// Shell text a wrapper will run: `bash -c TEXT`, `eval WORDS...`, `trap TEXT SIG`,
/// `su -c TEXT`, `watch TEXT`. `Some(None)` when the text is not static.
pub fn inner_script(cmd: &SimpleCommand) -> Option<Option<String>> {
    let name = basename(cmd.name()?);
    let args = &cmd.argv[1..];
    let all_static = |ws: &[Word]| -> Option<String> {
        ws.iter()
            .map(|w| w.value.clone())
            .collect::<Option<Vec<_>>>()
            .map(|v| v.join(" "))
    };
    if name == "eval" || name == "watch" {
        return Some(all_static(args));
    }
    if name == "trap" {
        return args.first().map(|w| w.value.clone());
    }
    if SHELLS.contains(&name) || name == "su" || name == "runuser" {
        // The word after the first option containing `c` (`-c`, `-lc`, `-xc`).
        let pos = args.iter().position(|w| {
            w.value
                .as_deref()
                .is_none_or(|v| v.starts_with('-') && !v.starts_with("--") && v.contains('c'))
        })?;
        return Some(args.get(pos + 1).and_then(|w| w.value.clone()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> SimpleCommand {
        parse_script(s).unwrap().commands.remove(0)
    }

    #[test]
    fn wrappers() {
        assert!(is_wrapper(&one("sudo rm -rf /")));
        assert!(is_wrapper(&one("/usr/bin/env rm")));
        assert!(is_wrapper(&one("find . -name x -delete")));
        assert!(!is_wrapper(&one("find . -name x")));
        assert!(!is_wrapper(&one("git diff")));
    }

    #[test]
    fn inner_scripts() {
        assert_eq!(
            inner_script(&one("bash -c 'rm -rf ~'")),
            Some(Some("rm -rf ~".into()))
        );
        assert_eq!(inner_script(&one("sh -lc \"$x\"")), Some(None));
        assert_eq!(
            inner_script(&one("eval rm -rf ~")),
            Some(Some("rm -rf ~".into()))
        );
        assert_eq!(inner_script(&one("git diff")), None);
    }

    #[test]
    fn harmless() {
        assert!(is_harmless(&one("echo hi")));
        for yes in [
            "git status",
            "git diff HEAD",
            "git log --oneline -10",
            "git branch --show-current",
        ] {
            assert!(is_read_only_git(&one(yes)), "{yes}");
        }
        for no in [
            "git branch new",
            "git -c x=y status",
            "git diff --output=f",
            "git push",
            "X=1 git status",
            "git diff --ext-diff",
        ] {
            assert!(!is_read_only_git(&one(no)), "{no}");
        }
        assert!(is_harmless(&one("head -n 5")));
        assert!(!is_harmless(&one("head /etc/passwd")));
        assert!(!is_harmless(&one("printf -v x y")));
        assert!(!is_harmless(&one("X=1 echo hi")));
    }
}
