//! `` !`command` `` in a custom command's (or skill's) body, as Claude Code
//! finds them: a `!` that starts a word, then a backticked command on one
//! line (commit-commands' `/commit` starts with `` !`git status` `` and
//! `` !`git diff HEAD` ``). Whether and how they run is the session's
//! (tack-runtime's `inline_shell.rs`, invariant 25); here is what a command
//! says about them.

use super::CustomCommand;

/// Whether a turn's message has `` !`command` `` lines to run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum InlineShell {
    /// A plain prompt: `` !`…` `` is text.
    #[default]
    Off,
    /// A custom command's or skill's body: its lines run (if allowed).
    Run,
    /// An untrusted project's command: none runs, the prompt says so.
    Untrusted,
}

/// Whose text holds the `` !`command` `` lines, for PreSkillShellCommand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellOwner {
    /// The skill's or command's name.
    pub name: String,
    /// `projectSettings`, `userSettings` or `plugin`.
    pub source: Option<&'static str>,
    /// `user` (typed, or sent by an SDK host), `claude` or `other`.
    pub invoked_by: &'static str,
}

impl InlineShell {
    /// What `command`'s lines may do: run (as the rules allow), or not at
    /// all (an untrusted project's command).
    pub fn of(command: &CustomCommand) -> InlineShell {
        if command.runs_shell {
            InlineShell::Run
        } else {
            InlineShell::Untrusted
        }
    }
}

/// The `` !`command` `` spans of `text` (a `!` at the start or after
/// whitespace, then a backticked command on one line): (start, end, command).
pub fn find(text: &str) -> Vec<(usize, usize, &str)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("!`").map(|i| i + from) {
        let starts_a_word = text[..at]
            .chars()
            .next_back()
            .is_none_or(char::is_whitespace);
        let body = at + 2;
        let Some(len) = text[body..].find(['`', '\n']) else {
            break;
        };
        let end = body + len;
        let command = &text[body..end];
        if starts_a_word && text[end..].starts_with('`') && !command.trim().is_empty() {
            out.push((at, end + 1, command));
            from = end + 1;
        } else {
            from = body;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn finds_backticked_commands_after_a_bang_that_starts_a_word() {
        let text = "Status: !`git status`\n- diff: !`git diff HEAD`\nnot!`x` !`` !`open\n`";
        let found: Vec<&str> = find(text).into_iter().map(|(.., c)| c).collect();
        assert_eq!(found, ["git status", "git diff HEAD"]);
    }
}
