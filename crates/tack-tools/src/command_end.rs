//! How a shell command's end is worded in Bash's result, wherever it ran
//! (tack's shell, or the editor's terminal).

/// `head`, then the output on the lines after it (if any).
pub(crate) fn prefixed(head: &str, body: &str) -> String {
    if body.is_empty() {
        head.to_string()
    } else {
        format!("{head}\n{body}")
    }
}

/// Exit status 1 means "nothing found / differs" for these, not failure.
pub(crate) fn exit_one_is_benign(command: &str) -> bool {
    let last = command.rsplit('|').next().unwrap_or(command).trim();
    let mut words = last.split_whitespace();
    matches!(
        (words.next(), words.next()),
        (
            Some("grep" | "egrep" | "fgrep" | "rg" | "find" | "diff" | "test" | "["),
            _
        ) | (Some("git"), Some("diff" | "grep"))
    )
}
