//! Auto mode's Bash checks: the safety check (writes to protected paths by a
//! redirection or a file command ask a person) and the read-only fast path
//! (commands the parser proves read-only, reading inside the working
//! directories).

use std::path::{Path, PathBuf};

use super::PermissionContext;
use crate::bash::{ParsedScript, RedirectKind, SimpleCommand, Word, basename, read_only_operands};
use crate::mode::PermissionMode;
use crate::path::{ResolvedPath, is_inside_any, resolve};

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
    /// every operand is inside the working directories (resolved against every
    /// one of `bases`, see [`PermissionContext::script_bases`]).
    pub(super) fn read_only_in_project(&self, cmd: &SimpleCommand, bases: &[PathBuf]) -> bool {
        read_only_operands(cmd).is_some_and(|operands| {
            operands.iter().all(|w| {
                self.word_paths(w, Some(bases))
                    .is_some_and(|paths| paths.iter().all(|p| is_inside_any(p, &self.working_dirs)))
            })
        })
    }

    /// The directories a relative path of the script may be relative to: the
    /// cwd; in auto mode also the destination of the script's one `cd` or
    /// `pushd` into a working directory (a `cd` that fails leaves the cwd, so
    /// both count). `None` when a directory change cannot be followed.
    pub(super) fn script_bases(&self, script: &ParsedScript) -> Option<Vec<PathBuf>> {
        let mut changes = script.commands.iter().filter(|c| {
            !c.argv.is_empty()
                && c.name()
                    .is_none_or(|n| matches!(basename(n), "cd" | "pushd" | "popd"))
        });
        let mut bases = vec![self.cwd.clone()];
        match (changes.next(), changes.next()) {
            (None, _) => {}
            (Some(cd), None) if self.mode == PermissionMode::Auto => {
                let target = self.cd_target(cd)?;
                bases.extend(target.forms().map(Path::to_path_buf));
                bases.dedup();
            }
            (Some(_), _) => return None,
        }
        Some(bases)
    }

    /// `cd DIR` / `pushd DIR` to a static directory inside the working
    /// directories.
    pub(super) fn cd_target(&self, cmd: &SimpleCommand) -> Option<ResolvedPath> {
        if !cmd.env.is_empty() || !matches!(cmd.name()?, "cd" | "pushd") || cmd.argv.len() != 2 {
            return None;
        }
        let w = &cmd.argv[1];
        if w.value.as_deref()?.starts_with('-') {
            return None;
        }
        self.word_path(w)
            .filter(|p| is_inside_any(p, &self.working_dirs))
    }

    /// Every path a static word may name: an absolute or `~` path once, a
    /// relative one against each of `bases`. `None` when the word is dynamic,
    /// a path cannot be resolved, or the word is relative and `bases` unknown.
    pub(super) fn word_paths(
        &self,
        w: &Word,
        bases: Option<&[PathBuf]>,
    ) -> Option<Vec<ResolvedPath>> {
        let v = w.value.as_deref()?;
        if v.starts_with('/') || v == "~" || v.starts_with("~/") {
            return self.word_path(w).map(|p| vec![p]);
        }
        bases?.iter().map(|b| self.word_path_from(w, b)).collect()
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
