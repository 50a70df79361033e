//! Auto mode's own pieces of the decision: its options, the allow rules it sets
//! aside while it is on, and the files outside the project it protects.
//!
//! Auto mode hands what no rule, safety check or fast path decides to a
//! classifier model. An allow rule that lets the agent run an interpreter or a
//! runner (`Bash(python3:*)`, `Bash(npm run *)`, the bare `Bash`) would let any
//! code through without that look, so such rules are set aside while the mode
//! is on: they stay in the [`crate::settings_rules::RuleSet`] and work again in
//! the other modes.

use std::path::{Path, PathBuf};

use crate::bash::{BashPattern, basename, parse_script};
use crate::rule::{Rule, Specifier, ToolPattern};

/// `autoMode.classifyAllShell` and `useAutoModeDuringPlan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoOptions {
    /// Every Bash allow rule is set aside in auto mode (the classifier sees
    /// every shell command no fast path proves harmless).
    pub classify_all_shell: bool,
    /// Plan mode classifies what it would otherwise ask about.
    pub during_plan: bool,
}

impl Default for AutoOptions {
    fn default() -> AutoOptions {
        AutoOptions {
            classify_all_shell: false,
            during_plan: true,
        }
    }
}

/// Programs that run code given to them (a script, `-c TEXT`, a package's
/// binary, a remote command, another command line).
const INTERPRETERS: &[&str] = &[
    "python", "python3", "python2", "node", "deno", "tsx", "ruby", "perl", "php", "lua", "npx",
    "bunx", "pnpx", "bash", "sh", "ssh", "zsh", "fish", "eval", "exec", "env", "xargs", "sudo",
];

/// Package managers' subcommands that run a script or a package's binary.
const RUNNERS: &[(&str, &str)] = &[
    ("npm", "run"),
    ("npm", "exec"),
    ("npm", "x"),
    ("yarn", "run"),
    ("yarn", "exec"),
    ("yarn", "dlx"),
    ("pnpm", "run"),
    ("pnpm", "exec"),
    ("pnpm", "dlx"),
    ("bun", "run"),
    ("bun", "exec"),
    ("bun", "x"),
];

/// True when auto mode sets `rule` (an allow rule) aside: a Bash rule that
/// allows every command (`Bash`, `Bash(*)`), one whose program is an
/// interpreter or runner, or any Bash rule under `classify_all_shell`.
pub fn sets_aside(rule: &Rule, classify_all_shell: bool) -> bool {
    if !matches!(&rule.tool, ToolPattern::Name(n) if n == "Bash") {
        return false;
    }
    if classify_all_shell {
        return true;
    }
    match &rule.specifier {
        Specifier::None | Specifier::Bash(BashPattern::Any) => true,
        Specifier::Bash(BashPattern::Exact(words)) => names_runner(words, false),
        Specifier::Bash(BashPattern::Prefix(words)) => names_runner(words, true),
        Specifier::Bash(BashPattern::Glob(g)) => glob_may_reach_runner(g),
        // A whole script: any of its commands (all of them when unparseable).
        Specifier::Bash(BashPattern::Script(s)) => parse_script(s).map_or(true, |script| {
            script.commands.iter().any(|c| {
                let words: Vec<String> = c.argv.iter().map(|w| w.raw.clone()).collect();
                names_runner(&words, false)
            })
        }),
        Specifier::Path(_)
        | Specifier::Domain(_)
        | Specifier::AgentType(_)
        | Specifier::SkillName(_)
        | Specifier::Param { .. } => false,
    }
}

/// `words` start with an interpreter or a runner; a `prefix` rule of one word
/// that is a package manager (`npm:*`) covers its runners too.
fn names_runner(words: &[String], prefix: bool) -> bool {
    let Some(first) = words.first() else {
        return false;
    };
    let program = unversioned(basename(first));
    if INTERPRETERS.contains(&program) {
        return true;
    }
    match words.get(1) {
        Some(sub) => RUNNERS.contains(&(program, sub.as_str())),
        None => prefix && RUNNERS.iter().any(|(pm, _)| *pm == program),
    }
}

/// `python3.12` → `python`; `node18` → `node`: a version suffix is the same
/// interpreter.
fn unversioned(program: &str) -> &str {
    program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
}

/// A wildcard rule whose literal start is compatible with an interpreter or
/// runner: `py*`, `* --version`, `python3 *.py`, `npm r*`.
fn glob_may_reach_runner(glob: &str) -> bool {
    let literal = glob.split('*').next().unwrap_or_default();
    let literal = literal.strip_prefix('/').map_or(literal, |l| {
        // `/usr/bin/python3*`: the program's own name.
        l.rsplit_once('/').map_or(l, |(_, name)| name)
    });
    let runners = INTERPRETERS
        .iter()
        .map(|p| p.to_string())
        .chain(RUNNERS.iter().map(|(pm, sub)| format!("{pm} {sub}")));
    for runner in runners {
        if runner.starts_with(literal) {
            return true;
        }
        if let Some(rest) = literal.strip_prefix(runner.as_str())
            && (rest.is_empty() || rest.starts_with(' ') || is_version(rest))
        {
            return true;
        }
    }
    false
}

fn is_version(rest: &str) -> bool {
    let tail = rest.split(' ').next().unwrap_or_default();
    tail.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

/// Shell start-up files in the home directory: writing one runs code in every
/// later shell.
const SHELL_STARTUP_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".config/fish/config.fish",
];

/// The paths under `home` auto mode never writes without asking: the shell
/// start-up files, `~/.claude/` (and everything below it) and `~/.claude.json`.
/// Both `home` as given and its resolved form are listed.
pub fn protected_home_paths(home: &Path, resolved_home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for h in [home, resolved_home] {
        for name in SHELL_STARTUP_FILES
            .iter()
            .chain(&[".claude", ".claude.json"])
        {
            let p = h.join(name);
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::rule::parse_rule;

    fn aside(rule: &str) -> bool {
        sets_aside(&parse_rule(rule).unwrap(), false)
    }

    #[test]
    fn interpreter_and_runner_rules_are_set_aside_whatever_their_form() {
        for yes in [
            "Bash",
            "Bash(*)",
            "Bash(python3:*)",
            "Bash(python3 x.py)",
            "Bash(python3 *)",
            "Bash(/usr/bin/python3:*)",
            "Bash(python3.12:*)",
            "Bash(npm run test:*)",
            "Bash(npm run *)",
            "Bash(npm:*)",
            "Bash(npm x:*)",
            "Bash(pnpm dlx create-app)",
            "Bash(bun x:*)",
            "Bash(yarn:*)",
            "Bash(node server.js)",
            "Bash(sudo apt-get update)",
            "Bash(env:*)",
            "Bash(xargs:*)",
            "Bash(ssh host)",
            "Bash(sh:*)",
            "Bash(eval:*)",
            "Bash(py*)",
            "Bash(* --version)",
            "Bash(npm r*)",
            "Bash(cd web && npm run build)",
        ] {
            assert!(aside(yes), "{yes}");
        }
    }

    #[test]
    fn other_rules_stay() {
        for no in [
            "Bash(make:*)",
            "Bash(cargo test:*)",
            "Bash(npm test)",
            "Bash(npm install)",
            "Bash(git * main)",
            "Bash(ls*)",
            "Bash(shellcheck:*)",
            "Bash(pythonic:*)",
            "Read",
            "Edit(src/**)",
            "WebFetch(domain:docs.rs)",
            "mcp__fs",
        ] {
            assert!(!aside(no), "{no}");
        }
    }

    #[test]
    fn classify_all_shell_sets_aside_every_shell_rule_only() {
        let all = |r: &str| sets_aside(&parse_rule(r).unwrap(), true);
        assert!(all("Bash(make:*)"));
        assert!(all("Bash(git status)"));
        assert!(!all("Read(src/**)"));
    }

    #[test]
    fn protected_home_paths_cover_both_forms_once() {
        let got = protected_home_paths(Path::new("/h"), Path::new("/h"));
        let mut want: Vec<PathBuf> = SHELL_STARTUP_FILES
            .iter()
            .map(|n| Path::new("/h").join(n))
            .collect();
        want.extend([Path::new("/h/.claude").into(), "/h/.claude.json".into()]);
        assert_eq!(got, want);
        assert_eq!(got[0], Path::new("/h/.bashrc"));
        assert_eq!(
            protected_home_paths(Path::new("/l"), Path::new("/real")).len(),
            22
        );
    }
}
