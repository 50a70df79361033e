//! Bash for a read-only agent (the built-in Explore): the session's Bash tool,
//! refusing any command that could change something. The command is parsed
//! (tack-permissions' bash parser, the one permission rules use) and every
//! simple command in it must be a known read-only command with no output
//! redirection; anything the parser cannot vouch for is refused.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use tack_permissions::bash::{RedirectKind, SimpleCommand, basename, parse_script};
use tack_tool::{Tool, ToolContext, ToolError, ToolResult};

/// Commands that only read (files, the tree, the environment).
const READ_ONLY_COMMANDS: &[&str] = &[
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "pwd", "echo", "printf",
    "file", "stat", "tree", "du", "df", "which", "type", "realpath", "readlink", "dirname",
    "basename", "sort", "uniq", "cut", "tr", "diff", "cmp", "true", "false", "date", "cd", "nl",
    "less", "more", "column", "jq", "id", "uname", "whoami", "test", "[",
];

/// `git` subcommands that only read.
const READ_ONLY_GIT: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "ls-files",
    "rev-parse",
    "grep",
    "describe",
    "shortlog",
    "ls-tree",
    "cat-file",
];

/// `find` options that run or delete things.
const FIND_ACTIONS: &[&str] = &[
    "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
];

/// The wrapped tool; see the module docs.
pub struct ReadOnlyBash(pub Arc<dyn Tool>);

/// Why `script` is not read-only, if it is not.
pub fn refusal(script: &str) -> Option<String> {
    let parsed = match parse_script(script) {
        Ok(p) => p,
        Err(e) => return Some(e.to_string()),
    };
    if !parsed.hazards.is_empty() {
        return Some("the command uses constructs that cannot be checked".into());
    }
    if parsed
        .redirects
        .iter()
        .any(|r| r.kind == RedirectKind::Write)
    {
        return Some("the command writes to a file".into());
    }
    parsed.commands.iter().find_map(command_refusal)
}

fn command_refusal(cmd: &SimpleCommand) -> Option<String> {
    let Some(name) = cmd.name() else {
        return Some(format!("`{}` has a dynamic command name", cmd.text));
    };
    if !cmd.env.is_empty() {
        return Some(format!("`{}` sets environment variables", cmd.text));
    }
    let args: Vec<Option<&str>> = cmd.values().into_iter().skip(1).collect();
    let ok = match basename(name) {
        "git" => git_subcommand(&args).is_some_and(|sub| READ_ONLY_GIT.contains(&sub)),
        "find" => args
            .iter()
            .all(|a| a.is_some_and(|a| !FIND_ACTIONS.contains(&a))),
        other => READ_ONLY_COMMANDS.contains(&other),
    };
    (!ok).then(|| format!("`{}` is not a read-only command", cmd.text))
}

/// The subcommand of `git ARGS`; `None` if dynamic or behind `-c` (a config
/// value such as `core.pager` can run a program).
fn git_subcommand<'a>(args: &[Option<&'a str>]) -> Option<&'a str> {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match (*arg)? {
            "-c" | "--config-env" => return None,
            "-C" | "--git-dir" | "--work-tree" => {
                args.next();
            }
            flag if flag.starts_with('-') => {}
            sub => return Some(sub),
        }
    }
    None
}

impl Tool for ReadOnlyBash {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn aliases(&self) -> &[&str] {
        self.0.aliases()
    }

    fn description(&self) -> String {
        format!(
            "{}\n\nThis agent is read-only: only commands that change nothing (ls, cat, grep, \
             find without -exec/-delete, git status/log/diff/show, ...) are run.",
            self.0.description()
        )
    }

    fn input_schema(&self) -> Value {
        self.0.input_schema()
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, input: &Value, ctx: &ToolContext) -> Result<(), ToolError> {
        self.0.validate(input, ctx)?;
        if input
            .get("run_in_background")
            .and_then(Value::as_bool)
            .unwrap_or(false)
        {
            return Err(ToolError::new(
                "This agent is read-only: background commands are not available.",
            ));
        }
        let command = input.get("command").and_then(Value::as_str).unwrap_or("");
        match refusal(command) {
            Some(why) => Err(ToolError::new(format!(
                "This agent is read-only and cannot run this command: {why}."
            ))),
            None => Ok(()),
        }
    }

    fn max_result_chars(&self) -> Option<usize> {
        self.0.max_result_chars()
    }

    fn paths_touched(&self, input: &Value, ctx: &ToolContext) -> Vec<std::path::PathBuf> {
        self.0.paths_touched(input, ctx)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        self.0.call(input, ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_pass_and_writes_are_refused() {
        for ok in [
            "ls -la",
            "git status && git log --oneline -5",
            "grep -rn foo src | head -20",
            "find . -name '*.rs'",
            "cat a.txt 2>&1",
            "git -C sub diff",
        ] {
            assert_eq!(refusal(ok), None, "{ok}");
        }
        for bad in [
            "rm -rf x",
            "echo hi > f",
            "find . -delete",
            "git commit -m x",
            "FOO=1 ls",
            "$CMD",
            "ls; touch x",
            "cat <(rm x)",
            "git -c core.pager=evil log",
        ] {
            assert!(refusal(bad).is_some(), "{bad}");
        }
    }
}
