//! The specifier of a `Bash(...)` rule, and matching it against one simple command.
//!
//! Matching is word-wise on argv after quote removal, with exact byte comparison
//! (no Unicode normalisation): `git diff:*` matches argv starting with exactly the
//! words `git`, `diff`. A word that is not static (expansion, substitution, glob)
//! never satisfies a rule word; for deny/ask rules such a word yields
//! [`Match::Maybe`], which the engine turns into a prompt.

use super::parse::{SimpleCommand, Word, parse_script};

/// What a `Bash(...)` specifier matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BashPattern {
    /// `Bash`, `Bash(*)`: every command.
    Any,
    /// `Bash(npm run build)`: argv equal to these words.
    Exact(Vec<String>),
    /// `Bash(npm run test:*)` ≡ `Bash(npm run test *)`: argv starting with these
    /// words (word boundary: `test-evil` is not `test`).
    Prefix(Vec<String>),
    /// `Bash(ls*)`, `Bash(git * main)`, `Bash(* --version)`: `*` matches any text
    /// (spaces included) in the command rendered as words joined by one space
    /// (words containing blanks or shell syntax rendered single-quoted).
    Glob(String),
    /// An exact rule whose text is not a single simple command
    /// (`Bash(cd web && npm test)`): matches only that exact (trimmed) command string.
    Script(String),
}

/// The outcome of matching a rule against a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Match {
    /// The rule certainly matches.
    Yes,
    /// The rule certainly does not match.
    No,
    /// The rule would match for some run-time value of a dynamic word.
    Maybe,
}

impl BashPattern {
    /// Parses the text between the parentheses of `Bash(...)`.
    pub fn parse(spec: &str) -> Result<BashPattern, String> {
        let spec = spec.trim();
        if spec.is_empty() {
            return Err("empty command pattern (write `Bash` to match every command)".into());
        }
        if spec == "*" {
            return Ok(BashPattern::Any);
        }
        if let Some(prefix) = spec.strip_suffix(":*") {
            if prefix.contains('*') {
                return Err("`:*` must be the only wildcard, at the end".into());
            }
            return Ok(BashPattern::Prefix(rule_words(prefix, true)?));
        }
        if spec.contains(":*") {
            return Err("`:*` is only valid at the end of the pattern".into());
        }
        if let Some(prefix) = spec.strip_suffix(" *")
            && !prefix.contains('*')
        {
            return Ok(BashPattern::Prefix(rule_words(prefix, true)?));
        }
        if spec.contains('*') {
            return Ok(BashPattern::Glob(spec.to_string()));
        }
        match rule_words(spec, false) {
            Ok(words) => Ok(BashPattern::Exact(words)),
            Err(_) => Ok(BashPattern::Script(spec.to_string())),
        }
    }

    /// Matches one simple command (env prefixes already considered by the caller).
    pub fn matches(&self, cmd: &SimpleCommand) -> Match {
        self.matches_argv(&cmd.argv)
    }

    /// Matches an argv (a command, or the command a wrapper runs).
    pub fn matches_argv(&self, words: &[Word]) -> Match {
        let argv: Vec<Option<&str>> = words.iter().map(|w| w.value.as_deref()).collect();
        match self {
            BashPattern::Any => Match::Yes,
            BashPattern::Script(_) => Match::No,
            BashPattern::Exact(words) => {
                match match_words(words, &argv) {
                    Match::Yes if argv.len() == words.len() => Match::Yes,
                    Match::Yes => {
                        // Longer: a dynamic extra word may expand to nothing.
                        if argv[words.len()..].iter().all(Option::is_none) {
                            Match::Maybe
                        } else {
                            Match::No
                        }
                    }
                    other => other,
                }
            }
            BashPattern::Prefix(words) => match_words(words, &argv),
            BashPattern::Glob(g) => {
                let rendered = render(words);
                let hit = glob_match(g, &rendered);
                match (hit, argv.iter().all(Option::is_some)) {
                    (true, true) => Match::Yes,
                    (false, true) => Match::No,
                    (true, false) | (false, false) => Match::Maybe,
                }
            }
        }
    }
}

/// Word-wise prefix match. A dynamic word before any contradiction: `Maybe`.
fn match_words(words: &[String], argv: &[Option<&str>]) -> Match {
    for (i, w) in words.iter().enumerate() {
        match argv.get(i) {
            None => {
                return if argv.iter().any(Option::is_none) {
                    Match::Maybe
                } else {
                    Match::No
                };
            }
            Some(Some(a)) if *a == w.as_str() => {}
            Some(Some(_)) => return Match::No,
            Some(None) => return Match::Maybe,
        }
    }
    Match::Yes
}

/// The words of a rule's command text, parsed with the same shell parser.
fn rule_words(text: &str, prefix: bool) -> Result<Vec<String>, String> {
    let parsed = parse_script(text).map_err(|e| e.to_string())?;
    let [cmd] = parsed.commands.as_slice() else {
        return Err(format!(
            "`{text}` is not a single simple command{}",
            if prefix {
                " (prefix rules must be)"
            } else {
                ""
            }
        ));
    };
    if !cmd.env.is_empty()
        || !parsed.redirects.is_empty()
        || !parsed.hazards.is_empty()
        || !parsed.assignments.is_empty()
    {
        return Err(format!("`{text}` is not a plain command"));
    }
    cmd.argv
        .iter()
        .map(|w| {
            w.value
                .clone()
                .ok_or_else(|| format!("`{}` is not a literal word", w.raw))
        })
        .collect()
}

/// argv rendered for glob rules: words joined by one space; a word with blanks,
/// quotes or shell syntax is single-quoted; a dynamic word is its source text.
pub fn render(argv: &[Word]) -> String {
    let mut out = String::new();
    for (i, w) in argv.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match &w.value {
            Some(v) if needs_quotes(v) => {
                out.push('\'');
                out.push_str(&v.replace('\'', r"'\''"));
                out.push('\'');
            }
            Some(v) => out.push_str(v),
            None => out.push_str(&w.raw),
        }
    }
    out
}

fn needs_quotes(v: &str) -> bool {
    v.is_empty()
        || v.chars().any(|c| {
            c.is_whitespace()
                || matches!(
                    c,
                    '\'' | '"' | ';' | '&' | '|' | '<' | '>' | '(' | ')' | '$' | '`' | '\\' | '*'
                )
        })
}

/// `*` matches any (possibly empty) text; everything else is literal.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return pattern == text;
    };
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    for m in middle {
        match rest.find(m) {
            Some(i) => rest = &rest[i + m.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn one(s: &str) -> SimpleCommand {
        parse_script(s).unwrap().commands.remove(0)
    }

    #[test]
    fn parses_forms() {
        let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(BashPattern::parse("*"), Ok(BashPattern::Any));
        assert_eq!(
            BashPattern::parse("npm run test:*"),
            Ok(BashPattern::Prefix(w(&["npm", "run", "test"])))
        );
        assert_eq!(
            BashPattern::parse("npm run test *"),
            Ok(BashPattern::Prefix(w(&["npm", "run", "test"])))
        );
        assert_eq!(
            BashPattern::parse("git diff"),
            Ok(BashPattern::Exact(w(&["git", "diff"])))
        );
        assert_eq!(
            BashPattern::parse("git commit -m 'a b'"),
            Ok(BashPattern::Exact(w(&["git", "commit", "-m", "a b"])))
        );
        assert_eq!(
            BashPattern::parse("ls*"),
            Ok(BashPattern::Glob("ls*".into()))
        );
        assert_eq!(
            BashPattern::parse("git * main"),
            Ok(BashPattern::Glob("git * main".into()))
        );
        assert_eq!(
            BashPattern::parse("cd web && npm test"),
            Ok(BashPattern::Script("cd web && npm test".into()))
        );
        assert!(BashPattern::parse("git:*diff").is_err());
        assert!(BashPattern::parse("a && b:*").is_err());
        assert!(BashPattern::parse("").is_err());
    }

    #[test]
    fn matching() {
        let p = BashPattern::parse("git diff:*").unwrap();
        assert_eq!(p.matches(&one("git diff")), Match::Yes);
        assert_eq!(p.matches(&one("git diff --stat")), Match::Yes);
        assert_eq!(p.matches(&one("git 'diff' x")), Match::Yes);
        assert_eq!(p.matches(&one("git diffx")), Match::No);
        assert_eq!(p.matches(&one("git $x")), Match::Maybe);
        let p = BashPattern::parse("ls*").unwrap();
        assert_eq!(p.matches(&one("lsof -i")), Match::Yes);
        let p = BashPattern::parse("* --version").unwrap();
        assert_eq!(p.matches(&one("cargo --version")), Match::Yes);
        assert_eq!(p.matches(&one("rm -rf '/ --version'")), Match::No);
        let p = BashPattern::parse("git * main").unwrap();
        assert_eq!(p.matches(&one("git push origin main")), Match::Yes);
        assert_eq!(p.matches(&one("git push origin dev")), Match::No);
    }

    #[test]
    fn glob() {
        assert!(glob_match("a*c", "abc"));
        assert!(glob_match("a*", "a"));
        assert!(!glob_match("a*a", "a"));
        assert!(glob_match("*", ""));
        assert!(glob_match("x", "x"));
    }
}
