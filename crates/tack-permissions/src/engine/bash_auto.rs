//! Auto mode's Bash checks: the safety check (writes to protected paths by a
//! redirection or a file command ask a person) and the read-only fast path
//! (commands the parser proves read-only, reading inside the working
//! directories).

use std::path::Path;

use super::PermissionContext;
use crate::bash::{ParsedScript, RedirectKind, SimpleCommand, Word, basename, read_only_operands};
use crate::path::{is_inside_any, resolve};

/// Commands whose operands are files they create, change or remove: the
/// safety check looks at every static operand of theirs.
const WRITING_COMMANDS: &[&str] = &[
    "mkdir", "touch", "cp", "mv", "rm", "rmdir", "tee", "ln", "truncate", "chmod", "chown",
    "install",
];

impl PermissionContext {
    /// The protected paths (see `is_protected_in_auto`) the script writes
    /// through a redirection or as an operand of a file command, as written.
    /// A relative path is also tried against every static `cd` destination
    /// of the script (`cd ~ && echo x >> .bashrc`).
    pub(super) fn protected_writes(&self, script: &ParsedScript) -> Vec<String> {
        let mut bases = vec![self.cwd.clone()];
        for c in &script.commands {
            if c.name().is_some_and(|n| matches!(n, "cd" | "pushd")) {
                let dir = match c.argv.get(1).and_then(|w| w.value.as_deref()) {
                    None if c.argv.len() == 1 => Some(self.home.clone()),
                    Some(d) => resolve(Path::new(d), &self.cwd, &self.home)
                        .ok()
                        .map(|p| p.lexical),
                    None => None,
                };
                bases.extend(dir);
            }
        }
        let mut out = Vec::new();
        let redirects = script
            .redirects
            .iter()
            .filter(|r| r.kind == RedirectKind::Write)
            .filter_map(|r| r.target.as_ref());
        let operands = script
            .commands
            .iter()
            .filter(|c| {
                c.name()
                    .is_some_and(|n| WRITING_COMMANDS.contains(&basename(n)))
            })
            .flat_map(|c| {
                c.argv[1..]
                    .iter()
                    .filter(|w| w.value.as_deref().is_none_or(|v| !v.starts_with('-')))
            });
        for w in redirects.chain(operands) {
            let home = under_home(w);
            let w = home.as_ref().unwrap_or(w);
            let guarded = bases.iter().any(|base| {
                self.word_path_from(w, base)
                    .is_some_and(|p| self.is_protected_in_auto(&p))
            });
            if guarded && !out.contains(&w.raw) {
                out.push(w.raw.clone());
            }
        }
        out
    }

    /// A command the parser proves read-only ([`read_only_operands`]) whose
    /// every operand is inside the working directories.
    pub(super) fn read_only_in_project(&self, cmd: &SimpleCommand) -> bool {
        read_only_operands(cmd).is_some_and(|operands| {
            operands.iter().all(|w| {
                self.word_path(w)
                    .is_some_and(|p| is_inside_any(&p, &self.working_dirs))
            })
        })
    }
}

/// `$HOME/x`, `${HOME}/x`, `"$HOME/x"` as `~/x`, when nothing else in the word
/// expands: the one variable the safety check resolves.
fn under_home(w: &Word) -> Option<Word> {
    if w.value.is_some() {
        return None;
    }
    let raw = w.raw.as_str();
    let raw = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw);
    let rest = raw
        .strip_prefix("${HOME}")
        .or_else(|| raw.strip_prefix("$HOME"))?;
    let plain = rest.starts_with('/')
        && !rest
            .chars()
            .any(|c| matches!(c, '$' | '`' | '"' | '\'' | '\\' | '*' | '?' | '[' | '{'));
    plain.then(|| Word {
        raw: w.raw.clone(),
        value: Some(format!("~{rest}")),
    })
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::bash::parse_script;

    fn home(s: &str) -> Option<String> {
        let script = parse_script(&format!("touch {s}")).unwrap();
        under_home(&script.commands[0].argv[1]).and_then(|w| w.value)
    }

    #[test]
    fn home_variable_is_resolved_only_when_nothing_else_expands() {
        assert_eq!(home("$HOME/.bashrc"), Some("~/.bashrc".into()));
        assert_eq!(home("${HOME}/.zshrc"), Some("~/.zshrc".into()));
        assert_eq!(home("\"$HOME/.profile\""), Some("~/.profile".into()));
        assert_eq!(home("$HOME/$f"), None);
        assert_eq!(home("$HOMEDIR/x"), None);
        assert_eq!(home("$HOME/*"), None);
        assert_eq!(home("plain"), None);
    }
}
