//! The arguments a background session is started again with by `respawn`:
//! those it was launched with, without its prompt (already in its
//! transcript: never sent twice) and without what chose its conversation or
//! made its worktree (`respawn` resumes the one it had, in the folder it
//! worked in). Its permission mode, settings, model and tools stay.
//!
//! The arguments are read as clap reads them, from the command's own
//! description: which flags take a value, and how many.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;

use anyhow::Context;
use clap::CommandFactory;

use crate::cli::Cli;

/// What a respawn must not repeat (clap's ids: the `Cli` fields).
const DROPPED: [&str; 9] = [
    "resume",
    "continue_session",
    "session_id",
    "fork_session",
    "resume_session_at",
    "resume_drops_turn",
    "worktree",
    "bg",
    "bg_job",
];

/// How a flag takes its values.
#[derive(Clone, Copy)]
struct Flag {
    dropped: bool,
    /// Values it takes after it: none, one if one follows (optional), one,
    /// or all up to the next flag.
    values: Values,
}

#[derive(Clone, Copy, PartialEq)]
enum Values {
    None,
    Optional,
    One,
    Many,
}

/// `args.json`: the arguments the session was launched with (all of them:
/// its job folder, session id and prompt too); a respawn keeps some
/// ([`kept`]), or all if the session died before its transcript began.
const ARGS: &str = "args.json";

/// Keeps the session's arguments `args` in the job folder `dir`.
pub fn keep(dir: &Path, args: &[OsString]) -> anyhow::Result<()> {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let text = serde_json::to_vec(&args)?;
    // A new file in the new folder, not synced: the launcher's time is the
    // budget, and a respawn after a crash that lost it runs without flags.
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(dir.join(ARGS))
        .and_then(|mut file| file.write_all(&text))
        .with_context(|| format!("cannot write {}", dir.join(ARGS).display()))
}

/// The arguments the session in `dir` was launched with (none if the folder
/// has none).
pub fn launched(dir: &Path) -> Vec<OsString> {
    std::fs::read(dir.join(ARGS))
        .ok()
        .and_then(|text| serde_json::from_slice::<Vec<String>>(&text).ok())
        .unwrap_or_default()
        .into_iter()
        .map(OsString::from)
        .collect()
}

/// `args` (a session's, without the program) minus the prompt and the
/// conversation's and worktree's flags; and the prompt.
pub fn kept(args: &[OsString]) -> (Vec<OsString>, Option<OsString>) {
    let (longs, shorts) = flags();
    let mut out = Vec::new();
    let mut prompt = None;
    let mut i = 0;
    while i < args.len() {
        let token = args[i].to_str();
        if token == Some("--") {
            // What follows is positional: the prompt.
            prompt = prompt.or_else(|| args.get(i + 1).cloned());
            break;
        }
        let (flag, inline) = match token {
            Some(t) if t.starts_with("--") => {
                let (name, value) = t[2..]
                    .split_once('=')
                    .map_or((&t[2..], false), |(n, _)| (n, true));
                (longs.get(name).copied(), value)
            }
            Some(t) if t.starts_with('-') && t.len() > 1 => {
                let short = t[1..].chars().next().unwrap_or('-');
                (shorts.get(&short).copied(), t.len() > 2)
            }
            // A positional (not UTF-8 is never a flag): the prompt.
            _ => {
                prompt = prompt.or_else(|| Some(args[i].clone()));
                i += 1;
                continue;
            }
        };
        let end = i
            + 1
            + flag
                .filter(|_| !inline)
                .map_or(0, |f| values_after(f, &args[i + 1..]));
        if !flag.is_some_and(|f| f.dropped) {
            out.extend_from_slice(&args[i..end]);
        }
        i = end;
    }
    (out, prompt)
}

/// How many of `next` are the values of `flag`.
fn values_after(flag: Flag, next: &[OsString]) -> usize {
    let is_value = |a: &OsString| !a.to_str().is_some_and(|s| s.starts_with('-'));
    match flag.values {
        Values::None => 0,
        Values::One => usize::from(!next.is_empty()),
        Values::Optional => usize::from(next.first().is_some_and(is_value)),
        Values::Many => next.iter().take_while(|a| is_value(a)).count(),
    }
}

/// Every flag of `tack`, by long name (and alias) and short letter.
fn flags() -> (HashMap<String, Flag>, HashMap<char, Flag>) {
    let mut command = Cli::command();
    command.build();
    let mut longs = HashMap::new();
    let mut shorts = HashMap::new();
    for arg in command.get_arguments() {
        let range = arg.get_num_args().unwrap_or_default();
        let values = match (range.min_values(), range.max_values()) {
            (_, 0) => Values::None,
            (0, _) => Values::Optional,
            (_, 1) => Values::One,
            _ => Values::Many,
        };
        let values = if arg.get_action().takes_values() {
            values
        } else {
            Values::None
        };
        let flag = Flag {
            dropped: DROPPED.contains(&arg.get_id().as_str()),
            values,
        };
        for long in arg.get_long_and_visible_aliases().into_iter().flatten() {
            longs.insert(long.to_owned(), flag);
        }
        for alias in arg.get_all_aliases().into_iter().flatten() {
            longs.insert(alias.to_owned(), flag);
        }
        for short in arg.get_short_and_visible_aliases().into_iter().flatten() {
            shorts.insert(short, flag);
        }
    }
    (longs, shorts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept_of(args: &[&str]) -> Vec<String> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        kept(&args)
            .0
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    fn prompt_of(args: &[&str]) -> Option<String> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        kept(&args).1.map(|p| p.into_string().unwrap())
    }

    #[test]
    fn the_prompt_is_the_first_positional_or_what_follows_a_double_dash() {
        assert_eq!(
            prompt_of(&["--model", "opus", "fix it", "--bg-job", "/j/x"]),
            Some("fix it".to_owned())
        );
        assert_eq!(
            prompt_of(&["-w", "--bg-job", "/j/x", "--", "-x marks it"]),
            Some("-x marks it".to_owned())
        );
        assert_eq!(prompt_of(&["--model", "opus", "--bg-job", "/j/x"]), None);
    }

    #[test]
    fn the_prompt_and_the_conversations_flags_go_the_rest_stays() {
        assert_eq!(
            kept_of(&[
                "--permission-mode",
                "bypassPermissions",
                "fix the tests",
                "--session-id",
                "8f0e0c2a-1111-4222-8333-444455556666",
                "--bg-job",
                "/j/0a1b2c3d",
            ]),
            ["--permission-mode", "bypassPermissions"]
        );
        assert_eq!(
            kept_of(&["-w", "feat", "--model=opus", "-r", "abc", "go", "-c"]),
            ["--model=opus"]
        );
        // `-w` without a name; `--` before a prompt that looks like a flag.
        assert_eq!(
            kept_of(&["-w", "--settings", "s.json", "--", "-x marks it"]),
            ["--settings", "s.json"]
        );
        assert_eq!(
            kept_of(&["--allowedTools", "Bash", "fix it", "--fork-session"]),
            ["--allowedTools", "Bash"]
        );
    }

    #[test]
    fn what_it_keeps_parses_as_the_same_session_flags() {
        let args: Vec<OsString> = [
            "--permission-mode",
            "acceptEdits",
            "--disallowedTools",
            "Bash",
            "-w",
            "x",
            "do it",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        let (kept, _) = kept(&args);
        use clap::Parser;
        let cli = Cli::try_parse_from(std::iter::once(OsString::from("tack")).chain(kept)).unwrap();
        assert_eq!(cli.prompt, None);
        assert_eq!(cli.worktree, None);
        assert_eq!(cli.disallowed_tools, ["Bash"]);
        assert!(cli.permission_mode.is_some());
    }
}
