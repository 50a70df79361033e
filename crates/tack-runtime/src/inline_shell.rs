//! `` !`command` `` in a custom command's (or skill's) body (found by
//! tack-extensions' `inline_shell::find`), as Claude Code runs them: before
//! the prompt is sent, each in turn, its output put where the line was.
//!
//! Invariant: a body's command runs only if a Bash call of it would run
//! without asking (the permission rules, plus the command's `allowed-tools`
//! while its turn lasts: `Gate::inline_bash`), and never from an untrusted
//! project's command. One that may not run is left out and the prompt says
//! why, so the model does not take a missing output for an empty one. They
//! run through the runtime's one shell runner ([`crate::user_shell`]).

use std::path::Path;

use tack_extensions::custom_commands::inline_shell::{InlineShell, find};
use tack_protocol::{ContentBlock, Message};
use tokio_util::sync::CancellationToken;

use crate::user_shell::{SHELL_TIMEOUT, run_shell, shell_output_shown};

/// Decides whether a line may run (`Err`: why not, shown in its place).
pub(crate) type MayRun<'a> =
    &'a (dyn Fn(String) -> futures::future::BoxFuture<'static, Result<(), String>> + Sync);

/// `text` with each `` !`command` `` replaced by its output (stdout, then
/// stderr), or by why it did not run.
pub(crate) async fn expand(
    text: &str,
    policy: InlineShell,
    may_run: MayRun<'_>,
    cwd: &Path,
    cancel: &CancellationToken,
) -> String {
    let spans = find(text);
    if spans.is_empty() || policy == InlineShell::Off {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end, command) in spans {
        out.push_str(&text[last..start]);
        last = end;
        let refused = match policy {
            InlineShell::Untrusted => Err(
                "the project is not trusted, so its commands run nothing (tack trust)".to_owned(),
            ),
            InlineShell::Run | InlineShell::Off => may_run(command.to_owned()).await,
        };
        if let Err(why) = refused {
            out.push_str(&format!("[`{command}` was not run: {why}]"));
            continue;
        }
        let run = run_shell(command, cwd, SHELL_TIMEOUT, cancel.child_token()).await;
        let mut shown = shell_output_shown(&run.stdout, &run.stderr);
        match (&run.stopped, run.code) {
            (Some(why), _) => shown.push_str(&format!("\n({why})")),
            (None, Some(0) | None) => {}
            (None, Some(code)) => shown.push_str(&format!("\n(exit code {code})")),
        }
        out.push_str(&shown);
    }
    out.push_str(&text[last..]);
    out
}

/// The message of a custom command with its body's lines run: the body is
/// the second block (after the command tags, tack-extensions'
/// `CustomCommand::message`).
pub(crate) async fn expand_message(
    mut message: Message,
    policy: InlineShell,
    may_run: MayRun<'_>,
    cwd: &Path,
    cancel: &CancellationToken,
) -> Message {
    if policy == InlineShell::Off {
        return message;
    }
    if let Some(ContentBlock::Text { text, .. }) = message.content.get_mut(1) {
        *text = expand(text, policy, may_run, cwd, cancel).await;
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[tokio::test]
    async fn allowed_commands_run_and_others_say_why_not() {
        let dir = tempfile::tempdir().unwrap();
        let may_run = |c: String| {
            let decided = match c.starts_with("echo") {
                true => Ok(()),
                false => Err("not allowed".to_owned()),
            };
            Box::pin(std::future::ready(decided)) as futures::future::BoxFuture<'static, _>
        };
        let cancel = CancellationToken::new();
        let text = "A: !`echo hi`\nB: !`rm -rf x`\nC: !`echo err >&2; exit 2`\n";
        let out = expand(text, InlineShell::Run, &may_run, dir.path(), &cancel).await;
        assert_eq!(
            out,
            "A: hi\nB: [`rm -rf x` was not run: not allowed]\nC: err\n(exit code 2)\n"
        );
        let out = expand(text, InlineShell::Untrusted, &may_run, dir.path(), &cancel).await;
        assert_eq!(
            out.lines().next(),
            Some(
                "A: [`echo hi` was not run: the project is not trusted, so its commands run nothing (tack trust)]"
            )
        );
        assert_eq!(
            expand(text, InlineShell::Off, &may_run, dir.path(), &cancel).await,
            text
        );
    }
}
